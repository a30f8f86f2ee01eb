#include "tools/module_loader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/proto/proto_import.h"
#include "hlo/text/parser.h"
#include "hlo/verifier.h"

namespace hloc {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    const int err = errno;
    std::string what =
        absl::StrCat(path, ": cannot open: ", std::strerror(err));
    return err == ENOENT ? absl::NotFoundError(what)
                         : absl::InvalidArgumentError(what);
  }
  std::string contents;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
    contents.append(buffer, n);
  }
  const bool failed = std::ferror(file);
  const int err = errno;
  std::fclose(file);
  if (failed) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot read: ", std::strerror(err)));
  }
  return contents;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> LoadModule(
    const std::string& path, absl::string_view format) {
  std::string kind(format);
  if (kind.empty()) {
    const absl::string_view name(path);
    if (absl::EndsWith(name, ".hlo") || absl::EndsWith(name, ".txt")) {
      kind = "hlo";
    } else if (absl::EndsWith(name, ".pb")) {
      kind = "pb";
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          path,
          ": cannot tell the format from the file name (expected .hlo, .txt "
          "or .pb); give --format=hlo or --format=pb"));
    }
  } else if (kind != "hlo" && kind != "pb") {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown module format '", kind, "' (expected hlo or pb)"));
  }
  absl::StatusOr<std::string> contents = ReadFile(path);
  if (!contents.ok()) return contents.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      kind == "hlo" ? ParseHloModule(*contents, path)
                    : ParseHloModuleProtoBytes(*contents, path);
  if (!module.ok()) return module.status();
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) {
    return absl::Status(verified.code(),
                        absl::StrCat(path, ": the module does not verify: ",
                                     verified.message()));
  }
  return module;
}

}  // namespace hloc

#include "tools/module_loader.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hlo/proto/proto_import.h"
#include "hlo/text/mlir_hint.h"
#include "hlo/text/parser.h"
#include "hlo/verifier.h"
#include "runtime/file_util.h"

namespace hloc {
absl::StatusOr<std::unique_ptr<HloModule>> LoadModule(
    const std::string& path, absl::string_view format) {
  std::string kind(format);
  if (kind.empty()) {
    const absl::string_view name(path);
    if (absl::EndsWith(name, ".hlo") || absl::EndsWith(name, ".txt") ||
        path == "-") {
      kind = "hlo";
    } else if (absl::EndsWith(name, ".pb")) {
      kind = "pb";
    } else if (absl::EndsWith(name, ".mlir") ||
               absl::EndsWith(name, ".mlirbc")) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", MlirTextHint()));
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
  absl::StatusOr<std::string> contents = ReadFileToString(path);
  if (!contents.ok()) return contents.status();
  return ParseModule(*contents, kind, path);
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseModule(
    absl::string_view contents, absl::string_view format,
    absl::string_view name) {
  if (format != "hlo" && format != "pb") {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown module format '", format, "' (expected hlo or pb)"));
  }
  const std::string label(name);
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      format == "hlo" ? ParseHloModule(contents, label)
                      : ParseHloModuleProtoBytes(contents, label);
  if (!module.ok()) return module.status();
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) {
    return absl::Status(verified.code(),
                        absl::StrCat(label, ": the module does not verify: ",
                                     verified.message()));
  }
  return module;
}

}  // namespace hloc

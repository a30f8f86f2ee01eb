#include "runtime/file_util.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace hloc {

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  const bool is_stdin = path == "-";
  std::FILE* file = is_stdin ? stdin : std::fopen(path.c_str(), "rb");
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
  if (!is_stdin) std::fclose(file);
  if (failed) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot read: ", std::strerror(err)));
  }
  return contents;
}

}  // namespace hloc

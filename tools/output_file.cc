#include "tools/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace hloc {
namespace {

// Writes all of `bytes` to `path` (created or truncated) and closes it;
// errors call it `shown_as`.
absl::Status WriteAll(const std::string& path, const std::string& shown_as,
                      absl::string_view bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write ", shown_as, ": ", std::strerror(errno)));
  }
  const size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
  const int write_errno = errno;
  const bool ok = written == bytes.size() && std::fflush(file) == 0;
  const int flush_errno = errno;
  const bool closed = std::fclose(file) == 0;
  if (ok && closed) return absl::OkStatus();
  const int reason = written != bytes.size() ? write_errno : flush_errno;
  return absl::InvalidArgumentError(
      absl::StrCat("cannot write ", shown_as, ": ",
                   std::strerror(reason != 0 ? reason : EIO)));
}

}  // namespace

absl::Status WriteOutputFile(const std::string& path, absl::string_view bytes) {
  std::error_code error;
  const std::filesystem::file_status status =
      std::filesystem::status(path, error);
  const bool regular_or_new = !std::filesystem::exists(status) ||
                              std::filesystem::is_regular_file(status);
  if (!regular_or_new) return WriteAll(path, path, bytes);
  const std::string temporary =
      absl::StrCat(path, ".tmp-", static_cast<long>(getpid()));
  absl::Status written = WriteAll(temporary, path, bytes);
  if (written.ok()) {
    std::filesystem::rename(temporary, path, error);
    if (!error) return absl::OkStatus();
    written = absl::InvalidArgumentError(
        absl::StrCat("cannot write ", path, ": ", error.message()));
  }
  std::filesystem::remove(temporary, error);
  return written;
}

}  // namespace hloc

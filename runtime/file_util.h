// Whole-file reads with errors that name the file, shared by the tools, the
// .npy reader and the backends.
#ifndef RUNTIME_FILE_UTIL_H_
#define RUNTIME_FILE_UTIL_H_

#include <string>

#include "absl/status/statusor.h"

namespace hloc {

// The bytes of `path`; "-" reads standard input. A missing file is
// NotFound, any other failure InvalidArgument, both "PATH: cannot ...".
absl::StatusOr<std::string> ReadFileToString(const std::string& path);

}  // namespace hloc

#endif  // RUNTIME_FILE_UTIL_H_

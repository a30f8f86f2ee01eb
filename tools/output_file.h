// Writing a tool's output file so that a failure leaves nothing behind:
// a regular file (or a new one) is written beside its destination under a
// temporary name and renamed into place only once every byte is on disk,
// so a full disk or a failed write never leaves a truncated module or
// executable that a later step would read as good. Anything else (a pipe,
// /dev/stdout) is written directly. Errors name the path and the reason.
#ifndef TOOLS_OUTPUT_FILE_H_
#define TOOLS_OUTPUT_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace hloc {

absl::Status WriteOutputFile(const std::string& path, absl::string_view bytes);

}  // namespace hloc

#endif  // TOOLS_OUTPUT_FILE_H_

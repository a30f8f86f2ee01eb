// The host side of one run of a device executor (cuda, rocm): the checks
// on the arguments, where each parameter leaf's bytes are copied from and
// where each result leaf's bytes are copied to. A leaf whose bytes are
// laid out as its slot is copied straight from or into its literal; any
// other goes through host bytes staged here (dense_buffer.h lays them out).
// The executor issues the copies on its stream and waits before the
// staging is dropped or the result is finished.
#ifndef RUNTIME_DEVICE_RUN_STAGING_H_
#define RUNTIME_DEVICE_RUN_STAGING_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/literal.h"
#include "runtime/executable.h"

namespace hloc {

// One copy between host memory and the slot `slot` of the buffer plan.
struct HostSlotCopy {
  int64_t slot = 0;
  void* host = nullptr;
  size_t bytes = 0;
  std::string what;  // "copying parameter 1 leaf 0 in", for errors
};

// One argument per entry parameter, each compatible with its shape.
absl::Status CheckRunArguments(const Executable& executable,
                               absl::Span<const Literal> arguments);

// The copies into the parameter slots (empty slots skipped). Staged bytes
// are kept until this is destroyed.
class ArgumentStaging {
 public:
  ArgumentStaging(const Executable& executable,
                  absl::Span<const Literal> arguments);
  const std::vector<HostSlotCopy>& copies() const { return copies_; }

 private:
  std::vector<std::unique_ptr<uint8_t[]>> staged_;
  std::vector<HostSlotCopy> copies_;
};

// The result literal and the copies out of the result slots (empty ones
// skipped); Finish, once the copies are done, lays the staged leaves out
// into the result.
class ResultStaging {
 public:
  explicit ResultStaging(const Executable& executable);
  // The leaves point into the result: not copied or moved.
  ResultStaging(const ResultStaging&) = delete;
  ResultStaging& operator=(const ResultStaging&) = delete;
  const std::vector<HostSlotCopy>& copies() const { return copies_; }
  Literal Finish() &&;

 private:
  const Executable& executable_;
  Literal result_;
  std::vector<Literal*> leaves_;
  std::vector<std::pair<size_t, std::unique_ptr<uint8_t[]>>> staged_;
  std::vector<HostSlotCopy> copies_;
};

// Host bytes for staging (new[] gives 16-byte alignment, enough for every
// element type); at least one byte.
std::unique_ptr<uint8_t[]> HostStagingBytes(int64_t bytes);

}  // namespace hloc

#endif  // RUNTIME_DEVICE_RUN_STAGING_H_

// A "lapack.<routine>" step (ExecutableStep::Kind::kLibraryCall, run by
// lapack_library.h) on its slots in host memory: each operand slot is read
// into a row-major array whatever its layout (JAX asks for column-major
// matrices), LAPACK runs on those, and the results are written back in
// their slots' layouts. The CPU executor runs it on its buffers
// (cpu_library_call.h); the CUDA executor on host copies of its slots, for
// the CUDA lowering's host-LAPACK calls (cuhybrid_*: eig, QR with column
// pivoting), as jaxlib's hybrid kernels copy the matrix to the host.
#ifndef RUNTIME_LAPACK_STEP_H_
#define RUNTIME_LAPACK_STEP_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/lapack_custom_call.h"
#include "runtime/executable.h"

namespace hloc {

class LapackStep {
 public:
  // Whether `library` names a LAPACK routine ("lapack.geev", ...).
  static bool Handles(const std::string& library);

  // Checks the routine, the config's characters and the step's slots (how
  // many, their shapes). `what` names the step in errors.
  static absl::StatusOr<std::unique_ptr<LapackStep>> Create(
      const Executable& executable, const ExecutableStep& step,
      const std::string& what);

  // Runs the routine; `address[slot]` is where each of the step's slots
  // lives in host memory (other entries are not read). Every operand is
  // read before any result is written: a result may share its operand's
  // slot.
  absl::Status Run(const Executable& executable, const ExecutableStep& step,
                   const std::vector<uint8_t*>& address) const;

  // How many of the step's slots (the first ones) are its operands; the
  // rest are its results.
  size_t num_operands() const { return num_operands_; }

 private:
  LapackStep() = default;

  LapackRoutine routine_ = LapackRoutine::kPotrf;
  size_t num_operands_ = 0;
  std::string what_;
};

}  // namespace hloc

#endif  // RUNTIME_LAPACK_STEP_H_

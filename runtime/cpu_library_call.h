// A host library call step of a CPU executable (ExecutableStep::Kind::
// kLibraryCall): "fft" (FFTW, fft_library.h), "lapack.<routine>"
// (lapack_library.h) or "topk.largest" / "topk.smallest" (cpu_topk.h),
// configured by the step's LibraryConfig. Its slots
// are the operands' leaves then the results'; each slot is read into a
// row-major array, whatever its layout (JAX's LAPACK calls ask for
// column-major ones), the library runs on those, and the results are
// written back in their slots' layouts.
#ifndef RUNTIME_CPU_LIBRARY_CALL_H_
#define RUNTIME_CPU_LIBRARY_CALL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/executable.h"
#include "runtime/lapack_step.h"

namespace hloc {

// The library name of a topk step: k is its values' minor dimension.
std::string CpuTopKLibraryName(bool largest);

class CpuLibraryCall {
 public:
  // Checks the library name, the config and the step's slots (how many,
  // their shapes). `what` names the step in errors.
  static absl::StatusOr<std::unique_ptr<CpuLibraryCall>> Create(
      const Executable& executable, const ExecutableStep& step,
      const std::string& what);

  // Runs the call; `address[slot]` is where each of the step's slots lives.
  absl::Status Run(const Executable& executable, const ExecutableStep& step,
                   const std::vector<uint8_t*>& address) const;

  // Whether `library` is one this file runs ("fft", "lapack.potrf", ...).
  static bool Handles(const std::string& library);

 private:
  CpuLibraryCall() = default;
  // The LAPACK routine of a "lapack.<routine>" step; null for the others.
  std::unique_ptr<LapackStep> lapack_;
  std::string what_;
};

}  // namespace hloc

#endif  // RUNTIME_CPU_LIBRARY_CALL_H_

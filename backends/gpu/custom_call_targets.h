// The custom-call targets the GPU backend implements: the one place that
// answers "does the cuda backend run this custom call?". Every other target
// (XLA:GPU's own __cudnn$* and __cublas$* calls among them: hloc lowers
// dots to cuBLAS itself, backends/gpu/gemm_lowering.h) is refused at
// compile time, by name (backends/common/custom_call_support.h). A change
// that implements a target adds its name here.
#ifndef BACKENDS_GPU_CUSTOM_CALL_TARGETS_H_
#define BACKENDS_GPU_CUSTOM_CALL_TARGETS_H_

#include "absl/strings/string_view.h"

namespace hloc {

// Whether `platform` ("cuda" or "rocm") runs custom calls to `target`.
// JAX's cuSOLVER calls run on cuda only: rocm has no solver library here
// (Debian packages no hipSOLVER), so a module lowered for cuda and
// compiled for rocm is refused by name, not by the kernel emitters.
bool GpuSupportsCustomCall(absl::string_view target,
                           absl::string_view platform);

}  // namespace hloc

#endif  // BACKENDS_GPU_CUSTOM_CALL_TARGETS_H_

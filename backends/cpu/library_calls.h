// The instructions the CPU backend runs as host library calls instead of
// generated code: fft (FFTW), cholesky and triangular-solve (LAPACK), topk
// (runtime/cpu_topk.h) and the LAPACK custom calls of JAX's CPU lowering
// (hlo/lapack_custom_call.h).
// Each becomes one kLibraryCall step (runtime/cpu_library_call.h) whose
// config carries what the call needs, so a saved executable runs them
// without the module.
#ifndef BACKENDS_CPU_LIBRARY_CALLS_H_
#define BACKENDS_CPU_LIBRARY_CALLS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/instruction.h"
#include "runtime/executable.h"

namespace hloc {

// False when `instruction` is not one of the above. Otherwise fills the
// step's kind, library and config (its buffers must already be set, the
// operands' leaves then the results') and checks the call against its
// slots' shapes: a malformed one is an error naming the instruction.
absl::StatusOr<bool> MakeCpuLibraryCall(const HloInstruction& instruction,
                                        const Executable& executable,
                                        ExecutableStep* step);

// The custom_call_targets the CPU backend runs (as library calls): JAX's
// CPU LAPACK calls and its CUDA lowering's host-LAPACK ones (cuhybrid_*).
std::vector<std::string> CpuLibraryCustomCallTargets();

}  // namespace hloc

#endif  // BACKENDS_CPU_LIBRARY_CALLS_H_

// The HLO fft as a cuFFT library call ("cufft" steps, executable.h), as
// XLA:GPU runs it. cuFFT reads and writes dense row-major batches of
// transforms over the last 1 to 3 dimensions, so operand and result must
// have descending layouts; anything else is Unimplemented, naming why.
#ifndef BACKENDS_GPU_FFT_LOWERING_H_
#define BACKENDS_GPU_FFT_LOWERING_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/instruction.h"
#include "runtime/executable.h"

namespace hloc {

// The "cufft" step of `fft` on `slots` (operand, result).
absl::StatusOr<ExecutableStep> MakeFftStep(const HloInstruction& fft,
                                           const std::vector<int64_t>& slots);

}  // namespace hloc

#endif  // BACKENDS_GPU_FFT_LOWERING_H_

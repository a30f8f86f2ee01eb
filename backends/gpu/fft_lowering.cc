#include "backends/gpu/fft_lowering.h"

#include "absl/strings/str_cat.h"
#include "hlo/status_macros.h"
#include "runtime/fft_check.h"

namespace hloc {

absl::StatusOr<ExecutableStep> MakeFftStep(const HloInstruction& fft,
                                           const std::vector<int64_t>& slots) {
  const Shape& input = fft.operand(0)->shape();
  const Shape& output = fft.shape();
  if (!input.HasDescendingLayout() || !output.HasDescendingLayout()) {
    return absl::UnimplementedError(
        absl::StrCat("cuFFT reads and writes row-major arrays; ", fft.name(),
                     " has ", input.ToString(), " -> ", output.ToString()));
  }
  HLOC_RETURN_IF_ERROR(CheckFft(fft.attrs().fft_type, fft.attrs().fft_length,
                                input, output));
  ExecutableStep step;
  step.kind = ExecutableStep::Kind::kLibraryCall;
  step.library = "cufft";
  step.instruction = fft.name();
  step.buffers = slots;
  step.library_config.fft_type = fft.attrs().fft_type;
  step.library_config.fft_length = fft.attrs().fft_length;
  return step;
}

}  // namespace hloc

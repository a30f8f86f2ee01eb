// Convolutions as cuDNN library calls ("cudnn.conv" steps, executable.h),
// as XLA:GPU runs them. cuDNN is given the tensors where they are, so the
// convolution must already be in one of the two forms it reads packed:
//   channels last (NHWC): input [N, spatial..., C], kernel [K, spatial...,
//     C/groups], output [N, spatial..., K];
//   channels first (NCHW): input [N, C, spatial...], kernel [K, C/groups,
//     spatial...], output [N, K, spatial...];
// row-major layouts, one to three spatial dimensions, the same padding on
// both sides of each, no base (lhs) dilation or window reversal, batch
// group count 1, operands and result of one type (f32, f64, f16, bf16).
// A convolution in a filter-gradient order (ConvLayout::kFilterGradient or
// kFilterGradientChannelsFirst, any batch group count: a grouped
// convolution's filter gradient) is a call of cuDNN's backward filter
// instead (ConvConfig::backward_filter).
// The convolution-layout pass (passes/convolution_layout.h) puts the
// convolutions it can into that form with transposes and a pad; the rest
// are Unimplemented here (with the reason) and run as direct kernels.
#ifndef BACKENDS_GPU_CONVOLUTION_LOWERING_H_
#define BACKENDS_GPU_CONVOLUTION_LOWERING_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/instruction.h"
#include "runtime/executable.h"

namespace hloc {

// The cuDNN description of `conv`, or Unimplemented naming why it has none.
absl::StatusOr<ConvConfig> LowerToConvCall(const HloInstruction& conv);

// The "cudnn.conv" step of `conv` on `slots` (input, kernel, output).
absl::StatusOr<ExecutableStep> MakeConvolutionStep(
    const HloInstruction& conv, const std::vector<int64_t>& slots);

}  // namespace hloc

#endif  // BACKENDS_GPU_CONVOLUTION_LOWERING_H_

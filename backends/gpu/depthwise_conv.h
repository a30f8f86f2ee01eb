// Depthwise convolutions that the GPU computes with a kernel of its own
// (depthwise_conv_emitter.cc) rather than a cuDNN call or the elemental
// loop kernel. No LLVM here: the cuda compiler asks it before it makes a
// convolution a library call, the kernel emitter when it picks a kernel.
//
// A depthwise convolution convolves each channel with its own filter
// (feature_group_count equal to the channel count, one output channel per
// group), as MobileNet's and ConvNeXt's 3x3 to 7x7 layers and their input
// gradients do. Each output element reads a few dozen inputs and as many
// filter taps, so the work is light and the tensors large: it is
// memory-bound on a GPU. cuDNN's depthwise engines reach a fraction of
// that (0.08-0.10 ms each for the forward and data-gradient convolutions
// of a 7x7 bf16 convolution on 32x56x56x96, where reading and writing the
// activations takes about 0.01 ms: H200, session 45), and the elemental
// loop kernel, which loads one element per tap, took 0.29 ms (H100,
// session 41).
#ifndef BACKENDS_GPU_DEPTHWISE_CONV_H_
#define BACKENDS_GPU_DEPTHWISE_CONV_H_

#include <cstdint>
#include <optional>

#include "backends/gpu/launch_dims.h"
#include "hlo/instruction.h"

namespace hloc {

struct DepthwiseConv {
  int64_t channels = 0;
  // The product of the window's sizes (filter taps per channel).
  int64_t taps = 0;
  // Output positions apart from channels and W (the last spatial
  // dimension), and W's size.
  int64_t outer_positions = 0;
  int64_t output_width = 0;
  // How the kernel covers them (launch_dims.h).
  DepthwiseConvTiling tiling;
};

// `conv` as the depthwise kernel takes it, or nullopt: an f32, f16 or bf16
// convolution (operands and result of one type) with 1 to 3 spatial
// dimensions, feature_group_count equal to the input's and the output's
// channel count and no batch groups; no base (lhs) dilation or window
// reversal (any stride, padding and window dilation); channels the
// physically minor dimension of input and output (NHWC as XLA lays out
// 16-bit convolutions; the filter in any layout); no empty tensor; and
// the filter taps of one vector of channels fit the kernel's shared
// memory (launch_dims.h).
std::optional<DepthwiseConv> MatchDepthwiseConvolution(
    const HloInstruction& conv);

}  // namespace hloc

#endif  // BACKENDS_GPU_DEPTHWISE_CONV_H_

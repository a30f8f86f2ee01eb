// Convolutions in the forms a convolution library reads in place
// ("convolution-layout", CUDA pipeline).
//
// cuDNN convolves packed tensors in two dimension orders (channels last,
// NHWC, or channels first, NCHW; see ConvLayout below) with the same
// padding on both sides of each spatial dimension. JAX's convolutions come
// in any order its dimension_numbers name (HWIO kernels by default, the
// transposed orders of a gradient), and "SAME" padding with a stride or
// an even window is asymmetric. This pass rewrites each convolution that
// cuDNN could compute into one it reads directly, as XLA:GPU's layout
// assignment does for its cuDNN calls:
//
//   x' = transpose(x) into the chosen order      (omitted if already so)
//   x' = pad(x', low - p, high - p) per spatial dimension, where
//        p = max(0, min(low, high)): the asymmetric (or negative) part
//   w' = transpose(w) into the chosen order      (omitted if already so)
//   y' = convolution(x', w') with padding p on both sides
//   result = transpose(y') back to the original output order
//
// The order is channels first for a depthwise f32 convolution with several
// output channels a group (see PrefersChannelsFirst in the .cc) or when an
// f32 or f64 input already is, else channels last (the order tensor cores
// read; 16-bit convolutions always, as XLA:GPU lays them out, and depthwise
// ones of one output channel a group, which the GPU's own kernel reads). The transposes of constant
// kernels fold away; the others are kernels of their own, usually small next to
// the convolution. Convolutions cuDNN cannot compute stay as they are
// (the direct kernel runs them): other element types, base (lhs)
// dilation, window reversal, non-default layouts, more than three spatial
// dimensions, empty tensors. --stats counts each.
//
// A filter gradient goes into a filter-gradient order instead
// (kFilterGradient, or kFilterGradientChannelsFirst for the filter
// gradients of depthwise f32 convolutions and channels-first f32 inputs), which cuDNN's backward-filter convolution
// reads, as XLA:GPU's convolution rewriter makes them backward-filter
// calls: a convolution with batch groups (a grouped convolution's filter
// gradient as JAX writes it) or a dense one that IsDenseFilterGradient
// recognises.
#ifndef PASSES_CONVOLUTION_LAYOUT_H_
#define PASSES_CONVOLUTION_LAYOUT_H_

#include "hlo/instruction.h"
#include "passes/pass.h"

namespace hloc {

enum class ConvLayout {
  // input [N, spatial..., C], kernel [K, spatial..., C/groups],
  // output [N, spatial..., K]
  kChannelsLast,
  // input [N, C, spatial...], kernel [K, C/groups, spatial...],
  // output [N, K, spatial...]
  kChannelsFirst,
  // The filter gradient of a channels-last convolution, as cuDNN's
  // backward filter reads it: input [N, spatial..., C] (N the
  // convolution's feature dimension, C its batch dimension), kernel (the
  // output's gradient) [N, spatial..., K], output (the filter's gradient)
  // [K, spatial..., C/groups] (K its feature, C/groups its batch
  // dimension). JAX's transpose rules write a grouped convolution's filter
  // gradient as a convolution with batch_group_count = groups.
  kFilterGradient,
  // The filter gradient of a channels-first convolution: input
  // [N, C, spatial...] (N the feature, C the batch dimension), kernel
  // [N, K, spatial...], output [K, C/groups, spatial...].
  kFilterGradientChannelsFirst,
  kOther,
};

// The element types cuDNN convolves (and this pass and the cuda lowering
// take): f32, f64, f16, bf16.
bool IsConvLibraryType(PrimitiveType type);

// The dimension order of `conv`'s numbers (its shapes' layouts aside).
ConvLayout GetConvLayout(const HloInstruction& conv);

// Whether `conv` is a dense convolution's filter gradient as JAX's
// transpose rule writes it (no groups: the activation as the input, the
// output gradient as the window, the filter as the result, which is
// smaller than the window in every spatial dimension), of a type and
// sizes cuDNN's backward-filter convolution computes (not f64: cuDNN 9
// has no channels-last algorithm for it). XLA:GPU's convolution rewriter
// recognises the same shape.
bool IsDenseFilterGradient(const HloInstruction& conv);

// Whether `layout` is one of the filter-gradient orders.
bool IsFilterGradientLayout(ConvLayout layout);

// Whether `layout` puts channels right after the outermost dimension.
bool IsChannelsFirstLayout(ConvLayout layout);

class ConvolutionLayout : public HloPass {
 public:
  absl::string_view name() const override { return "convolution-layout"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_CONVOLUTION_LAYOUT_H_

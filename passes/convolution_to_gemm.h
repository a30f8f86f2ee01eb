// Convolutions as im2col + one gemm ("convolution-to-gemm").
//
// The GPU backend runs a convolution as a direct loop kernel, one thread
// per output element walking the window: a 3x3, 64->64-channel conv on
// 32x56x56 NHWC f32 takes 1.8 ms on an H100, where cuDNN (XLA:GPU) needs
// 0.2 ms for the whole program. Dots already run on cuBLAS, so this pass
// rewrites a convolution into data movement plus one dot (Caffe's
// im2col lowering):
//
//   x' = transpose(x) to [N, spatial..., C_in]        (omitted if identity)
//   w' = transpose(w) to [spatial..., C_in, C_out]    (omitted if identity)
//   p  = pad(x', conv padding)                        (positive parts only)
//   for each kernel position q (row-major over the spatial dims):
//     s_q = slice(p) [N, out..., C_in], starting at q * rhs dilation (plus
//           the negative padding, which cuts the input instead), strided
//           by the window strides
//   col = concatenate(s_0, ..., s_{K-1}) along C     [N, out..., K*C_in]
//   y   = reshape(dot(reshape(col) [M, K*C_in], reshape(w') [K*C_in, C_out]))
//   result = transpose(y) to the conv's output order  (omitted if identity)
//
// Row k*C_in + c of the reshaped kernel is w'[q_k..., c, :], and column
// k*C_in + c of col holds the input the window position q_k reads for
// channel c, so the dot sums exactly the conv's products (in another
// order: float results may differ in the last bits). The reshapes into
// the dot are bitcasts (the shapes are row-major: no data moves). A 1x1
// kernel with stride 1 and no padding is a bitcast and a dot.
//
// Where the output has fewer positions than the kernel (a weight gradient
// as JAX writes it: the activation as the window, the 3x3 kernel's
// gradient as the output), the same products are gathered by output
// position instead, fewer slices: for each output position o, the window
// it reads, slice(p) [N, kernel..., C_in] starting at o * stride, strided
// by the rhs dilation; col = their concatenation along N, rows ordered
// (o, n); y = dot(col [P*N, K*C_in], w' [K*C_in, C_out]) is [out..., N,
// C_out] before the transpose to the conv's order.
//
// An lhs (base) dilation is interior zeros of the padded input, so a
// transposed convolution's weight gradient (the activation dilated, the
// output gradient as the window) is a gemm too. Only convolutions with
// feature_group_count == batch_group_count == 1, no window reversal,
// f32/bf16/f16 operands of one type, the default layout everywhere; others
// stay as they are. It
// also leaves convolutions too small to pay for the extra kernels and
// those whose im2col buffer would be too large (see the .cc for the
// numbers). Its statistics (hlo-opt --stats) count the convolutions
// rewritten and, for each reason, those kept. The rocm pipeline runs it on
// every convolution (no convolution library there). The cuda pipeline
// hands convolutions to cuDNN (convolution_layout.h), which reads the
// input in place where im2col writes a window-sized copy of it (the
// issue's conv_bn_relu: 0.27 ms im2col + gemm), large filter gradients
// included (backward-filter calls), except small filter gradients and
// those cuDNN has no backward-filter call for (CudaConvolutionToGemmOptions),
// which its forward convolution runs slowly.
#ifndef PASSES_CONVOLUTION_TO_GEMM_H_
#define PASSES_CONVOLUTION_TO_GEMM_H_

#include <cstdint>

#include "passes/pass.h"

namespace hloc {

struct ConvolutionToGemmOptions {
  // Convolutions of fewer floating-point operations (2 * multiply-adds)
  // stay direct kernels.
  int64_t min_flops;
  // Convolutions whose im2col matrix would be larger stay direct kernels.
  int64_t max_im2col_bytes;
  // Unless negative: only convolutions with at most this many output
  // positions, and fewer than their kernel positions, are rewritten (the
  // shape of a weight gradient); the others stay for a convolution library.
  // Negative unless given: {min_flops, max_im2col_bytes} rewrites every
  // size the two allow.
  int64_t max_output_positions = -1;
  // Unless negative: dense filter gradients cuDNN's backward-filter
  // convolution computes (IsDenseFilterGradient, convolution_layout.h)
  // whose im2col matrix would be larger stay convolutions for it.
  int64_t cudnn_filter_gradients_above_im2col_bytes = -1;
};

// The defaults the rocm pipeline and `--passes=convolution-to-gemm` use.
ConvolutionToGemmOptions DefaultConvolutionToGemmOptions();
// The cuda pipeline's: weight-gradient convolutions only, where cuDNN's
// forward convolution is slow (the .cc says why); cuDNN runs the rest.
ConvolutionToGemmOptions CudaConvolutionToGemmOptions();

class ConvolutionToGemm : public HloPass {
 public:
  ConvolutionToGemm() : options_(DefaultConvolutionToGemmOptions()) {}
  explicit ConvolutionToGemm(const ConvolutionToGemmOptions& options)
      : options_(options) {}
  absl::string_view name() const override { return "convolution-to-gemm"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  ConvolutionToGemmOptions options_;
};

}  // namespace hloc

#endif  // PASSES_CONVOLUTION_TO_GEMM_H_

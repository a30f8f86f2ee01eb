// convolution on the CPU, lowered onto the GEMM engine (gemm_emitter.h) as
// an implicit GEMM: no im2col buffer is ever built; the engine's A-packing
// callback computes the im2col element it asks for.
//
// Per group g (feature_group_count or batch_group_count groups; XLA allows
// at most one of them above 1):
//   C[g](M x N) = A[g](M x K) x B[g](K x N)
//   M = output batch x output spatial positions (row-major),
//   N = output features of the group,
//   K = kernel spatial positions x input features of the group (the
//       feature fastest: contiguous in NHWC-style inputs),
//   A(g, i, k) = input[batch(i, g), feature(g, k), position(i, k)], or 0
//     where the window position falls into padding or between the input
//     elements of an lhs (base) dilation,
//   B(g, k, j) = kernel[spatial(k) (reversed where the window says),
//     input feature(k), output feature g * N + j].
// Input positions: o * stride - padding_low + kernel_index * rhs dilation,
// in units of the lhs-dilated input. Any dimension numbers and layouts, all
// element types of dot (f16/bf16 in f32, integers in s32/s64). As for dot,
// the kernel computes C^T when the register tile wastes less that way (many
// positions, few output features).
#ifndef BACKENDS_CPU_CONV_EMITTER_H_
#define BACKENDS_CPU_CONV_EMITTER_H_

#include <string>

#include "absl/status/status.h"
#include "backends/cpu/kernel_util.h"
#include "hlo/instruction.h"

namespace hloc {

absl::Status EmitConvolutionKernel(const HloInstruction& hlo,
                                   const std::string& symbol,
                                   const OpEmitterContext& ctx);

}  // namespace hloc

#endif  // BACKENDS_CPU_CONV_EMITTER_H_

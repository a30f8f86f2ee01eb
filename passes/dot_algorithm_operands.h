// Dots whose algorithm reads f32 operands at a narrower precision, given
// those operands ("dot-algorithm-operands"; GPU pipelines).
//
// jax.lax.dot_general(..., precision=DotAlgorithmPreset.BF16_BF16_F32) on
// f32 arrays asks for each operand rounded to bf16 and an f32 sum: the
// speed of bf16 tensor cores without changing the arrays' type. JAX emits
// an f32 dot with algorithm=dot_bf16_bf16_f32 (F16_F16_F32 likewise), and
// XLA:GPU runs it as a bf16 gemm, while XLA:CPU computes it in f32. Left
// as it was, every backend here computed it in full f32: the slower, more
// precise product on a GPU, and a result unlike XLA:GPU's. This pass makes
// the rounding explicit on the GPU targets:
//     dot(x, y), algorithm=dot_bf16_bf16_f32       (x, y: f32)
//  => dot(convert(x) -> bf16, convert(y) -> bf16) -> f32
// which the gemm lowering runs as a bf16 cuBLASLt call (or the tiled
// kernel) with f32 accumulation, the converts fused into the kernels that
// make x and y. The algorithm attribute goes (it has said all it had to).
//
// Other presets need no rewrite: JAX converts the operands itself where
// the result is narrow too (F16_F16_F16, BF16_BF16_BF16); TF32_TF32_F32
// lets the cuda gemm use TF32 (AllowsTf32); the split-precision emulations
// of f32 (BF16_BF16_F32_X3/X6/X9, TF32_TF32_F32_X3) and F32_F32_F32 are
// computed in f32, at least as precise as what they emulate.
#ifndef PASSES_DOT_ALGORITHM_OPERANDS_H_
#define PASSES_DOT_ALGORITHM_OPERANDS_H_

#include "passes/pass.h"

namespace hloc {

class DotAlgorithmOperands : public HloPass {
 public:
  absl::string_view name() const override { return "dot-algorithm-operands"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_DOT_ALGORITHM_OPERANDS_H_

// TF32 dots with a K-major operand ("dot-tf32-operand-layout", cuda).
//
// On Hopper, TF32 tensor-core instructions read both tiles K-major
// (contracting dimension contiguous); only 16-bit types may be read
// transposed. A row-major f32 dot at XLA:GPU's default precision (TF32)
// whose operands both keep their contracting dimensions major -- a
// weight gradient, x^T @ dy, contracts the batch dimension of both --
// reaches cuBLAS with neither operand K-major, and its gemm then runs at
// about 60% of the speed of the same gemm with one K-major operand
// (4096^3 on an H200: 0.63 against 0.36-0.40 ms;
// tools/gpu_bench/probes/gemm_layout_probe.py measures every layout).
// This pass transposes the smaller operand to [batch, free, contracting]
// where the gemm is large enough for the saving to outweigh the copy: one
// memory-bound transpose (or a fusion that writes its producer's result
// transposed) instead of a third of the gemm.
//
// Runs after dot-operand-order (dots already in gemm order; others are
// left alone) and before fusion; operands and results must have the
// default layout. bf16/f16, f32 at HIGH/HIGHEST precision and other types
// are left alone.
#ifndef PASSES_DOT_TF32_OPERAND_LAYOUT_H_
#define PASSES_DOT_TF32_OPERAND_LAYOUT_H_

#include "passes/pass.h"

namespace hloc {

class DotTf32OperandLayout : public HloPass {
 public:
  absl::string_view name() const override {
    return "dot-tf32-operand-layout";
  }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_DOT_TF32_OPERAND_LAYOUT_H_

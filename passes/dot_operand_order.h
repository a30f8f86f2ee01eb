// Dot operands reordered for a library gemm ("dot-operand-order").
//
// cuBLAS (and any BLAS) multiplies strided batches of matrices: in each
// operand the batch dimensions must come first (outermost), and the
// contracting dimensions and the free ones must each be one contiguous
// run. JAX's einsums often break this -- attention's
// 'bqhd,bkhd->bhqk' has the batch dimension h between q and d -- and
// such a dot cannot be a gemm call, so a GPU backend would compute it
// with a slow loop kernel. This pass transposes each offending operand to
// [batch..., free..., contracting...] or [batch..., contracting...,
// free...] (whichever keeps its minor dimension minor) and renumbers the
// dot: one transpose kernel moves the operand once, and the dot runs at
// the library's speed. This is what
// XLA's DotDecomposer does for its gemm rewriter.
//
// The result is unchanged (the dot's output is always batch, lhs free,
// rhs free). Operands and results must have the default layout, as
// every module has before layout-changing passes. The GPU pipelines run
// it before fusion; the CPU's dot emitter reads any dimension order.
#ifndef PASSES_DOT_OPERAND_ORDER_H_
#define PASSES_DOT_OPERAND_ORDER_H_

#include "passes/pass.h"

namespace hloc {

class DotOperandOrder : public HloPass {
 public:
  absl::string_view name() const override { return "dot-operand-order"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_DOT_OPERAND_ORDER_H_

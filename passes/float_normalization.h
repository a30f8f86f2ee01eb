// Low-precision float arithmetic computed in f32 ("float-normalization").
//
// With excess precision allowed (XLA's default xla_allow_excess_precision),
// a bf16 elementwise operation may be computed in f32 and rounded
// once where its value leaves the computation, instead of after every
// operation. This pass rewrites each such operation to
//     convert(op(convert(a) -> f32, convert(b) -> f32) -> f32) -> bf16
// and simplify-fp-conversions, which runs after it, removes every
// narrow-then-widen pair between two rewritten operations (on the GPUs; on
// the cpu, as XLA:CPU, only where the program widens the result). A fused chain
// like sigmoid(relu((x + 1) * 2) - 0.5) in bf16 then widens x once and
// rounds once, where it used to round after each of its eight operations.
//
// Why: neither target computes bf16 arithmetic natively through our
// emitters (each op widens, computes in f32 and rounds), and a rounding is
// several instructions on an AVX2 CPU and a conversion-unit instruction on
// the GPU. On the H100 the per-op roundings made a bf16 elementwise chain
// compute-bound at half the copy bandwidth. XLA:CPU widens the same way
// (FloatNormalization with no bf16 arithmetic) but keeps each rounding
// that another widened operation reads (simplify-fp-conversions' cpu
// scope); XLA:GPU keeps only add, subtract and multiply in bf16 on Hopper.
//
// Left alone: reducer and comparator computations (the reduction and sort
// emitters recognise their reducers by shape and opcode, and the
// accumulator's type is the reduction's business), converts, compares
// (they read rounded values: see the .cc), operations whose operands
// have other types, and f16 (XLA computes f16
// arithmetic in f16, natively on GPUs; see the .cc). The reference
// evaluator never runs this pass; pipelines run it only when excess
// precision is allowed.
#ifndef PASSES_FLOAT_NORMALIZATION_H_
#define PASSES_FLOAT_NORMALIZATION_H_

#include "passes/pass.h"

namespace hloc {

class FloatNormalization : public HloPass {
 public:
  absl::string_view name() const override { return "float-normalization"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_FLOAT_NORMALIZATION_H_

// 8-bit float arithmetic computed in f32 ("float8-normalization").
//
// The code generators keep 8-bit float values (f8e4m3fn, f8e5m2 and the
// other formats of hlo/float8.h) as their bits: they move, select and
// convert them, nothing more. This pass rewrites every operation that
// computes on them, in every computation (reducers, comparators and
// scatter combiners included), to
//     convert(op(convert(a) -> f32, ...) -> f32) -> f8
// so each operation rounds its result to the 8-bit type as the reference
// evaluator does (per operation, in f32: XLA's semantics for narrow
// floats), and a reduction rounds its accumulator after every step.
// Dots and convolutions read their 8-bit operands widened (every 8-bit
// value is exact in f32, so an fp8 matmul with an f32 result is exact
// products summed in f32). simplify-fp-conversions never removes a
// rounding to an 8-bit type, so these roundings stay even with excess
// precision allowed. Unlike float-normalization, this pass is not an
// optimisation: every pipeline runs it, always.
#ifndef PASSES_FLOAT8_NORMALIZATION_H_
#define PASSES_FLOAT8_NORMALIZATION_H_

#include "passes/pass.h"

namespace hloc {

class Float8Normalization : public HloPass {
 public:
  absl::string_view name() const override { return "float8-normalization"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_FLOAT8_NORMALIZATION_H_

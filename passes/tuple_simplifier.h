// Tuple simplification ("tuple-simplifier").
//
// Two rewrites, applied in one post-order walk per computation (operands
// first, so nested tuples and chains of get-tuple-element unwind in one
// pass):
//   get-tuple-element(tuple(a0, ..., an), i)          -> ai
//   tuple(gte(x, 0), gte(x, 1), ..., gte(x, n-1))     -> x
// The second needs x to have exactly n elements and the tuple's shape
// (layouts included), so nothing observable changes.
#ifndef PASSES_TUPLE_SIMPLIFIER_H_
#define PASSES_TUPLE_SIMPLIFIER_H_

#include "passes/pass.h"

namespace hloc {

class TupleSimplifier : public HloPass {
 public:
  absl::string_view name() const override { return "tuple-simplifier"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_TUPLE_SIMPLIFIER_H_

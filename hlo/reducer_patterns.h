// Reducer computations recognised by what they compute, for the passes and
// the evaluator that may fold a reduction in another order than written.
#ifndef HLO_REDUCER_PATTERNS_H_
#define HLO_REDUCER_PATTERNS_H_

#include "hlo/computation.h"

namespace hloc {

// Whether `reducer` is log(exp(a) + exp(b)) of its two scalar float
// parameters as JAX writes it for lax.cumlogsumexp:
//
//   select(d != d, a + b, max(a, b) + log1p(exp(-|d|))),  d = a - b
//
// (the select, which gives NaN or the sum of infinities of one sign where
// d is NaN, may be missing; every commutative op may have its operands in
// either order, and d may be b - a). The operation is commutative and,
// in real arithmetic, associative, like a float sum: folded in any order it
// differs only in rounding.
bool IsLogAddExpReducer(const HloComputation& reducer);

}  // namespace hloc

#endif  // HLO_REDUCER_PATTERNS_H_

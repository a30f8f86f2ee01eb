// The elementwise reductions of all-reduce and reduce-scatter on host
// memory, for every runtime that reduces on the host (the CPU's host
// collectives; any backend that stages a collective through host memory).
//
// They are the reference evaluator's own typed kernels
// (hlo/evaluator/kernels.h: add, multiply, minimum, maximum), so a
// collective reduced here has exactly the evaluator's bits: f16/bf16 round
// once per step, integers wrap, min/max propagate NaN, pred sums are or and
// products and. Contributions are folded in rank order, ((x0 op x1) op x2)
// ..., as the evaluator folds its to_apply, so every device of a group gets
// identical results. Complex sums and products are complex arithmetic; min
// and max of complex values are not defined (an error).
#ifndef RUNTIME_COLLECTIVE_REDUCTION_H_
#define RUNTIME_COLLECTIVE_REDUCTION_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/collectives.h"
#include "hlo/primitive_type.h"

namespace hloc {

// OK when `reduction` is defined on `type`; InvalidArgument naming both
// otherwise (say, max of c64, or any reduction of a token).
absl::Status CheckCollectiveReduction(CollectiveReduction reduction,
                                      PrimitiveType type);

// out[i] = inputs[0][i] op inputs[1][i] op ... (left to right) for i in
// [0, count). `out` may be one of the inputs only if it is inputs[0].
absl::Status ReduceInRankOrder(CollectiveReduction reduction,
                               PrimitiveType type,
                               absl::Span<const void* const> inputs, void* out,
                               int64_t count);

}  // namespace hloc

#endif  // RUNTIME_COLLECTIVE_REDUCTION_H_

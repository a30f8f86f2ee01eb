// A reduce computed as two reduces with its own reducer and inits: what
// tree-reduction (a reduced extent split into partial results) and
// reduction-splitter (one run of reduced dimensions at a time) both build.
#ifndef PASSES_REDUCE_IN_TWO_H_
#define PASSES_REDUCE_IN_TWO_H_

#include <cstdint>
#include <vector>

#include "hlo/computation.h"
#include "hlo/instruction.h"

namespace hloc {

// Adds to `computation` a reduce of `inputs` (arrays of one shape, one per
// input of `reduce`, which they stand for) with reduce's inits over
// `first_dims`, and a reduce of its partial results (the other dimensions,
// in order; a tuple of them for a variadic reduce) over `second_dims`,
// numbered in the partial result, into reduce's own shape. Returns the
// second reduce; `reduce` itself is left for the caller to replace.
HloInstruction* ReduceInTwo(HloComputation* computation,
                            const HloInstruction& reduce,
                            const std::vector<HloInstruction*>& inputs,
                            const std::vector<int64_t>& first_dims,
                            const std::vector<int64_t>& second_dims);

}  // namespace hloc

#endif  // PASSES_REDUCE_IN_TWO_H_

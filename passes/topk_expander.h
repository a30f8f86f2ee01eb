// topk as a sort and a slice ("topk-expander"), for targets with sort code
// but no topk kernel (AArch64 ahead of time: the host CPU runs topk as a
// library call, runtime/cpu_topk.h), as XLA's TopkDecomposer does.
//
// topk(x), k, largest orders each row (the last dimension) by the total
// order of its values (-NaN < -inf < ... < -0 < +0 < ... < inf < NaN),
// largest or smallest first, equal values by index, and keeps the first k
// with their s32 indices. That is a stable sort of (x, iota) along the row
// by a comparator of the values alone, sliced to k: stability puts equal
// values in index order, and the total-order compare places NaNs and
// signed zeros where topk does.
//
// The helpers below are that sort; topk-splitter merges its partial
// results with them too.
#ifndef PASSES_TOPK_EXPANDER_H_
#define PASSES_TOPK_EXPANDER_H_

#include "hlo/computation.h"
#include "passes/pass.h"

namespace hloc {

class TopKExpander : public HloPass {
 public:
  absl::string_view name() const override { return "topk-expander"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// Whether topk's order on `type` can be written as a sort comparator
// (pred, the integers and the floats the backends compute with).
bool TopKOrderSupported(PrimitiveType type);

// The values and s32 indices of a topk (or of part of one).
struct TopKValues {
  HloInstruction* values = nullptr;
  HloInstruction* indices = nullptr;
};

// Sorts `rows.values` (shape [..., n]) and `rows.indices` (s32, same shape)
// together along the last dimension in topk order -- stable, so equal
// values keep the order of their positions -- and slices the first k of
// each row. The nodes are added to `computation`, the comparator to its
// module.
TopKValues SortedTopK(HloComputation* computation, TopKValues rows, int64_t k,
                      bool largest);

}  // namespace hloc

#endif  // PASSES_TOPK_EXPANDER_H_

// Reductions over dimensions that are not one contiguous run, split into
// reductions that are ("reduction-splitter", XLA's ReductionSplitter).
//
// The GPU reduction kernels take reduced dimensions that form one run of
// the operand's physical dimensions: the minor ones (row kernels) or a run
// with kept dimensions on either side (column kernels). Anything else --
// a sum of [128, 33, 64] over dimensions 0 and 2, NCHW batch statistics
// over N, H and W -- fell to the loop kernel, one thread per output
// summing its thousands of elements alone (33 threads for that sum). This
// pass reduces the largest run first and the rest of the dimensions after:
//     reduce(x[A, B, C], {0, 2})  =>  reduce(reduce(x, {2}), {0})
// (C, the larger run, first), repeating until one run is left. Each
// reduce then has its own kernel, and tree-reduction may split them
// further. Sums are reassociated (XLA's reduce allows any order), so float
// results may differ in the last bits; variadic reduces (argmax) split
// the same way. Dimensions of size 1 separate no runs. Reductions of
// fewer than 1024 elements per output stay whole (the loop kernel's
// thread per output is quick there). Only operands in
// the default (descending) layout, which is what the pipelines' inputs
// have; the GPU pipelines run it before tree-reduction and fusion.
#ifndef PASSES_REDUCTION_SPLITTER_H_
#define PASSES_REDUCTION_SPLITTER_H_

#include "passes/pass.h"

namespace hloc {

class ReductionSplitter : public HloPass {
 public:
  absl::string_view name() const override { return "reduction-splitter"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_REDUCTION_SPLITTER_H_

// Reductions that would leave a GPU idle, split in two ("tree-reduction").
//
// A GPU reduction kernel gives each output element (or each tile of 32 to
// 128 columns) to one block, because blocks cannot combine partial results
// without a second pass. When the outputs are few and the reduced extent
// long -- a sum over axis 0 of 8192x8192 (64 column tiles), 64 rows of 2^20
// elements, a whole array to a scalar -- a fraction of the SMs pull all
// the bandwidth. This pass makes the second pass explicit, as XLA's
// TreeReductionRewriter does: the reduced extent is reshaped into
// (g, n/g), the first reduce produces g partial results per output in
// parallel blocks, and a second, small reduce combines them:
//     reduce(x[R, C], dims={0})  =>  reduce(reduce(x'[g, R/g, C], {1}), {0})
//     reduce(x[R, L], dims={1})  =>  reduce(reduce(x'[R, g, L/g], {2}), {1})
// Sums are reassociated (the init must be the reducer's identity, as XLA
// requires of every reduce), so float results may differ in the last bits.
//
// Only reduces of 4 Mi elements or more (or fewer, when a block of the
// unsplit kernel would read 256 Ki of them on its own: a sum of a million
// values to a scalar), in the default layout, whose reduced
// dimensions are one run followed by kept ones (a column reduction, kept
// dimensions before the run too: a batch of them) or all minor (a row
// reduction of rows of 64 Ki elements or more: shorter rows are left to
// the row fusions, which read them once in one kernel), of integers, pred,
// or floats of 32 bits or more (a bf16 partial sum would round once more
// than the kernel's f32 accumulator; a maximum or minimum of any type is
// exact); variadic reduces (an argmax's
// values and indices) split alike. An extent that g does not divide is
// padded with the init (each input with its own) to a multiple of g. The
// GPU pipelines run it before fusion; the CPU, which parallelises a
// reduction over its output rows differently, does not.
#ifndef PASSES_TREE_REDUCTION_H_
#define PASSES_TREE_REDUCTION_H_

#include "passes/pass.h"

namespace hloc {

class TreeReduction : public HloPass {
 public:
  absl::string_view name() const override { return "tree-reduction"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// The number of partial results per output the pass chooses for a
// reduction of `reduced` elements into `outputs` outputs whose kernel would
// launch `blocks` blocks; 1 when it does not split. Exposed for tests.
int64_t TreeReductionSplit(int64_t blocks, int64_t reduced);

}  // namespace hloc

#endif  // PASSES_TREE_REDUCTION_H_

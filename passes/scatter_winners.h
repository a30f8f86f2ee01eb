// Assignment scatters whose indices may repeat, as a parallel scatter of
// the winners ("scatter-winners"; GPU pipelines).
//
// A scatter that assigns (its combiner returns the update) must give the
// serial result: where several scatter positions hit one element, the last
// in row-major order of the scatter positions wins, as the evaluator and
// XLA:CPU give. The GPU scatter kernel keeps that order by walking the
// scatter positions serially, one thread per window position
// (backends/gpu/scatter_emitter.cc), so `inverse[perm] = iota` (argsort's
// inverse in jnp.unique and scipy.stats.rankdata) walked 40000 positions
// on one thread: ~60 ns each, 2.4 ms per scatter on an H100 (session 39).
//
// Where two positions can meet only by having the same start (every
// indexed operand dimension has a window of 1), the last position per
// start is found in parallel first, and only it writes:
//   winner = scatter(broadcast(-1), indices, position), combiner max
//   won    = gather(winner, indices) == position
//   result = scatter(operand, select(won, indices, -1), updates),
//            unique_indices
// `winner` has the indexed and batching dimensions of the operand only
// (a window repeats along the others), and `position` is the row-major
// number of each scatter position. A position whose window is dropped
// (out of bounds) never lands in `winner`, so it never wins, and -1 is out
// of bounds for every dimension, so a losing position's window is dropped
// in the last scatter; unsigned indices are first converted to s64, where
// -1 is a value they cannot hold. The result equals the serial one bit for
// bit. The max is an integer atomic and the last scatter a plain parallel
// store.
//
// Scatters with fewer than kMinPositions scatter positions stay as they
// are: their serial walk costs less than the two extra kernels.
#ifndef PASSES_SCATTER_WINNERS_H_
#define PASSES_SCATTER_WINNERS_H_

#include <cstdint>

#include "passes/pass.h"

namespace hloc {

class ScatterWinners : public HloPass {
 public:
  // ~60 ns a serial position on the H100 against ~2-3 us a small kernel.
  static constexpr int64_t kMinPositions = 64;

  absl::string_view name() const override { return "scatter-winners"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_SCATTER_WINNERS_H_

// Dead code elimination ("dce").
//
// Algorithm: first drop the computations no instruction reachable from the
// entry calls. Then, in every computation, walk the instructions users-first
// (reverse post order) and remove each one that is dead: it has no users, is
// not the root, is not a parameter and has no side effect (collectives,
// infeed/outfeed, send/recv, rng, side-effecting custom calls, or a call of
// a computation containing one). Users-first order means an instruction's
// operands are visited after it, so a chain of dead instructions goes in one
// walk. Control edges through a removed instruction are kept: its control
// predecessors become control predecessors of its control successors.
// Finally, computations only the removed instructions called are dropped.
#ifndef PASSES_DCE_H_
#define PASSES_DCE_H_

#include "passes/pass.h"

namespace hloc {

class DeadCodeElimination : public HloPass {
 public:
  absl::string_view name() const override { return "dce"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// Removes the dead instructions of one computation; returns how many.
absl::StatusOr<int64_t> RemoveDeadInstructions(HloComputation* computation);

}  // namespace hloc

#endif  // PASSES_DCE_H_

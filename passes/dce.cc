#include "passes/dce.h"

#include <vector>

#include "hlo/computation.h"

namespace hloc {
namespace {

bool IsDead(const HloInstruction* instruction) {
  return instruction->user_count() == 0 && !instruction->IsRoot() &&
         instruction->opcode() != HloOpcode::kParameter &&
         !instruction->HasSideEffect();
}

int64_t RemoveUnusedComputations(HloModule* module) {
  int64_t before = module->computation_count();
  module->RemoveUnusedComputations();
  return before - module->computation_count();
}

}  // namespace

absl::StatusOr<int64_t> RemoveDeadInstructions(HloComputation* computation) {
  std::vector<HloInstruction*> order = computation->MakeInstructionPostOrder();
  int64_t removed = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* instruction = *it;
    if (!IsDead(instruction)) continue;
    for (HloInstruction* pred : instruction->control_predecessors()) {
      for (HloInstruction* succ : instruction->control_successors()) {
        absl::Status status = pred->AddControlDependencyTo(succ);
        if (!status.ok()) return status;
      }
    }
    absl::Status status = computation->RemoveInstruction(instruction);
    if (!status.ok()) return status;
    ++removed;
  }
  return removed;
}

absl::StatusOr<bool> DeadCodeElimination::Run(HloModule* module) {
  int64_t computations_removed = RemoveUnusedComputations(module);
  int64_t instructions_removed = 0;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    absl::StatusOr<int64_t> removed = RemoveDeadInstructions(computation);
    if (!removed.ok()) return removed.status();
    instructions_removed += *removed;
  }
  computations_removed += RemoveUnusedComputations(module);
  Count("instructions-removed", instructions_removed);
  Count("computations-removed", computations_removed);
  return instructions_removed + computations_removed > 0;
}

}  // namespace hloc

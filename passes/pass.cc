#include "passes/pass.h"

#include "hlo/computation.h"

namespace hloc {

absl::StatusOr<bool> HloPass::RewriteEach(HloModule* module, HloOpcode opcode,
                                          const std::string& counter,
                                          const InstructionRewrite& rewrite) {
  return RewriteEach(
      module,
      [](const HloComputation* computation) {
        return !computation->IsFusionComputation();
      },
      [opcode](const HloInstruction* instr) {
        return instr->opcode() == opcode;
      },
      counter, rewrite);
}

absl::StatusOr<bool> HloPass::RewriteEach(HloModule* module,
                                          const ComputationSelect& computations,
                                          const InstructionSelect& instructions,
                                          const std::string& counter,
                                          const InstructionRewrite& rewrite) {
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    if (!computations(computation)) continue;
    bool computation_changed = false;
    for (HloInstruction* instr : computation->MakeInstructionPostOrder()) {
      if (!instructions(instr)) continue;
      absl::StatusOr<bool> rewritten = rewrite(computation, instr);
      if (!rewritten.ok()) return rewritten.status();
      if (*rewritten) {
        Count(counter);
        computation_changed = true;
      }
    }
    if (computation_changed) {
      computation->SortInstructionsInPostOrder();
      changed = true;
    }
  }
  return changed;
}

}  // namespace hloc

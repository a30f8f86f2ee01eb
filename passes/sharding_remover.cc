#include "passes/sharding_remover.h"

#include "hlo/computation.h"

namespace hloc {

bool IsShardingCustomCallTarget(absl::string_view target) {
  return target == "Sharding" || target == "SPMDFullToShardShape" ||
         target == "SPMDShardToFullShape";
}

absl::StatusOr<bool> ShardingRemover::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kCustomCall ||
          !IsShardingCustomCallTarget(
              instruction->attrs().custom_call_target) ||
          instruction->operand_count() != 1 ||
          instruction->operand(0)->shape() != instruction->shape()) {
        continue;
      }
      HloInstruction* operand = instruction->operand(0);
      absl::Status status = instruction->ReplaceAllUsesWith(operand);
      if (!status.ok()) return status;
      status = computation->RemoveInstruction(instruction);
      if (!status.ok()) return status;
      changed = true;
    }
  }
  return changed;
}

}  // namespace hloc

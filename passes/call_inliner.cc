#include "passes/call_inliner.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/computation.h"

namespace hloc {

absl::StatusOr<HloInstruction*> InlineCall(HloInstruction* call) {
  HloComputation* caller = call->parent();
  HloComputation* callee = call->to_apply();
  if (call->opcode() != HloOpcode::kCall || callee == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(call->name(), " is not a call"));
  }
  if (callee->num_parameters() != call->operand_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat(call->name(), " passes ", call->operand_count(),
                     " operands to ", callee->name(), ", which has ",
                     callee->num_parameters(), " parameters"));
  }
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> clones;
  for (HloInstruction* instruction : callee->MakeInstructionPostOrder()) {
    if (instruction->opcode() == HloOpcode::kParameter) {
      clones[instruction] = call->operand(instruction->parameter_number());
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : instruction->operands()) {
      operands.push_back(clones.at(operand));
    }
    clones[instruction] = caller->AddInstruction(
        instruction->CloneWithNewOperands(instruction->shape(), operands));
  }
  for (HloInstruction* instruction : callee->instructions()) {
    if (instruction->opcode() == HloOpcode::kParameter) continue;
    for (HloInstruction* successor : instruction->control_successors()) {
      absl::Status status =
          clones.at(instruction)->AddControlDependencyTo(clones.at(successor));
      if (!status.ok()) return status;
    }
  }
  HloInstruction* result = clones.at(callee->root_instruction());
  absl::Status status = call->ReplaceAllUsesWith(result);
  if (!status.ok()) return status;
  status = caller->RemoveInstruction(call);
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<bool> CallInliner::Run(HloModule* module) {
  int64_t inlined = 0;
  absl::flat_hash_set<HloComputation*> inlined_callees;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    std::vector<HloInstruction*> calls;
    for (HloInstruction* instruction : computation->instructions()) {
      if (instruction->opcode() != HloOpcode::kCall) continue;
      if (!instruction->control_predecessors().empty() ||
          !instruction->control_successors().empty()) {
        Count("skipped-control-dependencies");
        continue;
      }
      calls.push_back(instruction);
    }
    for (HloInstruction* call : calls) {
      inlined_callees.insert(call->to_apply());
      absl::StatusOr<HloInstruction*> result = InlineCall(call);
      if (!result.ok()) return result.status();
      ++inlined;
    }
    if (!calls.empty()) computation->SortInstructionsInPostOrder();
  }
  // Drop the callees nothing calls any more (other computations are DCE's
  // business).
  absl::flat_hash_set<const HloComputation*> still_called;
  for (HloComputation* computation : module->computations()) {
    for (HloInstruction* instruction : computation->instructions()) {
      for (HloComputation* callee : instruction->called_computations()) {
        still_called.insert(callee);
      }
    }
  }
  int64_t removed = 0;
  for (HloComputation* computation : module->computations()) {
    if (inlined_callees.contains(computation) &&
        !still_called.contains(computation) &&
        computation != module->entry_computation()) {
      absl::Status status = module->RemoveComputation(computation);
      if (!status.ok()) return status;
      ++removed;
    }
  }
  Count("calls-inlined", inlined);
  Count("computations-removed", removed);
  return inlined > 0;
}

}  // namespace hloc

#include "passes/sharding_remover.h"

#include <memory>
#include <string>
#include <vector>

#include "hlo/computation.h"

namespace hloc {
namespace {

// What `call` is the identity of on one device: its operand, a new tuple
// of its operands (`*made_tuple` set), or null where the shapes say it
// partitions.
HloInstruction* OneDeviceValue(HloComputation* computation,
                               HloInstruction* call, bool* made_tuple) {
  const std::vector<HloInstruction*>& operands = call->operands();
  if (operands.size() == 1 && operands[0]->shape() == call->shape()) {
    return operands[0];
  }
  const Shape& shape = call->shape();
  if (operands.empty() || !shape.IsTuple() ||
      shape.tuple_shapes().size() != operands.size()) {
    return nullptr;
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i]->shape() != shape.tuple_shapes()[i]) return nullptr;
  }
  *made_tuple = true;
  return computation->AddInstruction(HloInstruction::CreateTuple(operands));
}

}  // namespace

absl::StatusOr<bool> ShardingRemover::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    bool made_tuple = false;
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kCustomCall) continue;
      const std::string& target = instruction->attrs().custom_call_target;
      if (IsDceSinkCustomCallTarget(target) && instruction->users().empty() &&
          instruction != computation->root_instruction()) {
        absl::Status status = computation->RemoveInstruction(instruction);
        if (!status.ok()) return status;
        changed = true;
        continue;
      }
      if (IsAllocateBufferCustomCallTarget(target) &&
          instruction->operand_count() == 0 && instruction->shape().IsArray()) {
        // Zeros: the broadcast of a scalar fuses into whatever overwrites
        // the buffer.
        const Shape& shape = instruction->shape();
        HloInstruction* zero =
            computation->AddInstruction(HloInstruction::CreateConstant(
                Literal(Shape::Scalar(shape.element_type()))));
        HloInstruction* zeros = computation->AddInstruction(
            HloInstruction::CreateBroadcast(shape, zero, {}));
        absl::Status status = instruction->ReplaceAllUsesWith(zeros);
        if (!status.ok()) return status;
        status = computation->RemoveInstruction(instruction);
        if (!status.ok()) return status;
        made_tuple = true;  // new instructions, stored last: reorder below
        changed = true;
        continue;
      }
      if (!IsShardingCustomCallTarget(target)) continue;
      HloInstruction* value =
          OneDeviceValue(computation, instruction, &made_tuple);
      if (value == nullptr) continue;
      absl::Status status = instruction->ReplaceAllUsesWith(value);
      if (!status.ok()) return status;
      status = computation->RemoveInstruction(instruction);
      if (!status.ok()) return status;
      changed = true;
    }
    // A new tuple or zeros are stored last; the module's order must stay
    // def-before-use.
    if (made_tuple) computation->SortInstructionsInPostOrder();
  }
  return changed;
}

}  // namespace hloc

#include "passes/tuple_simplifier.h"

#include "hlo/computation.h"

namespace hloc {
namespace {

// gte(tuple(...), i) -> element i.
HloInstruction* ElementOfTuple(HloInstruction* gte) {
  HloInstruction* tuple = gte->operand(0);
  if (tuple->opcode() != HloOpcode::kTuple) return nullptr;
  return tuple->operand(gte->tuple_index());
}

// tuple(gte(x, 0), ..., gte(x, n-1)) -> x.
HloInstruction* TupleOfAllElements(HloInstruction* tuple) {
  if (tuple->operand_count() == 0) return nullptr;
  HloInstruction* source = nullptr;
  for (int64_t i = 0; i < tuple->operand_count(); ++i) {
    HloInstruction* element = tuple->operand(i);
    if (element->opcode() != HloOpcode::kGetTupleElement ||
        element->tuple_index() != i) {
      return nullptr;
    }
    if (source == nullptr) source = element->operand(0);
    if (element->operand(0) != source) return nullptr;
  }
  if (source->shape().tuple_shapes_size() != tuple->operand_count() ||
      source->shape() != tuple->shape()) {
    return nullptr;
  }
  return source;
}

}  // namespace

absl::StatusOr<bool> TupleSimplifier::Run(HloModule* module) {
  int64_t gte_removed = 0;
  int64_t tuples_removed = 0;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      HloInstruction* replacement = nullptr;
      if (instruction->opcode() == HloOpcode::kGetTupleElement) {
        replacement = ElementOfTuple(instruction);
        if (replacement != nullptr) ++gte_removed;
      } else if (instruction->opcode() == HloOpcode::kTuple) {
        replacement = TupleOfAllElements(instruction);
        if (replacement != nullptr) ++tuples_removed;
      }
      if (replacement == nullptr) continue;
      absl::Status status = instruction->ReplaceAllUsesWith(replacement);
      if (!status.ok()) return status;
      // The tuple may still have other users; DCE removes it once dead.
      if (instruction->user_count() == 0 && !instruction->IsRoot()) {
        status = computation->RemoveInstruction(instruction);
        if (!status.ok()) return status;
      }
    }
  }
  Count("get-tuple-element-of-tuple", gte_removed);
  Count("tuple-of-get-tuple-elements", tuples_removed);
  return gte_removed + tuples_removed > 0;
}

}  // namespace hloc

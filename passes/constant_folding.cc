#include "passes/constant_folding.h"

#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"

namespace hloc {
namespace {

bool IsFoldableOpcode(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kIota:
    case HloOpcode::kAfterAll:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
    case HloOpcode::kCustomCall:
    case HloOpcode::kFusion:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
      return false;
    default:
      return true;
  }
}

bool IsSupportedArray(const Shape& shape) {
  return shape.IsArray() && IsSupportedElementType(shape.element_type());
}

// Why an instruction is left alone, as the statistic that counts it; null
// when it can be folded.
const char* SkipReason(const HloInstruction* instruction,
                       int64_t max_elements) {
  if (!IsFoldableOpcode(instruction->opcode()) ||
      instruction->operand_count() == 0 || instruction->HasSideEffect() ||
      !instruction->control_predecessors().empty() ||
      !instruction->control_successors().empty()) {
    return nullptr;  // Not a candidate at all; not worth a counter.
  }
  for (const HloInstruction* operand : instruction->operands()) {
    if (operand->opcode() != HloOpcode::kConstant) return nullptr;
  }
  if (!IsSupportedArray(instruction->shape())) return "skipped-type";
  for (const HloInstruction* operand : instruction->operands()) {
    if (!IsSupportedArray(operand->shape())) return "skipped-type";
    if (operand->shape().ElementCount() > max_elements) return "skipped-size";
  }
  if (instruction->shape().ElementCount() > max_elements) {
    return "skipped-size";
  }
  if (instruction->opcode() == HloOpcode::kBroadcast &&
      instruction->shape().ElementCount() >
          instruction->operand(0)->shape().ElementCount()) {
    return "skipped-broadcast";
  }
  return "";
}

// Copies `computation` and everything it calls into `module`, callees first;
// `copies` maps originals to their copies.
HloComputation* CopyWithCallees(
    const HloComputation* computation, HloModule* module,
    absl::flat_hash_map<const HloComputation*, HloComputation*>* copies) {
  auto it = copies->find(computation);
  if (it != copies->end()) return it->second;
  for (const HloInstruction* instruction : computation->instructions()) {
    for (const HloComputation* callee : instruction->called_computations()) {
      CopyWithCallees(callee, module, copies);
    }
  }
  HloComputation* copy =
      module->AddEmbeddedComputation(computation->Clone("", copies));
  (*copies)[computation] = copy;
  return copy;
}

// Evaluates `instruction` on its constant operands by building a module
// that computes just it.
absl::StatusOr<Literal> Evaluate(const HloInstruction* instruction) {
  HloModule module("constant_folding");
  absl::flat_hash_map<const HloComputation*, HloComputation*> copies;
  std::vector<HloComputation*> callees;
  for (const HloComputation* callee : instruction->called_computations()) {
    callees.push_back(CopyWithCallees(callee, &module, &copies));
  }
  auto entry = std::make_unique<HloComputation>("entry");
  std::vector<HloInstruction*> operands;
  for (const HloInstruction* operand : instruction->operands()) {
    operands.push_back(entry->AddInstruction(
        HloInstruction::CreateConstant(operand->literal())));
  }
  auto clone =
      instruction->CloneWithNewOperands(instruction->shape(), operands);
  clone->set_called_computations(callees);
  entry->set_root_instruction(entry->AddInstruction(std::move(clone)));
  module.AddEntryComputation(std::move(entry));
  return EvaluateModule(module, {});
}

}  // namespace

absl::StatusOr<bool> ConstantFolding::Run(HloModule* module) {
  int64_t folded = 0;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    bool changed = false;
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      const char* skip = SkipReason(instruction, max_elements_);
      if (skip == nullptr) continue;
      if (*skip != '\0') {
        Count(skip);
        continue;
      }
      absl::StatusOr<Literal> value = Evaluate(instruction);
      if (!value.ok()) {
        Count("skipped-evaluator-error");
        continue;
      }
      // The evaluator's result carries no layout; keep the instruction's.
      *value->mutable_shape_do_not_use() = instruction->shape();
      HloInstruction* constant = computation->AddInstruction(
          HloInstruction::CreateConstant(std::move(*value)));
      *constant->mutable_metadata() = instruction->metadata();
      absl::Status status =
          computation->ReplaceInstruction(instruction, constant);
      if (!status.ok()) return status;
      changed = true;
      ++folded;
    }
    if (changed) computation->SortInstructionsInPostOrder();
  }
  Count("instructions-folded", folded);
  return folded > 0;
}

}  // namespace hloc

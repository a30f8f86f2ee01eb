#include "passes/fusion/kernel_count.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace hloc {
namespace {

bool IsBitcastReshape(const HloInstruction& instr) {
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  auto row_major = [](const Shape& s) {
    return !s.has_layout() || s.HasDescendingLayout();
  };
  return in.IsArray() && out.IsArray() && row_major(in) && row_major(out) &&
         in.element_type() == out.element_type();
}

void CountComputation(const HloComputation& comp,
                      absl::flat_hash_set<const HloComputation*>* seen,
                      KernelCount* count) {
  if (!seen->insert(&comp).second) return;
  for (const HloInstruction* instr : comp.MakeInstructionPostOrder()) {
    switch (instr->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kTuple:
      case HloOpcode::kGetTupleElement:
      case HloOpcode::kBitcast:
        continue;
      case HloOpcode::kReshape:
        if (IsBitcastReshape(*instr)) continue;
        break;
      case HloOpcode::kWhile:
      case HloOpcode::kConditional:
      case HloOpcode::kCall:
        for (const HloComputation* called : instr->called_computations()) {
          CountComputation(*called, seen, count);
        }
        continue;
      case HloOpcode::kFusion:
        ++count->fusions;
        count->kernels.push_back(absl::StrCat(
            instr->name(), " (", FusionKindString(instr->fusion_kind()), ")"));
        continue;
      default:
        break;
    }
    ++count->unfused;
    count->kernels.push_back(absl::StrCat(
        instr->name(), " (", HloOpcodeString(instr->opcode()), ")"));
  }
}

}  // namespace

KernelCount CountKernels(const HloModule& module) {
  KernelCount count;
  absl::flat_hash_set<const HloComputation*> seen;
  if (module.entry_computation() != nullptr) {
    CountComputation(*module.entry_computation(), &seen, &count);
  }
  return count;
}

}  // namespace hloc

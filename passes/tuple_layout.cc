#include "passes/tuple_layout.h"

#include <vector>

#include "hlo/computation.h"
#include "hlo/status_macros.h"

namespace hloc {

HloInstruction* RelayoutValue(HloComputation* computation,
                              HloInstruction* value, const Shape& target,
                              int64_t* copies) {
  if (value->shape() == target) return value;
  if (!target.IsTuple()) {
    ++*copies;
    return computation->AddInstruction(
        HloInstruction::CreateUnary(target, HloOpcode::kCopy, value));
  }
  std::vector<HloInstruction*> elements;
  for (int64_t i = 0; i < static_cast<int64_t>(target.tuple_shapes().size());
       ++i) {
    HloInstruction* element =
        computation->AddInstruction(HloInstruction::CreateGetTupleElement(
            value->shape().tuple_shapes(i), value, i));
    elements.push_back(
        RelayoutValue(computation, element, target.tuple_shapes(i), copies));
  }
  return computation->AddInstruction(HloInstruction::CreateTuple(elements));
}

absl::StatusOr<bool> TupleLayout::Run(HloModule* module) {
  int64_t copies = 0;
  HLOC_ASSIGN_OR_RETURN(
      bool changed,
      RewriteEach(module, HloOpcode::kTuple, "tuples-relaid-out",
                  [&copies](HloComputation* computation,
                            HloInstruction* tuple) -> absl::StatusOr<bool> {
                    bool rewired = false;
                    for (int64_t i = 0; i < tuple->operand_count(); ++i) {
                      HloInstruction* operand = tuple->operand(i);
                      const Shape& want = tuple->shape().tuple_shapes(i);
                      HloInstruction* fixed =
                          RelayoutValue(computation, operand, want, &copies);
                      if (fixed == operand) continue;
                      HLOC_RETURN_IF_ERROR(tuple->ReplaceOperandWith(i, fixed));
                      rewired = true;
                    }
                    return rewired;
                  }));
  if (copies > 0) Count("copies-inserted", copies);
  return changed;
}

}  // namespace hloc

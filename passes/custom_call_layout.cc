#include "passes/custom_call_layout.h"

#include <vector>

#include "hlo/computation.h"
#include "hlo/status_macros.h"

namespace hloc {

absl::StatusOr<bool> CustomCallLayout::Run(HloModule* module) {
  int64_t copies = 0;
  HLOC_ASSIGN_OR_RETURN(
      bool changed,
      RewriteEach(
          module, HloOpcode::kCustomCall, "custom-calls-relaid-out",
          [&copies](HloComputation* computation,
                    HloInstruction* call) -> absl::StatusOr<bool> {
            const std::optional<std::vector<Shape>>& constraints =
                call->attrs().operand_layout_constraints;
            if (!constraints.has_value()) return false;
            bool rewired = false;
            for (int64_t i = 0; i < call->operand_count() &&
                                i < static_cast<int64_t>(constraints->size());
                 ++i) {
              HloInstruction* operand = call->operand(i);
              const Shape& want = (*constraints)[i];
              // Tuples and layout-less constraints ask nothing of an array.
              if (!want.IsArray() || !want.has_layout() ||
                  !operand->shape().IsArray() ||
                  !operand->shape().Compatible(want) ||
                  operand->shape().MinorToMajor() == want.MinorToMajor()) {
                continue;
              }
              Shape target = operand->shape();
              target.mutable_layout()->minor_to_major = want.MinorToMajor();
              HloInstruction* copy =
                  computation->AddInstruction(HloInstruction::CreateUnary(
                      target, HloOpcode::kCopy, operand));
              ++copies;
              HLOC_RETURN_IF_ERROR(call->ReplaceOperandWith(i, copy));
              rewired = true;
            }
            return rewired;
          }));
  if (copies > 0) Count("copies-inserted", copies);
  return changed;
}

}  // namespace hloc

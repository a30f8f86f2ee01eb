#include "passes/fft_layout.h"

#include "hlo/computation.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

Shape RowMajor(Shape shape) {
  shape.mutable_layout()->minor_to_major = DefaultMinorToMajor(shape.rank());
  return shape;
}

}  // namespace

absl::StatusOr<bool> FftLayout::Run(HloModule* module) {
  int64_t copies = 0;
  HLOC_ASSIGN_OR_RETURN(
      bool changed,
      RewriteEach(
          module, HloOpcode::kFft, "ffts-relaid-out",
          [&copies](HloComputation* computation,
                    HloInstruction* fft) -> absl::StatusOr<bool> {
            bool changed = false;
            HloInstruction* operand = fft->operand(0);
            if (!operand->shape().HasDescendingLayout()) {
              HloInstruction* copy =
                  computation->AddInstruction(HloInstruction::CreateUnary(
                      RowMajor(operand->shape()), HloOpcode::kCopy, operand));
              ++copies;
              HLOC_RETURN_IF_ERROR(fft->ReplaceOperandWith(0, copy));
              changed = true;
            }
            if (!fft->shape().HasDescendingLayout()) {
              HloInstruction* row_major =
                  computation->AddInstruction(fft->CloneWithNewOperands(
                      RowMajor(fft->shape()), {fft->operand(0)}));
              HloInstruction* copy =
                  computation->AddInstruction(HloInstruction::CreateUnary(
                      fft->shape(), HloOpcode::kCopy, row_major));
              ++copies;
              HLOC_RETURN_IF_ERROR(computation->ReplaceInstruction(fft, copy));
              changed = true;
            }
            return changed;
          }));
  if (copies > 0) Count("copies-inserted", copies);
  return changed;
}

}  // namespace hloc

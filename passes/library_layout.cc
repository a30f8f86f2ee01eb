#include "passes/library_layout.h"

#include "hlo/computation.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

Shape RowMajor(Shape shape) {
  shape.mutable_layout()->minor_to_major = DefaultMinorToMajor(shape.rank());
  return shape;
}

}  // namespace

absl::StatusOr<bool> LibraryLayout::Run(HloModule* module) {
  int64_t copies = 0;
  HLOC_ASSIGN_OR_RETURN(
      bool changed,
      RewriteEach(
          module,
          [](const HloComputation* computation) {
            return !computation->IsFusionComputation();
          },
          [](const HloInstruction* instr) {
            return instr->opcode() == HloOpcode::kFft ||
                   instr->opcode() == HloOpcode::kTriangularSolve;
          },
          "instructions-relaid-out",
          [&copies](HloComputation* computation,
                    HloInstruction* instr) -> absl::StatusOr<bool> {
            bool changed = false;
            for (int64_t i = 0; i < instr->operand_count(); ++i) {
              HloInstruction* operand = instr->operand(i);
              if (operand->shape().HasDescendingLayout()) continue;
              HloInstruction* copy =
                  computation->AddInstruction(HloInstruction::CreateUnary(
                      RowMajor(operand->shape()), HloOpcode::kCopy, operand));
              ++copies;
              HLOC_RETURN_IF_ERROR(instr->ReplaceOperandWith(i, copy));
              changed = true;
            }
            if (!instr->shape().HasDescendingLayout()) {
              HloInstruction* row_major =
                  computation->AddInstruction(instr->CloneWithNewOperands(
                      RowMajor(instr->shape()), instr->operands()));
              HloInstruction* copy =
                  computation->AddInstruction(HloInstruction::CreateUnary(
                      instr->shape(), HloOpcode::kCopy, row_major));
              ++copies;
              HLOC_RETURN_IF_ERROR(
                  computation->ReplaceInstruction(instr, copy));
              changed = true;
            }
            return changed;
          }));
  if (copies > 0) Count("copies-inserted", copies);
  return changed;
}

}  // namespace hloc

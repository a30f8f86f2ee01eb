#include "passes/library_layout.h"

#include <cstdint>
#include <vector>

#include "hlo/computation.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

// The layout the library step reads and writes `instr`'s arrays in:
// row-major for an fft; for a triangular-solve each matrix column-major,
// as cuBLAS's trsm takes them.
std::vector<int64_t> WantedLayout(const HloInstruction& instr, int64_t rank) {
  return instr.opcode() == HloOpcode::kTriangularSolve
             ? ColumnMajorMatrixMinorToMajor(rank)
             : DefaultMinorToMajor(rank);
}

// Whether `shape`, an operand or the result of `instr`, is laid out as its
// library step takes it: the cuFFT step checks for the row-major layout
// itself, the trsm step (solver_check.h) for the bytes' order, which a
// single right-hand side has in either layout.
bool LaidOutForLibrary(const HloInstruction& instr, const Shape& shape) {
  const std::vector<int64_t> wanted = WantedLayout(instr, shape.rank());
  return instr.opcode() == HloOpcode::kFft ? shape.MinorToMajor() == wanted
                                           : StoresInOrder(shape, wanted);
}

Shape WithLayout(Shape shape, std::vector<int64_t> minor_to_major) {
  shape.mutable_layout()->minor_to_major = std::move(minor_to_major);
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
              if (LaidOutForLibrary(*instr, operand->shape())) continue;
              HloInstruction* copy =
                  computation->AddInstruction(HloInstruction::CreateUnary(
                      WithLayout(operand->shape(),
                                 WantedLayout(*instr, operand->shape().rank())),
                      HloOpcode::kCopy, operand));
              ++copies;
              HLOC_RETURN_IF_ERROR(instr->ReplaceOperandWith(i, copy));
              changed = true;
            }
            if (!LaidOutForLibrary(*instr, instr->shape())) {
              HloInstruction* relaid =
                  computation->AddInstruction(instr->CloneWithNewOperands(
                      WithLayout(instr->shape(),
                                 WantedLayout(*instr, instr->shape().rank())),
                      instr->operands()));
              HloInstruction* copy =
                  computation->AddInstruction(HloInstruction::CreateUnary(
                      instr->shape(), HloOpcode::kCopy, relaid));
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

#include "passes/library_layout.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "hlo/computation.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

// The layout the library step reads and writes `instr`'s arrays in:
// row-major for an fft; for a triangular-solve each matrix column-major,
// one after another (minor_to_major {r-2, r-1, r-3, ..., 0}), as cuBLAS's
// trsm takes them.
std::vector<int64_t> WantedLayout(const HloInstruction& instr, int64_t rank) {
  if (instr.opcode() != HloOpcode::kTriangularSolve || rank < 2) {
    return DefaultMinorToMajor(rank);
  }
  std::vector<int64_t> minor_to_major = {rank - 2, rank - 1};
  for (int64_t d = rank - 3; d >= 0; --d) minor_to_major.push_back(d);
  return minor_to_major;
}

// Whether `shape` stores its elements in the order `minor_to_major` does:
// the dimensions of more than one element come in the same order (a
// column of one is both row- and column-major).
bool StoredAs(const Shape& shape, const std::vector<int64_t>& minor_to_major) {
  std::vector<int64_t> have, want;
  for (int64_t d : shape.MinorToMajor()) {
    if (shape.dimensions(d) != 1) have.push_back(d);
  }
  for (int64_t d : minor_to_major) {
    if (shape.dimensions(d) != 1) want.push_back(d);
  }
  return have == want;
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
              std::vector<int64_t> wanted =
                  WantedLayout(*instr, operand->shape().rank());
              if (StoredAs(operand->shape(), wanted)) continue;
              HloInstruction* copy =
                  computation->AddInstruction(HloInstruction::CreateUnary(
                      WithLayout(operand->shape(), std::move(wanted)),
                      HloOpcode::kCopy, operand));
              ++copies;
              HLOC_RETURN_IF_ERROR(instr->ReplaceOperandWith(i, copy));
              changed = true;
            }
            std::vector<int64_t> wanted =
                WantedLayout(*instr, instr->shape().rank());
            if (!StoredAs(instr->shape(), wanted)) {
              HloInstruction* relaid =
                  computation->AddInstruction(instr->CloneWithNewOperands(
                      WithLayout(instr->shape(), std::move(wanted)),
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

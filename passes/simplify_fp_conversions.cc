#include "passes/simplify_fp_conversions.h"

#include <vector>

#include "hlo/computation.h"

namespace hloc {
namespace {

bool IsFloatConvert(const HloInstruction* instr) {
  return instr->opcode() == HloOpcode::kConvert &&
         IsFloatingPointType(instr->shape().element_type());
}

int MantissaBits(PrimitiveType type) {
  return FloatFormatOf(type).mantissa_bits;
}

// A bf16 or f16 dot or convolution with a user that widens its result.
bool IsWidenedLowPrecisionContraction(const HloInstruction* instr) {
  if (instr->opcode() != HloOpcode::kDot &&
      instr->opcode() != HloOpcode::kConvolution) {
    return false;
  }
  const PrimitiveType type = instr->shape().element_type();
  if (type != BF16 && type != F16) return false;
  for (const HloInstruction* user : instr->users()) {
    if (IsFloatConvert(user) &&
        MantissaBits(user->shape().element_type()) > MantissaBits(type)) {
      return true;
    }
  }
  return false;
}

// Step 1: contraction -> convert(contraction with an f32 result).
absl::Status UpcastContraction(HloComputation* computation,
                               HloInstruction* contraction) {
  Shape wide_shape = contraction->shape();
  wide_shape.set_element_type(F32);
  HloInstruction* wide = computation->AddInstruction(
      contraction->CloneWithNewOperands(wide_shape, contraction->operands()));
  HloInstruction* narrow =
      computation->AddInstruction(HloInstruction::CreateUnary(
          contraction->shape(), HloOpcode::kConvert, wide));
  return computation->ReplaceInstruction(contraction, narrow);
}

// Step 2: the start of the float convert chain that ends at `convert`, or
// nullptr when the chain is shorter than two converts.
HloInstruction* ChainStart(HloInstruction* convert) {
  HloInstruction* start = convert;
  int length = 0;
  while (IsFloatConvert(start)) {
    start = start->operand(0);
    ++length;
  }
  return length >= 2 ? start : nullptr;
}

}  // namespace

absl::StatusOr<bool> SimplifyFpConversions::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    bool computation_changed = false;
    for (HloInstruction* instr : computation->MakeInstructionPostOrder()) {
      if (IsWidenedLowPrecisionContraction(instr)) {
        if (absl::Status s = UpcastContraction(computation, instr); !s.ok()) {
          return s;
        }
        Count("contractions-upcast");
        computation_changed = true;
        continue;
      }
      if (!IsFloatConvert(instr)) continue;
      HloInstruction* start = ChainStart(instr);
      if (start == nullptr) continue;
      HloInstruction* replacement =
          start->shape().element_type() == instr->shape().element_type()
              ? start
              : computation->AddInstruction(HloInstruction::CreateUnary(
                    instr->shape(), HloOpcode::kConvert, start));
      if (absl::Status s = computation->ReplaceInstruction(instr, replacement);
          !s.ok()) {
        return s;
      }
      Count("convert-chains-removed");
      computation_changed = true;
    }
    if (computation_changed) {
      // New instructions were appended after their users.
      computation->SortInstructionsInPostOrder();
      changed = true;
    }
  }
  return changed;
}

}  // namespace hloc

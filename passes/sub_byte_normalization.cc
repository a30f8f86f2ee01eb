#include "passes/sub_byte_normalization.h"

#include <vector>

#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "hlo/sub_byte_int.h"
#include "passes/widen_to_f32.h"

namespace hloc {
namespace {

// Which bits of a sub-byte operand an operation reads.
enum class Bits { kValue, kUnsignedPattern, kSignedPattern };

Bits BitsReadBy(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kClz:
    case HloOpcode::kPopulationCount:
      return Bits::kUnsignedPattern;
    case HloOpcode::kShiftRightArithmetic:
      return Bits::kSignedPattern;
    default:
      return Bits::kValue;
  }
}

Shape WithElementType(Shape shape, PrimitiveType type) {
  shape.set_element_type(type);
  return shape;
}

// The narrow type whose value the wide operand holds: `type` itself, or
// its pattern read with the other signedness.
PrimitiveType ReadAs(PrimitiveType type, Bits bits) {
  if ((bits == Bits::kUnsignedPattern && IsSignedIntegralType(type)) ||
      (bits == Bits::kSignedPattern && IsUnsignedIntegralType(type))) {
    return OtherSignednessOf(type);
  }
  return type;
}

HloInstruction* Convert(HloComputation* computation, HloInstruction* operand,
                        PrimitiveType type) {
  if (operand->shape().element_type() == type) return operand;
  return computation->AddInstruction(HloInstruction::CreateUnary(
      WithElementType(operand->shape(), type), HloOpcode::kConvert, operand));
}

absl::Status Widen(HloComputation* computation, HloInstruction* instr) {
  const Bits bits = BitsReadBy(instr->opcode());
  std::vector<HloInstruction*> operands;
  for (int i = 0; i < instr->operand_count(); ++i) {
    HloInstruction* operand = instr->operand(i);
    const PrimitiveType type = operand->shape().element_type();
    if (operand->shape().IsArray() && IsSubByteIntegralType(type)) {
      // add(x, x) widens x once.
      HloInstruction* widened = nullptr;
      for (int j = 0; j < i; ++j) {
        if (instr->operand(j) == operand) widened = operands[j];
      }
      if (widened == nullptr) {
        const PrimitiveType read_as = ReadAs(type, bits);
        widened = Convert(computation, Convert(computation, operand, read_as),
                          ByteTypeOf(read_as));
      }
      operand = widened;
    }
    operands.push_back(operand);
  }
  const PrimitiveType result = instr->shape().element_type();
  if (!IsSubByteIntegralType(result)) {
    HloInstruction* wide = computation->AddInstruction(
        instr->CloneWithNewOperands(instr->shape(), operands));
    return computation->ReplaceInstruction(instr, wide);
  }
  const PrimitiveType wide_type = ByteTypeOf(ReadAs(result, bits));
  const Shape wide_shape = WithElementType(instr->shape(), wide_type);
  HloInstruction* wide = computation->AddInstruction(
      instr->CloneWithNewOperands(wide_shape, operands));
  if (instr->opcode() == HloOpcode::kClz) {
    // The u8 has 8 - width more leading zeros than the narrow type.
    HloInstruction* extra =
        computation->AddInstruction(HloInstruction::CreateConstant(
            Literal::CreateR0<uint8_t>(U8, 8 - BitWidth(result))));
    HloInstruction* extras = computation->AddInstruction(
        HloInstruction::CreateBroadcast(wide_shape, extra, {}));
    wide = computation->AddInstruction(HloInstruction::CreateBinary(
        wide_shape, HloOpcode::kSubtract, wide, extras));
  }
  return computation->ReplaceInstruction(
      instr, Convert(computation,
                     Convert(computation, wide, ReadAs(result, bits)), result));
}

}  // namespace

absl::StatusOr<bool> SubByteNormalization::Run(HloModule* module) {
  return RewriteEach(
      module, [](const HloComputation*) { return true; },
      [](const HloInstruction* instr) {
        return ComputesOnValues(instr->opcode()) && instr->shape().IsArray() &&
               TouchesSubByteInt(*instr);
      },
      "ops-widened",
      [](HloComputation* computation,
         HloInstruction* instr) -> absl::StatusOr<bool> {
        HLOC_RETURN_IF_ERROR(Widen(computation, instr));
        return true;
      });
}

}  // namespace hloc

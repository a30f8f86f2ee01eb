// Conversions that change nothing: to the same type, and round trips through
// a type that holds every value of the original exactly.
#include "passes/simplifier/rules.h"

namespace hloc {
namespace {

// True when every value of `from` converts to `to` and back unchanged.
bool HoldsExactly(PrimitiveType from, PrimitiveType to) {
  if (from == to || from == PRED) return true;
  if (IsComplexType(to)) {
    return !IsComplexType(from) ? HoldsExactly(from, ComplexComponentType(to))
                                : BitWidth(to) >= BitWidth(from);
  }
  if (IsIntegralType(from) && IsIntegralType(to)) {
    if (IsSignedIntegralType(from) == IsSignedIntegralType(to)) {
      return BitWidth(to) >= BitWidth(from);
    }
    return IsUnsignedIntegralType(from) && BitWidth(to) > BitWidth(from);
  }
  if (IsIntegralType(from) && IsFloatingPointType(to)) {
    int value_bits = BitWidth(from) - (IsSignedIntegralType(from) ? 1 : 0);
    return value_bits <= FloatFormatOf(to).mantissa_bits + 1;
  }
  if (IsFloatingPointType(from) && IsFloatingPointType(to)) {
    FloatFormat f = FloatFormatOf(from);
    FloatFormat t = FloatFormatOf(to);
    return t.exponent_bits >= f.exponent_bits &&
           t.mantissa_bits >= f.mantissa_bits;
  }
  return false;
}

}  // namespace

// convert(x) -> x when x already has the target type.
HloInstruction* ConvertSameType(HloInstruction* convert, Rewriter&) {
  HloInstruction* x = convert->operand(0);
  return SameShape(convert, x) ? x : nullptr;
}

// convert(convert(x, T -> U), U -> T) -> x when U holds every T exactly
// (f16 -> f32 -> f16, s8 -> s32 -> s8, pred -> f32 -> pred, ...).
HloInstruction* ConvertRoundTrip(HloInstruction* convert, Rewriter&) {
  HloInstruction* inner = convert->operand(0);
  if (inner->opcode() != HloOpcode::kConvert) return nullptr;
  HloInstruction* x = inner->operand(0);
  if (!SameShape(convert, x) ||
      !HoldsExactly(x->shape().element_type(), inner->shape().element_type())) {
    return nullptr;
  }
  return x;
}

// bitcast-convert(x) -> x when the type does not change.
HloInstruction* BitcastConvertSameType(HloInstruction* convert, Rewriter&) {
  HloInstruction* x = convert->operand(0);
  return SameShape(convert, x) ? x : nullptr;
}

}  // namespace hloc

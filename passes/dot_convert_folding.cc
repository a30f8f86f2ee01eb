#include "passes/dot_convert_folding.h"

#include <utility>
#include <vector>

#include "hlo/computation.h"

namespace hloc {
namespace {

// Float types whose exponent and mantissa widths alone say which values
// they hold (IEEE-like, no shifted bias as in the fnuz f8 types).
bool IsPlainFloat(PrimitiveType type) {
  return type == BF16 || type == F16 || type == F32 || type == F64;
}

// The narrow value a dot operand is an exact convert of, or nullptr.
HloInstruction* ExactConvertSource(HloInstruction* operand) {
  if (operand->opcode() != HloOpcode::kConvert) return nullptr;
  HloInstruction* source = operand->operand(0);
  if (!source->shape().IsArray() || !operand->shape().IsArray()) return nullptr;
  // The dot reads the source in the convert's place: same dimensions and
  // the same layout.
  Shape as_source = operand->shape();
  as_source.set_element_type(source->shape().element_type());
  if (!(as_source == source->shape())) return nullptr;
  if (!IsExactConversion(source->shape().element_type(),
                         operand->shape().element_type())) {
    return nullptr;
  }
  return source;
}

bool PlatformReads(DotOperandReads reads, PrimitiveType lhs, PrimitiveType rhs,
                   PrimitiveType result) {
  switch (reads) {
    case DotOperandReads::kEachOperandAnyType:
      return true;
    case DotOperandReads::kBothOperandsOneType:
      return lhs == rhs;
    case DotOperandReads::kCublasLtTypes:
      if (lhs != rhs) return false;
      if (IsIntegralType(result)) return true;
      return (lhs == BF16 || lhs == F16) && result == F32;
  }
  return false;
}

absl::StatusOr<bool> Fold(HloComputation* computation, HloInstruction* dot,
                          DotOperandReads reads) {
  if (dot->operand_count() != 2 || !dot->shape().IsArray()) return false;
  const PrimitiveType result = dot->shape().element_type();
  if (result == PRED || IsComplexType(result)) return false;
  HloInstruction* source[2] = {ExactConvertSource(dot->operand(0)),
                               ExactConvertSource(dot->operand(1))};
  if (source[0] == nullptr && source[1] == nullptr) return false;
  // Both operands folded if the platform reads that, else one of them.
  const std::pair<bool, bool> choices[] = {
      {true, true}, {true, false}, {false, true}};
  for (const auto& [fold_lhs, fold_rhs] : choices) {
    if ((fold_lhs && source[0] == nullptr) ||
        (fold_rhs && source[1] == nullptr)) {
      continue;
    }
    HloInstruction* lhs = fold_lhs ? source[0] : dot->operand(0);
    HloInstruction* rhs = fold_rhs ? source[1] : dot->operand(1);
    if (!PlatformReads(reads, lhs->shape().element_type(),
                       rhs->shape().element_type(), result)) {
      continue;
    }
    HloInstruction* folded = computation->AddInstruction(
        dot->CloneWithNewOperands(dot->shape(), {lhs, rhs}));
    if (absl::Status s = computation->ReplaceInstruction(dot, folded);
        !s.ok()) {
      return s;
    }
    return true;
  }
  return false;
}

}  // namespace

bool IsExactConversion(PrimitiveType from, PrimitiveType to) {
  if (from == to) return true;
  if (IsFloatingPointType(from)) {
    if (!IsPlainFloat(from) || !IsPlainFloat(to)) return false;
    const FloatFormat f = FloatFormatOf(from), t = FloatFormatOf(to);
    return t.exponent_bits >= f.exponent_bits &&
           t.mantissa_bits >= f.mantissa_bits;
  }
  if (!IsIntegralType(from)) return false;  // pred, complex
  // The bits of magnitude a value of `from` has.
  const int magnitude =
      IsSignedIntegralType(from) ? BitWidth(from) - 1 : BitWidth(from);
  if (IsFloatingPointType(to)) {
    // Integers up to 2^(mantissa + 1) are exact.
    return IsPlainFloat(to) && FloatFormatOf(to).mantissa_bits + 1 >= magnitude;
  }
  if (!IsIntegralType(to)) return false;
  if (IsSignedIntegralType(from)) {
    return IsSignedIntegralType(to) && BitWidth(to) >= BitWidth(from);
  }
  // Unsigned into unsigned of at least its width, or signed of more.
  return IsUnsignedIntegralType(to) ? BitWidth(to) >= BitWidth(from)
                                    : BitWidth(to) > BitWidth(from);
}

absl::StatusOr<bool> DotConvertFolding::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kDot, "converts-folded",
                     [&](HloComputation* computation, HloInstruction* dot) {
                       return Fold(computation, dot, reads_);
                     });
}

}  // namespace hloc

#include "passes/dot_algorithm_operands.h"

#include "hlo/computation.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

// The type an f32 operand is rounded to under `algorithm`, or
// PRIMITIVE_TYPE_INVALID.
PrimitiveType OperandTypeOf(int algorithm) {
  switch (algorithm) {
    case PrecisionConfig::kDotBf16Bf16F32:
      return BF16;
    case PrecisionConfig::kDotF16F16F32:
      return F16;
    default:
      return PRIMITIVE_TYPE_INVALID;
  }
}

absl::StatusOr<bool> Rewrite(HloComputation* computation, HloInstruction* dot) {
  std::optional<PrecisionConfig>& precision =
      dot->mutable_attrs().precision_config;
  if (!precision.has_value()) return false;
  const PrimitiveType narrow = OperandTypeOf(precision->algorithm);
  if (narrow == PRIMITIVE_TYPE_INVALID || dot->shape().element_type() != F32) {
    return false;
  }
  for (int64_t i = 0; i < 2; ++i) {
    const PrimitiveType type = dot->operand(i)->shape().element_type();
    if (type != F32 && type != narrow) return false;
  }
  for (int64_t i = 0; i < 2; ++i) {
    HloInstruction* operand = dot->operand(i);
    if (operand->shape().element_type() == narrow) continue;
    Shape rounded_shape = operand->shape();
    rounded_shape.set_element_type(narrow);
    HloInstruction* rounded =
        computation->AddInstruction(HloInstruction::CreateUnary(
            rounded_shape, HloOpcode::kConvert, operand));
    HLOC_RETURN_IF_ERROR(dot->ReplaceOperandWith(i, rounded));
  }
  // Both operands are of the algorithm's type now: a plain mixed dot.
  precision->algorithm = 0;
  return true;
}

}  // namespace

absl::StatusOr<bool> DotAlgorithmOperands::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kDot, "dots-rounded-by-algorithm",
                     Rewrite);
}

}  // namespace hloc

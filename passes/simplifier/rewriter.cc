#include "passes/simplifier/rewriter.h"

#include <cmath>
#include <complex>

namespace hloc {

HloInstruction* Rewriter::Add(std::unique_ptr<HloInstruction> instruction) {
  if (current_ != nullptr) {
    *instruction->mutable_metadata() = current_->metadata();
  }
  HloInstruction* raw = computation_->AddInstruction(std::move(instruction));
  added_.push_back(raw);
  return raw;
}

HloInstruction* Rewriter::Broadcast(HloInstruction* operand, const Shape& shape,
                                    std::vector<int64_t> dimensions) {
  return Add(
      HloInstruction::CreateBroadcast(shape, operand, std::move(dimensions)));
}

HloInstruction* Rewriter::Reshape(HloInstruction* operand, const Shape& shape) {
  return Add(HloInstruction::CreateReshape(shape, operand));
}

HloInstruction* Rewriter::Transpose(HloInstruction* operand, const Shape& shape,
                                    std::vector<int64_t> dimensions) {
  return Add(
      HloInstruction::CreateTranspose(shape, operand, std::move(dimensions)));
}

HloInstruction* Rewriter::Convert(HloInstruction* operand, PrimitiveType type) {
  if (operand->shape().element_type() == type) return operand;
  Shape shape = operand->shape();
  shape.set_element_type(type);
  return Add(HloInstruction::CreateUnary(shape, HloOpcode::kConvert, operand));
}

HloInstruction* Rewriter::Unary(const Shape& shape, HloOpcode opcode,
                                HloInstruction* operand) {
  return Add(HloInstruction::CreateUnary(shape, opcode, operand));
}

HloInstruction* Rewriter::Binary(const Shape& shape, HloOpcode opcode,
                                 HloInstruction* lhs, HloInstruction* rhs) {
  return Add(HloInstruction::CreateBinary(shape, opcode, lhs, rhs));
}

HloInstruction* Rewriter::ScalarConstant(PrimitiveType type, double value) {
  Literal literal(Shape::Scalar(type));
  literal.SetFromDouble(0, value);
  return Add(HloInstruction::CreateConstant(std::move(literal)));
}

HloInstruction* Rewriter::Splat(const Shape& shape, double value) {
  HloInstruction* scalar = ScalarConstant(shape.element_type(), value);
  if (shape.IsScalar()) return scalar;
  return Broadcast(scalar, shape, {});
}

std::vector<HloInstruction*> Rewriter::TakeAdded() {
  std::vector<HloInstruction*> added;
  added.swap(added_);
  return added;
}

bool IsConstantValue(const HloInstruction* instruction, double value) {
  while (instruction->opcode() == HloOpcode::kBroadcast) {
    instruction = instruction->operand(0);
  }
  if (instruction->opcode() != HloOpcode::kConstant ||
      !instruction->shape().IsArray() ||
      !IsSupportedElementType(instruction->shape().element_type())) {
    return false;
  }
  const Literal& literal = instruction->literal();
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    if (literal.GetAsComplex(i) != std::complex<double>(value, 0)) {
      return false;
    }
  }
  return literal.element_count() > 0;
}

std::optional<double> ConstantScalarValue(const HloInstruction* instruction) {
  while (instruction->opcode() == HloOpcode::kBroadcast) {
    instruction = instruction->operand(0);
  }
  if (instruction->opcode() != HloOpcode::kConstant ||
      !instruction->shape().IsArray() ||
      !IsSupportedElementType(instruction->shape().element_type()) ||
      IsComplexType(instruction->shape().element_type()) ||
      instruction->literal().element_count() == 0) {
    return std::nullopt;
  }
  double value = instruction->literal().GetAsDouble(0);
  return IsConstantValue(instruction, value) ? std::optional<double>(value)
                                             : std::nullopt;
}

std::optional<bool> ConstantPredicate(const HloInstruction* instruction) {
  if (instruction->shape().element_type() != PRED) return std::nullopt;
  if (IsConstantValue(instruction, 1)) return true;
  if (IsConstantValue(instruction, 0)) return false;
  return std::nullopt;
}

bool IsScalarBroadcast(const HloInstruction* instruction) {
  return instruction->opcode() == HloOpcode::kBroadcast &&
         instruction->operand(0)->shape().IsScalar();
}

bool SameShape(const HloInstruction* instruction,
               const HloInstruction* replacement) {
  return instruction->shape() == replacement->shape();
}

bool IsIntegralOrPred(PrimitiveType type) {
  return type == PRED || IsIntegralType(type);
}

std::optional<std::vector<int64_t>> DegenerateDimsMapping(const Shape& from,
                                                          const Shape& to) {
  std::vector<int64_t> mapping;
  int64_t j = 0;
  for (int64_t i = 0; i < from.rank(); ++i) {
    while (j < to.rank() && to.dimensions(j) != from.dimensions(i) &&
           to.dimensions(j) == 1) {
      ++j;  // A size-1 dimension inserted before from's dimension i.
    }
    if (j < to.rank() && to.dimensions(j) == from.dimensions(i)) {
      mapping.push_back(j++);
    } else if (from.dimensions(i) == 1) {
      mapping.push_back(-1);
    } else {
      return std::nullopt;
    }
  }
  for (; j < to.rank(); ++j) {
    if (to.dimensions(j) != 1) return std::nullopt;
  }
  return mapping;
}

std::optional<double> IdentityElement(HloOpcode opcode, PrimitiveType type) {
  bool is_float = IsFloatingPointType(type) || IsComplexType(type);
  bool small_int = IsIntegralType(type) && BitWidth(type) <= 32;
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return 0.0;
    case HloOpcode::kMultiply:
      return 1.0;
    case HloOpcode::kAnd:
      if (type == PRED) return 1.0;
      return std::nullopt;
    case HloOpcode::kMaximum:
      if (is_float) return -INFINITY;
      if (type == PRED || IsUnsignedIntegralType(type)) return 0.0;
      if (small_int) return -std::ldexp(1.0, BitWidth(type) - 1);
      return std::nullopt;
    case HloOpcode::kMinimum:
      if (is_float) return INFINITY;
      if (type == PRED) return 1.0;
      if (small_int && IsUnsignedIntegralType(type)) {
        return std::ldexp(1.0, BitWidth(type)) - 1;
      }
      if (small_int) return std::ldexp(1.0, BitWidth(type) - 1) - 1;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

}  // namespace hloc

// Arithmetic identities: x+0, x-0, x*1, x/1, x/2^k, x**1, x**0, x**2,
// max(x, -inf), min(x, inf), double negation, a+(-b), a-(-b), idempotent
// ops, pred and/or with constants, and the integer-only ones (x*0, x-x) that
// would be wrong for floats (NaN, inf).
//
// Note on signed zeros: add(x, 0) -> x turns (-0) + 0 = +0 into -0. The two
// compare equal, and XLA makes the same trade; every other rule here is
// exact in IEEE arithmetic.
#include <cmath>
#include <vector>

#include "passes/simplifier/rules.h"

namespace hloc {
namespace {

HloInstruction* OtherIfConstant(HloInstruction* instruction, int64_t constant,
                                double value) {
  HloInstruction* other = instruction->operand(1 - constant);
  if (IsConstantValue(instruction->operand(constant), value) &&
      SameShape(instruction, other)) {
    return other;
  }
  return nullptr;
}

}  // namespace

// add(x, 0) -> x, add(0, x) -> x.
HloInstruction* AddZero(HloInstruction* add, Rewriter&) {
  if (HloInstruction* x = OtherIfConstant(add, 1, 0)) return x;
  return OtherIfConstant(add, 0, 0);
}

// subtract(x, 0) -> x.
HloInstruction* SubtractZero(HloInstruction* sub, Rewriter&) {
  return OtherIfConstant(sub, 1, 0);
}

// multiply(x, 1) -> x, multiply(1, x) -> x.
HloInstruction* MultiplyOne(HloInstruction* mul, Rewriter&) {
  if (HloInstruction* x = OtherIfConstant(mul, 1, 1)) return x;
  return OtherIfConstant(mul, 0, 1);
}

// multiply(x, 0) -> 0 for integers (for floats, inf * 0 and NaN * 0 are NaN).
HloInstruction* MultiplyZeroInteger(HloInstruction* mul, Rewriter&) {
  if (!IsIntegralOrPred(mul->shape().element_type())) return nullptr;
  for (int64_t i : {0, 1}) {
    HloInstruction* zero = mul->operand(i);
    if (IsConstantValue(zero, 0) && SameShape(mul, zero)) return zero;
  }
  return nullptr;
}

// divide(x, 1) -> x.
HloInstruction* DivideOne(HloInstruction* div, Rewriter&) {
  return OtherIfConstant(div, 1, 1);
}

// divide(x, 2^k) -> multiply(x, 2^-k) for floats: both round the same real
// number once, so the results are identical, and a multiply is cheaper.
HloInstruction* DivideByPowerOfTwo(HloInstruction* div, Rewriter& rw) {
  PrimitiveType type = div->shape().element_type();
  std::optional<double> divisor = ConstantScalarValue(div->operand(1));
  if (!IsFloatingPointType(type) || !divisor || !std::isfinite(*divisor)) {
    return nullptr;
  }
  int exponent;
  if (std::fabs(std::frexp(*divisor, &exponent)) != 0.5) return nullptr;
  double reciprocal = 1.0 / *divisor;
  Literal check(Shape::Scalar(type));
  check.SetFromDouble(0, reciprocal);
  if (check.GetAsDouble(0) != reciprocal) return nullptr;  // Not representable.
  HloInstruction* factor = rw.ScalarConstant(type, reciprocal);
  if (!div->shape().IsScalar()) {
    factor = rw.Broadcast(factor, div->shape(), {});
  }
  return rw.Binary(div->shape(), HloOpcode::kMultiply, div->operand(0),
                   factor);
}

// divide(a, sqrt(b)) -> multiply(a, rsqrt(b)), and divide(a, rsqrt(b)) ->
// multiply(a, sqrt(b)), also where the root reaches the divide through
// broadcasts and reshapes (a layer norm's per-row 1/sqrt(var + eps)
// broadcast along its rows), as XLA's algebraic simplifier does. Not
// exact: rsqrt is not correctly rounded on every target, so a result may
// move by a few ulps (simplification_preserves_results_test allows for
// it). It turns a division per element into a multiplication, and on a GPU
// the division is what bounds a bf16 layer norm: one reciprocal square
// root per row replaces a full-precision divide of every element.
HloInstruction* DivideBySqrt(HloInstruction* div, Rewriter& rw) {
  const PrimitiveType type = div->shape().element_type();
  if (type != F16 && type != BF16 && type != F32 && type != F64) {
    return nullptr;
  }
  std::vector<HloInstruction*> views;  // outermost first
  HloInstruction* root = div->operand(1);
  while (root->opcode() == HloOpcode::kBroadcast ||
         root->opcode() == HloOpcode::kReshape) {
    views.push_back(root);
    root = root->operand(0);
  }
  HloOpcode inverse;
  if (root->opcode() == HloOpcode::kSqrt) {
    inverse = HloOpcode::kRsqrt;
  } else if (root->opcode() == HloOpcode::kRsqrt) {
    inverse = HloOpcode::kSqrt;
  } else {
    return nullptr;
  }
  HloInstruction* factor = rw.Unary(root->shape(), inverse, root->operand(0));
  for (auto view = views.rbegin(); view != views.rend(); ++view) {
    factor = (*view)->opcode() == HloOpcode::kBroadcast
                 ? rw.Broadcast(factor, (*view)->shape(), (*view)->dimensions())
                 : rw.Reshape(factor, (*view)->shape());
  }
  return rw.Binary(div->shape(), HloOpcode::kMultiply, div->operand(0),
                   factor);
}

// negate(negate(x)) -> x.
HloInstruction* DoubleNegation(HloInstruction* neg, Rewriter&) {
  HloInstruction* inner = neg->operand(0);
  if (inner->opcode() != HloOpcode::kNegate) return nullptr;
  HloInstruction* x = inner->operand(0);
  return SameShape(neg, x) ? x : nullptr;
}

// add(a, negate(b)) -> subtract(a, b); add(negate(a), b) -> subtract(b, a).
HloInstruction* AddNegation(HloInstruction* add, Rewriter& rw) {
  HloInstruction* lhs = add->operand(0);
  HloInstruction* rhs = add->operand(1);
  if (rhs->opcode() == HloOpcode::kNegate) {
    return rw.Binary(add->shape(), HloOpcode::kSubtract, lhs, rhs->operand(0));
  }
  if (lhs->opcode() == HloOpcode::kNegate) {
    return rw.Binary(add->shape(), HloOpcode::kSubtract, rhs, lhs->operand(0));
  }
  return nullptr;
}

// subtract(a, negate(b)) -> add(a, b).
HloInstruction* SubtractNegation(HloInstruction* sub, Rewriter& rw) {
  HloInstruction* rhs = sub->operand(1);
  if (rhs->opcode() != HloOpcode::kNegate) return nullptr;
  return rw.Binary(sub->shape(), HloOpcode::kAdd, sub->operand(0),
                   rhs->operand(0));
}

// subtract(x, x) -> 0 for integers.
HloInstruction* SubtractSelfInteger(HloInstruction* sub, Rewriter& rw) {
  if (!IsIntegralType(sub->shape().element_type()) ||
      sub->operand(0) != sub->operand(1)) {
    return nullptr;
  }
  return rw.Splat(sub->shape(), 0);
}

// and(x, x), or(x, x), maximum(x, x), minimum(x, x) -> x.
HloInstruction* IdempotentSelf(HloInstruction* op, Rewriter&) {
  switch (op->opcode()) {
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
      break;
    default:
      return nullptr;
  }
  HloInstruction* x = op->operand(0);
  return x == op->operand(1) && SameShape(op, x) ? x : nullptr;
}

// maximum(x, lowest) -> x, minimum(x, highest) -> x: -inf / +inf for
// floats (NaN still propagates: max(NaN, -inf) is NaN), the type's limits
// for integers.
HloInstruction* MaxMinIdentity(HloInstruction* op, Rewriter&) {
  std::optional<double> identity =
      IdentityElement(op->opcode(), op->shape().element_type());
  if (!identity) return nullptr;
  if (HloInstruction* x = OtherIfConstant(op, 1, *identity)) return x;
  return OtherIfConstant(op, 0, *identity);
}

// and(x, true) -> x, or(x, false) -> x (pred).
HloInstruction* AndOrIdentity(HloInstruction* op, Rewriter&) {
  if (op->shape().element_type() != PRED) return nullptr;
  double identity = op->opcode() == HloOpcode::kAnd ? 1 : 0;
  if (HloInstruction* x = OtherIfConstant(op, 1, identity)) return x;
  return OtherIfConstant(op, 0, identity);
}

// and(x, false) -> false, or(x, true) -> true (pred).
HloInstruction* AndOrAbsorb(HloInstruction* op, Rewriter&) {
  if (op->shape().element_type() != PRED) return nullptr;
  double absorbing = op->opcode() == HloOpcode::kAnd ? 0 : 1;
  for (int64_t i : {0, 1}) {
    HloInstruction* constant = op->operand(i);
    if (IsConstantValue(constant, absorbing) && SameShape(op, constant)) {
      return constant;
    }
  }
  return nullptr;
}

// not(not(x)) -> x.
HloInstruction* DoubleNot(HloInstruction* op, Rewriter&) {
  HloInstruction* inner = op->operand(0);
  if (inner->opcode() != HloOpcode::kNot) return nullptr;
  HloInstruction* x = inner->operand(0);
  return SameShape(op, x) ? x : nullptr;
}

// abs(abs(x)) -> abs(x).
HloInstruction* AbsIdempotent(HloInstruction* abs, Rewriter&) {
  HloInstruction* x = abs->operand(0);
  return x->opcode() == HloOpcode::kAbs && SameShape(abs, x) ? x : nullptr;
}

// power(x, 1) -> x.
HloInstruction* PowerOne(HloInstruction* pow, Rewriter&) {
  return OtherIfConstant(pow, 1, 1);
}

// power(x, 0) -> 1 (pow(x, 0) is 1 for every x, NaN included).
HloInstruction* PowerZero(HloInstruction* pow, Rewriter& rw) {
  if (!IsConstantValue(pow->operand(1), 0)) return nullptr;
  return rw.Splat(pow->shape(), 1);
}

// power(x, 2) -> multiply(x, x).
HloInstruction* PowerTwo(HloInstruction* pow, Rewriter& rw) {
  if (!IsConstantValue(pow->operand(1), 2)) return nullptr;
  HloInstruction* x = pow->operand(0);
  return rw.Binary(pow->shape(), HloOpcode::kMultiply, x, x);
}

}  // namespace hloc

// Comparisons of a value with itself and selects whose outcome is known.
#include "passes/simplifier/rules.h"

namespace hloc {

// compare(x, x) for integer or pred x: EQ, GE, LE -> true; NE, GT, LT ->
// false. Not for floats, where x != x holds for NaN.
HloInstruction* CompareSameIntegerOperands(HloInstruction* compare,
                                           Rewriter& rw) {
  HloInstruction* x = compare->operand(0);
  if (x != compare->operand(1) ||
      !IsIntegralOrPred(x->shape().element_type())) {
    return nullptr;
  }
  switch (compare->comparison_direction()) {
    case ComparisonDirection::kEq:
    case ComparisonDirection::kGe:
    case ComparisonDirection::kLe:
      return rw.Splat(compare->shape(), 1);
    case ComparisonDirection::kNe:
    case ComparisonDirection::kGt:
    case ComparisonDirection::kLt:
      return rw.Splat(compare->shape(), 0);
  }
  return nullptr;
}

// select(true, a, b) -> a; select(false, a, b) -> b. The predicate is a
// constant (or broadcast of one) with all elements equal.
HloInstruction* SelectConstantPredicate(HloInstruction* select, Rewriter&) {
  std::optional<bool> predicate = ConstantPredicate(select->operand(0));
  if (!predicate) return nullptr;
  HloInstruction* chosen = select->operand(*predicate ? 1 : 2);
  return SameShape(select, chosen) ? chosen : nullptr;
}

// select(p, x, x) -> x.
HloInstruction* SelectSameBranches(HloInstruction* select, Rewriter&) {
  HloInstruction* x = select->operand(1);
  return x == select->operand(2) && SameShape(select, x) ? x : nullptr;
}

// select(not(p), a, b) -> select(p, b, a).
HloInstruction* SelectOfNot(HloInstruction* select, Rewriter& rw) {
  HloInstruction* predicate = select->operand(0);
  if (predicate->opcode() != HloOpcode::kNot) return nullptr;
  return rw.Add(HloInstruction::Create(
      HloOpcode::kSelect, select->shape(),
      {predicate->operand(0), select->operand(2), select->operand(1)}));
}

}  // namespace hloc

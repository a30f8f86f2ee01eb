#include "hlo/reducer_patterns.h"

#include "hlo/attributes.h"
#include "hlo/instruction.h"
#include "hlo/opcode.h"
#include "hlo/primitive_type.h"

namespace hloc {
namespace {

// Whether `instr` is `opcode` of {x, y} in either order.
bool IsCommutedPair(const HloInstruction* instr, HloOpcode opcode,
                    const HloInstruction* x, const HloInstruction* y) {
  if (instr->opcode() != opcode || instr->operand_count() != 2) return false;
  return (instr->operand(0) == x && instr->operand(1) == y) ||
         (instr->operand(0) == y && instr->operand(1) == x);
}

// Whether `instr` is a - b or b - a.
bool IsDifference(const HloInstruction* instr, const HloInstruction* a,
                  const HloInstruction* b) {
  return IsCommutedPair(instr, HloOpcode::kSubtract, a, b);
}

// max(a, b) + log1p(exp(-|a - b|)), the sum's operands in either order.
bool IsStableLogAddExp(const HloInstruction* instr, const HloInstruction* a,
                       const HloInstruction* b) {
  if (instr->opcode() != HloOpcode::kAdd) return false;
  for (int k = 0; k < 2; ++k) {
    const HloInstruction* max = instr->operand(k);
    const HloInstruction* log1p = instr->operand(1 - k);
    if (!IsCommutedPair(max, HloOpcode::kMaximum, a, b) ||
        log1p->opcode() != HloOpcode::kLog1p) {
      continue;
    }
    const HloInstruction* exp = log1p->operand(0);
    if (exp->opcode() != HloOpcode::kExp) continue;
    const HloInstruction* neg = exp->operand(0);
    if (neg->opcode() != HloOpcode::kNegate) continue;
    const HloInstruction* abs = neg->operand(0);
    if (abs->opcode() == HloOpcode::kAbs &&
        IsDifference(abs->operand(0), a, b)) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool IsLogAddExpReducer(const HloComputation& reducer) {
  if (reducer.num_parameters() != 2) return false;
  const HloInstruction* a = reducer.parameter_instruction(0);
  const HloInstruction* b = reducer.parameter_instruction(1);
  const HloInstruction* root = reducer.root_instruction();
  if (!a->shape().IsArray() || a->shape().rank() != 0 ||
      !IsFloatingPointType(a->shape().element_type()) ||
      !(a->shape() == b->shape()) || !(root->shape() == a->shape())) {
    return false;
  }
  if (root->opcode() == HloOpcode::kSelect) {
    // select(d != d, a + b, stable form): d is NaN only where a and b are
    // infinities of one sign (or a NaN), whose sum is the answer.
    const HloInstruction* pred = root->operand(0);
    if (pred->opcode() != HloOpcode::kCompare ||
        pred->comparison_direction() != ComparisonDirection::kNe ||
        pred->operand(0) != pred->operand(1) ||
        !IsDifference(pred->operand(0), a, b) ||
        !IsCommutedPair(root->operand(1), HloOpcode::kAdd, a, b)) {
      return false;
    }
    return IsStableLogAddExp(root->operand(2), a, b);
  }
  return IsStableLogAddExp(root, a, b);
}

}  // namespace hloc

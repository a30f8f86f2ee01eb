#include "passes/control_flow_layout.h"

#include <vector>

#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "passes/tuple_layout.h"

namespace hloc {
namespace {

// Whether `user` depends on the layout its operand is declared with, not
// only on its values: what passes a buffer on (a tuple, a control-flow
// operand, a bitcast's reinterpretation, a custom call's operand). Every
// other op reads its operand in whatever layout the operand's shape names.
bool ReadsDeclaredLayout(const HloInstruction& user) {
  switch (user.opcode()) {
    case HloOpcode::kTuple:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
    case HloOpcode::kBitcast:
    case HloOpcode::kCustomCall:
      return true;
    default:
      return false;
  }
}

// Re-declares `value` (a parameter, a while, a get-tuple-element: an
// instruction whose buffer is another's) with shape `actual`, the layouts
// its buffer really has. Its get-tuple-elements are re-declared in turn;
// users that depend on the declared layout (and the computation's root)
// get a copy in it. Returns whether anything changed.
absl::StatusOr<bool> Redeclare(HloComputation* computation,
                               HloInstruction* value, const Shape& actual,
                               int64_t* copies) {
  if (value->shape() == actual) return false;
  const Shape declared = value->shape();
  const std::vector<HloInstruction*> users = value->users();
  const bool root = computation->root_instruction() == value;
  *value->mutable_shape() = actual;
  std::vector<HloInstruction*> keep_declared;
  for (HloInstruction* user : users) {
    if (actual.IsTuple() && user->opcode() == HloOpcode::kGetTupleElement) {
      HLOC_RETURN_IF_ERROR(
          Redeclare(computation, user,
                    actual.tuple_shapes(user->tuple_index()), copies)
              .status());
    } else if (ReadsDeclaredLayout(*user)) {
      keep_declared.push_back(user);
    }
  }
  if (!keep_declared.empty() || root) {
    HloInstruction* relaid =
        RelayoutValue(computation, value, declared, copies);
    HLOC_RETURN_IF_ERROR(value->ReplaceUsesWith(keep_declared, relaid));
    if (root) computation->set_root_instruction(relaid);
  }
  return true;
}

// Gives operand `i` of `instr` the layouts `want`.
absl::StatusOr<bool> RelayoutOperand(HloComputation* computation,
                                     HloInstruction* instr, int64_t i,
                                     const Shape& want, int64_t* copies) {
  HloInstruction* operand = instr->operand(i);
  HloInstruction* fixed = RelayoutValue(computation, operand, want, copies);
  if (fixed == operand) return false;
  HLOC_RETURN_IF_ERROR(instr->ReplaceOperandWith(i, fixed));
  return true;
}

// Makes `computation`'s root have the layouts `want`.
bool RelayoutRoot(HloComputation* computation, const Shape& want,
                  int64_t* copies) {
  HloInstruction* root = computation->root_instruction();
  HloInstruction* fixed = RelayoutValue(computation, root, want, copies);
  if (fixed == root) return false;
  computation->set_root_instruction(fixed);
  return true;
}

absl::StatusOr<bool> FixWhile(HloComputation* computation,
                              HloInstruction* loop, int64_t* copies) {
  HloComputation* body = loop->while_body();
  HloComputation* condition = loop->while_condition();
  const Shape state = body->parameter_instruction(0)->shape();
  bool changed = false;
  HLOC_ASSIGN_OR_RETURN(bool operand,
                        RelayoutOperand(computation, loop, 0, state, copies));
  changed |= operand;
  changed |= RelayoutRoot(body, state, copies);
  HLOC_ASSIGN_OR_RETURN(
      bool read, Redeclare(condition, condition->parameter_instruction(0),
                           state, copies));
  changed |= read;
  HLOC_ASSIGN_OR_RETURN(bool result,
                        Redeclare(computation, loop, state, copies));
  return changed || result;
}

absl::StatusOr<bool> FixConditional(HloComputation* computation,
                                    HloInstruction* conditional,
                                    int64_t* copies) {
  bool changed = false;
  const std::vector<HloComputation*>& branches =
      conditional->called_computations();
  for (int64_t b = 0; b < static_cast<int64_t>(branches.size()); ++b) {
    HloComputation* branch = branches[b];
    if (branch->num_parameters() == 1) {
      HLOC_ASSIGN_OR_RETURN(
          bool operand,
          RelayoutOperand(computation, conditional, b + 1,
                          branch->parameter_instruction(0)->shape(), copies));
      changed |= operand;
    }
    changed |= RelayoutRoot(branch, conditional->shape(), copies);
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> ControlFlowLayout::Run(HloModule* module) {
  int64_t copies = 0;
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    if (computation->IsFusionComputation()) continue;
    // Collected first: the fixes add instructions.
    std::vector<HloInstruction*> boundaries;
    for (HloInstruction* instr : computation->instructions()) {
      const HloOpcode op = instr->opcode();
      if (op == HloOpcode::kWhile || op == HloOpcode::kConditional ||
          op == HloOpcode::kGetTupleElement) {
        boundaries.push_back(instr);
      }
    }
    bool changed_here = false;
    for (HloInstruction* instr : boundaries) {
      bool c = false;
      if (instr->opcode() == HloOpcode::kWhile) {
        HLOC_ASSIGN_OR_RETURN(c, FixWhile(computation, instr, &copies));
      } else if (instr->opcode() == HloOpcode::kConditional) {
        HLOC_ASSIGN_OR_RETURN(c, FixConditional(computation, instr, &copies));
      } else {
        const Shape& element =
            instr->operand(0)->shape().tuple_shapes(instr->tuple_index());
        HLOC_ASSIGN_OR_RETURN(
            c, Redeclare(computation, instr, element, &copies));
      }
      changed_here |= c;
    }
    changed |= changed_here;
  }
  if (changed) {
    // The copies were appended after their users, here and in the called
    // computations (a condition's re-declared parameter).
    for (HloComputation* computation : module->computations()) {
      if (!computation->IsFusionComputation()) {
        computation->SortInstructionsInPostOrder();
      }
    }
  }
  if (copies > 0) Count("copies-inserted", copies);
  return changed;
}

}  // namespace hloc

#include "passes/float8_normalization.h"

#include "hlo/computation.h"
#include "hlo/float8.h"
#include "passes/widen_to_f32.h"

namespace hloc {
namespace {

bool IsFloat8Type(PrimitiveType type) {
  return Float8FormatOf(type) != nullptr;
}

// Operations that compute on their values (so on 8-bit floats only after
// widening): the elementwise ones except those that move or reinterpret
// values, and the few others that make or combine numbers. Everything
// else moves values (copies, slices, gathers, selects, sorts, tuples) or
// applies a computation this pass rewrites itself (reduce, scatter, map).
bool Computes(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kSelect:
    case HloOpcode::kConvert:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kCopy:
      return false;
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kIota:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kRng:
    case HloOpcode::kCholesky:
    case HloOpcode::kTriangularSolve:
      return true;
    default:
      return HloOpcodeIsElementwise(opcode);
  }
}

bool TouchesFloat8(const HloInstruction* instr) {
  if (instr->shape().IsArray() && IsFloat8Type(instr->shape().element_type())) {
    return true;
  }
  for (const HloInstruction* operand : instr->operands()) {
    if (operand->shape().IsArray() &&
        IsFloat8Type(operand->shape().element_type())) {
      return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<bool> Float8Normalization::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    bool computation_changed = false;
    for (HloInstruction* instr : computation->MakeInstructionPostOrder()) {
      if (!Computes(instr->opcode()) || !instr->shape().IsArray() ||
          !TouchesFloat8(instr)) {
        continue;
      }
      if (absl::Status s = WidenToF32(computation, instr, IsFloat8Type);
          !s.ok()) {
        return s;
      }
      Count("ops-widened");
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

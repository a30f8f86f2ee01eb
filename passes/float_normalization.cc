#include "passes/float_normalization.h"

#include "absl/container/flat_hash_set.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "passes/widen_to_f32.h"

namespace hloc {
namespace {

// bf16 only: XLA computes f16 arithmetic in f16 on both targets (natively
// on the GPU; on the CPU LLVM rounds after each op), and results that are
// f16-rounded per op are what users of XLA see. bf16 XLA:CPU normalizes to
// f32 as this pass does.
bool IsLowPrecisionFloat(PrimitiveType type) { return type == BF16; }

// Float arithmetic whose f32 result, rounded to the narrow type, is what
// the narrow operation computes (or more precise): the ops that round.
// select only moves values, so it is widened only when that lets a
// rounding go (see WidensSelect). compare rounds nothing and is left
// narrow: widened, its operands' roundings would go with the narrow-then-
// widen pairs on the GPUs, the program's own included, and a comparison
// of the unrounded values can flip (nextafter(bf16(3.4028235e38), inf)
// compares x == y, true only for x rounded to inf; unrounded, the result
// stepped past inf to a NaN where XLA:GPU, XLA:CPU and the evaluator give
// inf). The emitters widen a narrow compare's operands themselves.
bool IsArithmetic(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAbs:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAdd:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtan2:
    case HloOpcode::kAtanh:
    case HloOpcode::kCbrt:
    case HloOpcode::kCeil:
    case HloOpcode::kClamp:
    case HloOpcode::kCos:
    case HloOpcode::kCosh:
    case HloOpcode::kDivide:
    case HloOpcode::kErf:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kFloor:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMultiply:
    case HloOpcode::kNegate:
    case HloOpcode::kPower:
    case HloOpcode::kRemainder:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSign:
    case HloOpcode::kSin:
    case HloOpcode::kSinh:
    case HloOpcode::kSqrt:
    case HloOpcode::kSubtract:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
      return true;
    default:
      return false;
  }
}

// The narrow float type `instr` computes in, or PRIMITIVE_TYPE_INVALID when
// it is not an operation this pass widens. Every float operand must have
// that type (select's predicate is the one non-float operand allowed).
PrimitiveType NarrowType(const HloInstruction* instr) {
  const bool is_select = instr->opcode() == HloOpcode::kSelect;
  if (!IsArithmetic(instr->opcode()) && !is_select) {
    return PRIMITIVE_TYPE_INVALID;
  }
  if (instr->shape().IsTuple() || instr->operand_count() == 0) {
    return PRIMITIVE_TYPE_INVALID;
  }
  const int first_value = is_select ? 1 : 0;
  const PrimitiveType type =
      instr->operand(first_value)->shape().element_type();
  if (!IsLowPrecisionFloat(type)) return PRIMITIVE_TYPE_INVALID;
  for (int i = first_value; i < instr->operand_count(); ++i) {
    if (instr->operand(i)->shape().element_type() != type) {
      return PRIMITIVE_TYPE_INVALID;
    }
  }
  if (instr->shape().element_type() != type) {
    return PRIMITIVE_TYPE_INVALID;
  }
  return type;
}

// A narrowing convert from f32: the value a rewritten operation produced.
bool IsNarrowedF32(const HloInstruction* instr) {
  return instr->opcode() == HloOpcode::kConvert &&
         instr->operand(0)->shape().element_type() == F32;
}

// select is exact in either precision; widening it pays only when one of
// its values comes from a rewritten operation, whose rounding then goes.
bool WidensSelect(const HloInstruction* select) {
  return IsNarrowedF32(select->operand(1)) || IsNarrowedF32(select->operand(2));
}

// Computations applied per element or per pair by another instruction
// (reducers, comparators, scatter combiners, maps): left as they are.
absl::flat_hash_set<const HloComputation*> AppliedComputations(
    const HloModule& module) {
  absl::flat_hash_set<const HloComputation*> applied;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instr : computation->instructions()) {
      switch (instr->opcode()) {
        case HloOpcode::kWhile:
        case HloOpcode::kConditional:
        case HloOpcode::kCall:
        case HloOpcode::kFusion:
          continue;  // Whole-program control flow: normalized like entry.
        default:
          for (const HloComputation* called : instr->called_computations()) {
            applied.insert(called);
          }
      }
    }
  }
  return applied;
}

}  // namespace

absl::StatusOr<bool> FloatNormalization::Run(HloModule* module) {
  const absl::flat_hash_set<const HloComputation*> applied =
      AppliedComputations(*module);
  return RewriteEach(
      module,
      [&applied](const HloComputation* computation) {
        return !applied.contains(computation);
      },
      [](const HloInstruction* instr) {
        // select goes only where a widened operand's rounding then goes:
        // its operands were rewritten before the walk reaches it.
        return NarrowType(instr) != PRIMITIVE_TYPE_INVALID &&
               (instr->opcode() != HloOpcode::kSelect || WidensSelect(instr));
      },
      "ops-widened",
      [](HloComputation* computation,
         HloInstruction* instr) -> absl::StatusOr<bool> {
        const PrimitiveType narrow = NarrowType(instr);
        HLOC_RETURN_IF_ERROR(
            WidenToF32(computation, instr,
                       [narrow](PrimitiveType t) { return t == narrow; }));
        return true;
      });
}

}  // namespace hloc

#include "passes/simplify_fp_conversions.h"

#include <vector>

#include "hlo/computation.h"

namespace hloc {
namespace {

bool IsFloatConvert(const HloInstruction* instr) {
  return instr->opcode() == HloOpcode::kConvert &&
         IsFloatingPointType(instr->shape().element_type());
}

// A link of a chain that may collapse: a convert to a float type wider
// than 8 bits. Rounding to an 8-bit float is a quantisation the program
// asks for (x.astype(f8e4m3fn).astype(f32) is how JAX code simulates fp8
// training), which excess precision must not remove; the evaluator and
// float8-normalization's per-operation roundings keep it too.
bool IsChainLink(const HloInstruction* instr) {
  return IsFloatConvert(instr) && BitWidth(instr->shape().element_type()) > 8;
}

int MantissaBits(PrimitiveType type) {
  return FloatFormatOf(type).mantissa_bits;
}

// A bf16 or f16 dot (or convolution, with `convolutions`) with a user
// that widens its result.
bool IsWidenedLowPrecisionContraction(const HloInstruction* instr,
                                      bool convolutions) {
  if (instr->opcode() != HloOpcode::kDot &&
      (!convolutions || instr->opcode() != HloOpcode::kConvolution)) {
    return false;
  }
  const PrimitiveType type = instr->shape().element_type();
  if (type != BF16 && type != F16) return false;
  for (const HloInstruction* user : instr->users()) {
    if (IsFloatConvert(user) &&
        MantissaBits(user->shape().element_type()) > MantissaBits(type)) {
      return true;
    }
  }
  return false;
}

// Step 1: contraction -> convert(contraction with an f32 result).
absl::Status UpcastContraction(HloComputation* computation,
                               HloInstruction* contraction) {
  Shape wide_shape = contraction->shape();
  wide_shape.set_element_type(F32);
  HloInstruction* wide = computation->AddInstruction(
      contraction->CloneWithNewOperands(wide_shape, contraction->operands()));
  HloInstruction* narrow =
      computation->AddInstruction(HloInstruction::CreateUnary(
          contraction->shape(), HloOpcode::kConvert, wide));
  return computation->ReplaceInstruction(contraction, narrow);
}

// Whether `narrowing` (a float convert) rounds the f32 result of a widened
// operation: a non-convert instruction whose float operands all have the
// narrow type or are converts from it. Step 1 and float-normalization leave
// exactly this shape; a value the program computed in f32 and rounded
// itself does not have it.
bool RoundsWidenedOperation(const HloInstruction* narrowing) {
  const PrimitiveType narrow = narrowing->shape().element_type();
  const HloInstruction* op = narrowing->operand(0);
  if (op->opcode() == HloOpcode::kConvert ||
      op->shape().element_type() != F32 || op->operand_count() == 0) {
    return false;
  }
  bool any_float = false;
  for (const HloInstruction* operand : op->operands()) {
    const PrimitiveType type = operand->shape().element_type();
    if (!IsFloatingPointType(type)) continue;
    any_float = true;
    const bool widened = operand->opcode() == HloOpcode::kConvert &&
                         operand->operand(0)->shape().element_type() == narrow;
    if (type != narrow && !widened) return false;
  }
  return any_float;
}

// Whether `op` is an operation float-normalization widened: an f32
// operation whose float operands are all converts from `narrow` and whose
// every user rounds its result back to `narrow`.
bool IsWidenedOperation(const HloInstruction* op, PrimitiveType narrow) {
  if (op->opcode() == HloOpcode::kConvert ||
      op->shape().element_type() != F32 || op->user_count() == 0) {
    return false;
  }
  for (const HloInstruction* operand : op->operands()) {
    if (!IsFloatingPointType(operand->shape().element_type())) continue;
    if (operand->opcode() != HloOpcode::kConvert ||
        operand->operand(0)->shape().element_type() != narrow) {
      return false;
    }
  }
  for (const HloInstruction* user : op->users()) {
    if (!IsFloatConvert(user) || user->shape().element_type() != narrow) {
      return false;
    }
  }
  return true;
}

// Whether `widening`, the end of a chain, widens a value for an operation
// float-normalization widened (rather than being a convert the program
// wrote). XLA:CPU keeps the rounding between two such operations: in
// floor(x * 10) on bf16 x the product is rounded to bf16 before the floor
// (floor(-0.800781 * 10) is -8 there, and was -9 here).
bool FeedsWidenedOperation(const HloInstruction* widening) {
  const PrimitiveType narrow = widening->operand(0)->shape().element_type();
  for (const HloInstruction* user : widening->users()) {
    if (IsWidenedOperation(user, narrow)) return true;
  }
  return false;
}

// Step 2: the start of the float convert chain that ends at `convert`, or
// nullptr when the chain is shorter than two converts (or, with
// `only_compiler_roundings`, when its first convert is not a rounding the
// compiler introduced, or when its end widens the value again for another
// widened operation: XLA:CPU removes a widened operation's rounding only
// where the program itself widens the result).
HloInstruction* ChainStart(HloInstruction* convert,
                           bool only_compiler_roundings) {
  HloInstruction* start = convert;
  HloInstruction* first = nullptr;
  int length = 0;
  while (IsChainLink(start)) {
    first = start;
    start = start->operand(0);
    ++length;
  }
  if (length < 2) return nullptr;
  if (only_compiler_roundings &&
      (!RoundsWidenedOperation(first) || FeedsWidenedOperation(convert))) {
    return nullptr;
  }
  return start;
}

}  // namespace

absl::StatusOr<bool> SimplifyFpConversions::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    bool computation_changed = false;
    for (HloInstruction* instr : computation->MakeInstructionPostOrder()) {
      if (IsWidenedLowPrecisionContraction(
              instr, contractions_ == Contractions::kDotsAndConvolutions)) {
        if (absl::Status s = UpcastContraction(computation, instr); !s.ok()) {
          return s;
        }
        Count("contractions-upcast");
        computation_changed = true;
        continue;
      }
      if (!IsChainLink(instr)) continue;
      HloInstruction* start =
          ChainStart(instr, scope_ == Scope::kCompilerRoundings);
      if (start == nullptr) continue;
      HloInstruction* replacement =
          start->shape().element_type() == instr->shape().element_type()
              ? start
              : computation->AddInstruction(HloInstruction::CreateUnary(
                    instr->shape(), HloOpcode::kConvert, start));
      if (absl::Status s = computation->ReplaceInstruction(instr, replacement);
          !s.ok()) {
        return s;
      }
      Count("convert-chains-removed");
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

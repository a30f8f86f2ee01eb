#include "passes/widen_to_f32.h"

#include <vector>

#include "hlo/primitive_type.h"

namespace hloc {
namespace {

Shape WithElementType(Shape shape, PrimitiveType type) {
  shape.set_element_type(type);
  return shape;
}

// The narrow op rounded its result to `type`: a relative error of up to
// UnitRoundoff(type). The f32 op computing it in its place may err that
// much too, which lets a code generator use a faster approximation of the
// function (backends/common/elemental_emitter.cc). A result_accuracy the
// program asked for is kept.
void AllowNarrowTypesError(HloInstruction* wide, PrimitiveType type) {
  if (!HloOpcodeTakesResultAccuracy(wide->opcode()) ||
      wide->attrs().result_accuracy) {
    return;
  }
  ResultAccuracy accuracy;
  accuracy.has_tolerance = true;
  accuracy.rtol = UnitRoundoff(type);
  wide->mutable_attrs().result_accuracy = accuracy;
}

}  // namespace

bool ComputesOnValues(HloOpcode opcode) {
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

absl::Status WidenToF32(HloComputation* computation, HloInstruction* instr,
                        absl::FunctionRef<bool(PrimitiveType)> narrow) {
  std::vector<HloInstruction*> operands;
  for (int i = 0; i < instr->operand_count(); ++i) {
    HloInstruction* operand = instr->operand(i);
    if (operand->shape().IsArray() && narrow(operand->shape().element_type())) {
      // add(x, x) widens x once.
      HloInstruction* widened = nullptr;
      for (int j = 0; j < i; ++j) {
        if (instr->operand(j) == operand) widened = operands[j];
      }
      operand = widened != nullptr
                    ? widened
                    : computation->AddInstruction(HloInstruction::CreateUnary(
                          WithElementType(operand->shape(), F32),
                          HloOpcode::kConvert, operand));
    }
    operands.push_back(operand);
  }
  if (!narrow(instr->shape().element_type())) {
    HloInstruction* wide = computation->AddInstruction(
        instr->CloneWithNewOperands(instr->shape(), operands));
    return computation->ReplaceInstruction(instr, wide);
  }
  HloInstruction* wide =
      computation->AddInstruction(instr->CloneWithNewOperands(
          WithElementType(instr->shape(), F32), operands));
  AllowNarrowTypesError(wide, instr->shape().element_type());
  HloInstruction* rounded = computation->AddInstruction(
      HloInstruction::CreateUnary(instr->shape(), HloOpcode::kConvert, wide));
  return computation->ReplaceInstruction(instr, rounded);
}

}  // namespace hloc

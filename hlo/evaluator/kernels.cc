#include "hlo/evaluator/kernels.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloc {
namespace eval {

bool UsesTotalOrder(const HloInstruction& instruction) {
  return instruction.attrs().comparison_type == ComparisonType::kTotalOrder ||
         instruction.attrs().comparison_order == ComparisonOrder::kTotal;
}

KernelAttrs KernelAttrsOf(const HloInstruction& instruction) {
  KernelAttrs attrs;
  attrs.exponent_bits = static_cast<int>(instruction.attrs().exponent_bits);
  attrs.mantissa_bits = static_cast<int>(instruction.attrs().mantissa_bits);
  return attrs;
}

absl::StatusOr<ElementwiseFn> SelectElementwiseKernel(
    HloOpcode opcode, absl::Span<const PrimitiveType> operand_types,
    PrimitiveType result_type, ComparisonDirection direction,
    bool total_order) {
  ElementwiseFn fn = nullptr;
  const size_t n = operand_types.size();
  auto all_same = [&](size_t from) {
    for (size_t i = from; i < n; ++i) {
      if (operand_types[i] != operand_types[from]) return false;
    }
    return true;
  };
  // Sub-byte results wrap to their bits: kernels of their own (select and
  // clamp only move values).
  if (IsSubByteIntegralType(result_type) && opcode != HloOpcode::kSelect &&
      opcode != HloOpcode::kClamp) {
    fn = SelectSubByteKernel(opcode, operand_types, result_type);
  } else {
    switch (opcode) {
      case HloOpcode::kConvert:
        if (n == 1) fn = SelectConvertKernel(operand_types[0], result_type);
        break;
      case HloOpcode::kCompare:
        if (n == 2 && all_same(0) && result_type == PRED) {
          fn = SelectCompareKernel(operand_types[0], direction, total_order);
        }
        break;
      case HloOpcode::kSelect:
        if (n == 3 && operand_types[0] == PRED && all_same(1) &&
            operand_types[1] == result_type) {
          fn = SelectSelectKernel(result_type);
        }
        break;
      case HloOpcode::kClamp:
        if (n == 3 && all_same(0) && operand_types[0] == result_type) {
          fn = SelectClampKernel(result_type);
        }
        break;
      default:
        if (n == 1) {
          fn = SelectUnaryKernel(opcode, operand_types[0], result_type);
        } else if (n == 2 && all_same(0)) {
          fn = SelectBinaryKernel(opcode, operand_types[0], result_type);
        }
        break;
    }
  }
  if (fn != nullptr) return fn;
  std::vector<std::string> names;
  for (PrimitiveType t : operand_types) {
    names.push_back(std::string(PrimitiveTypeName(t)));
  }
  return absl::UnimplementedError(absl::StrCat(
      "the evaluator does not support ", HloOpcodeString(opcode), " on (",
      absl::StrJoin(names, ", "), ") -> ", PrimitiveTypeName(result_type)));
}

absl::StatusOr<ElementwiseFn> SelectElementwiseKernel(
    const HloInstruction& instruction) {
  std::vector<PrimitiveType> types;
  for (const HloInstruction* operand : instruction.operands()) {
    types.push_back(operand->shape().element_type());
  }
  return SelectElementwiseKernel(
      instruction.opcode(), types, instruction.shape().element_type(),
      instruction.comparison_direction(), UsesTotalOrder(instruction));
}

}  // namespace eval
}  // namespace hloc

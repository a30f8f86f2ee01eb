#include "passes/permutation.h"

#include <algorithm>

namespace hloc {

bool IsIdentityPermutation(const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

HloInstruction* AddTranspose(HloComputation* computation,
                             HloInstruction* operand,
                             const std::vector<int64_t>& order) {
  if (IsIdentityPermutation(order)) return operand;
  std::vector<int64_t> dims;
  for (int64_t d : order) dims.push_back(operand->shape().dimensions(d));
  return computation->AddInstruction(HloInstruction::CreateTranspose(
      Shape::Array(operand->shape().element_type(), dims), operand, order));
}

bool TransposeKeepsBytes(const HloInstruction& transpose) {
  const std::vector<int64_t> in = transpose.operand(0)->shape().MinorToMajor();
  const std::vector<int64_t> out = transpose.shape().MinorToMajor();
  if (in.size() != out.size()) return false;
  for (size_t k = 0; k < out.size(); ++k) {
    if (transpose.dimensions(out[k]) != in[k]) return false;
  }
  return true;
}

void RenumberForTranspose(const std::vector<int64_t>& order,
                          std::vector<int64_t>* batch,
                          std::vector<int64_t>* contracting) {
  for (std::vector<int64_t>* dims : {batch, contracting}) {
    for (int64_t& d : *dims) {
      d = std::find(order.begin(), order.end(), d) - order.begin();
    }
  }
}

absl::Status ReplaceDotOperands(HloComputation* computation,
                                HloInstruction* dot, HloInstruction* lhs,
                                HloInstruction* rhs,
                                const DotDimensionNumbers& dnums) {
  HloInstruction* replacement = computation->AddInstruction(
      dot->CloneWithNewOperands(dot->shape(), {lhs, rhs}));
  replacement->mutable_attrs().dot_dimension_numbers = dnums;
  return computation->ReplaceInstruction(dot, replacement);
}

std::vector<int64_t> InversePermutation(const std::vector<int64_t>& order) {
  std::vector<int64_t> inverse(order.size());
  for (size_t i = 0; i < order.size(); ++i) inverse[order[i]] = i;
  return inverse;
}

}  // namespace hloc

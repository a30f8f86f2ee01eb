#include "passes/collective_layout.h"

#include <memory>
#include <vector>

#include "hlo/collectives.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "passes/permutation.h"

namespace hloc {
namespace {

Shape Permuted(const Shape& shape, const std::vector<int64_t>& order) {
  std::vector<int64_t> dims;
  for (int64_t d : order) dims.push_back(shape.dimensions(d));
  return Shape::Array(shape.element_type(), dims);
}

absl::StatusOr<bool> Rewrite(HloComputation* computation,
                             HloInstruction* instr) {
  if (instr->dimensions().size() != 1 || CollectiveDimensionIsMajor(*instr)) {
    return false;
  }
  const int64_t dim = instr->dimensions(0);
  const int64_t rank = instr->operand(0)->shape().rank();
  std::vector<int64_t> order = {dim};
  for (int64_t d = 0; d < rank; ++d) {
    if (d != dim) order.push_back(d);
  }
  std::vector<HloInstruction*> operands;
  for (HloInstruction* operand : instr->operands()) {
    if (!operand->shape().IsArray() || operand->shape().rank() != rank) {
      return false;
    }
    operands.push_back(AddTranspose(computation, operand, order));
  }
  Shape shape = instr->shape();
  if (shape.IsTuple()) {
    std::vector<Shape> elements;
    for (const Shape& element : shape.tuple_shapes()) {
      elements.push_back(Permuted(element, order));
    }
    shape = Shape::Tuple(std::move(elements));
  } else {
    shape = Permuted(shape, order);
  }
  std::unique_ptr<HloInstruction> clone =
      instr->CloneWithNewOperands(shape, operands);
  clone->mutable_attrs().dimensions = {0};
  HloInstruction* major = computation->AddInstruction(std::move(clone));
  const std::vector<int64_t> back = InversePermutation(order);
  HloInstruction* result;
  if (shape.IsTuple()) {
    std::vector<HloInstruction*> elements;
    for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size());
         ++i) {
      HloInstruction* element = computation->AddInstruction(
          HloInstruction::CreateGetTupleElement(shape.tuple_shapes(i), major,
                                                i));
      elements.push_back(AddTranspose(computation, element, back));
    }
    result = computation->AddInstruction(HloInstruction::CreateTuple(elements));
  } else {
    result = AddTranspose(computation, major, back);
  }
  HLOC_RETURN_IF_ERROR(computation->ReplaceInstruction(instr, result));
  return true;
}

}  // namespace

absl::StatusOr<bool> CollectiveLayout::Run(HloModule* module) {
  bool changed = false;
  for (HloOpcode opcode : {HloOpcode::kAllGather, HloOpcode::kReduceScatter,
                           HloOpcode::kAllToAll}) {
    HLOC_ASSIGN_OR_RETURN(
        bool rewritten,
        RewriteEach(module, opcode, "collectives-transposed", Rewrite));
    changed |= rewritten;
  }
  return changed;
}

}  // namespace hloc

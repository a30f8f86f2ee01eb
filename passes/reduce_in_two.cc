#include "passes/reduce_in_two.h"

#include <algorithm>

namespace hloc {

HloInstruction* ReduceInTwo(HloComputation* computation,
                            const HloInstruction& reduce,
                            const std::vector<HloInstruction*>& inputs,
                            const std::vector<int64_t>& first_dims,
                            const std::vector<int64_t>& second_dims) {
  const int64_t n = reduce.operand_count() / 2;
  std::vector<HloInstruction*> inits(reduce.operands().begin() + n,
                                     reduce.operands().end());
  const std::vector<int64_t>& dims = inputs[0]->shape().dimensions();
  std::vector<int64_t> partial_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (std::find(first_dims.begin(), first_dims.end(), d) ==
        first_dims.end()) {
      partial_dims.push_back(dims[d]);
    }
  }
  std::vector<Shape> partial_shapes;
  for (const HloInstruction* init : inits) {
    partial_shapes.push_back(
        Shape::Array(init->shape().element_type(), partial_dims));
  }
  std::vector<HloInstruction*> first = inputs;
  first.insert(first.end(), inits.begin(), inits.end());
  HloInstruction* partial =
      computation->AddInstruction(HloInstruction::CreateReduce(
          n == 1 ? partial_shapes[0] : Shape::Tuple(partial_shapes), first,
          first_dims, reduce.to_apply()));
  std::vector<HloInstruction*> second;
  for (int64_t k = 0; k < n; ++k) {
    second.push_back(n == 1 ? partial
                            : computation->AddInstruction(
                                  HloInstruction::CreateGetTupleElement(
                                      partial_shapes[k], partial, k)));
  }
  second.insert(second.end(), inits.begin(), inits.end());
  return computation->AddInstruction(HloInstruction::CreateReduce(
      reduce.shape(), second, second_dims, reduce.to_apply()));
}

}  // namespace hloc

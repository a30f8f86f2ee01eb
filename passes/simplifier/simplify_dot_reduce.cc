// Contractions that contract nothing: dots whose contracting dimensions all
// have size 1 (an outer product: a multiply of broadcasts), and reduces over
// dimensions of size 1 (or none).
#include <algorithm>

#include "passes/simplifier/rules.h"

namespace hloc {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// How one dot operand reaches the output once its (size-1) contracting
// dimensions are dropped: the sizes it keeps and the output dimension each
// one lands on. Output dimensions are batch, then lhs free, then rhs free.
struct DotOperandPlan {
  std::vector<int64_t> kept_sizes;
  std::vector<int64_t> output_dims;
};

std::optional<DotOperandPlan> PlanDotOperand(
    const Shape& shape, const std::vector<int64_t>& batch,
    const std::vector<int64_t>& contracting, int64_t free_offset) {
  DotOperandPlan plan;
  int64_t free_index = 0;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (Contains(contracting, d)) {
      if (shape.dimensions(d) != 1) return std::nullopt;
      continue;
    }
    auto it = std::find(batch.begin(), batch.end(), d);
    int64_t out =
        it != batch.end() ? it - batch.begin() : free_offset + free_index++;
    // Broadcast dimensions must increase; a batch dimension after a free
    // one would need a transpose as well.
    if (!plan.output_dims.empty() && out <= plan.output_dims.back()) {
      return std::nullopt;
    }
    plan.kept_sizes.push_back(shape.dimensions(d));
    plan.output_dims.push_back(out);
  }
  return plan;
}

HloInstruction* BroadcastForDot(HloInstruction* operand,
                                const DotOperandPlan& plan,
                                const Shape& dot_shape, Rewriter& rw) {
  HloInstruction* value = operand;
  if (static_cast<int64_t>(plan.kept_sizes.size()) != operand->shape().rank()) {
    value = rw.Reshape(value,
                       Shape(operand->shape().element_type(), plan.kept_sizes));
  }
  value = rw.Convert(value, dot_shape.element_type());
  return rw.Broadcast(value, dot_shape, plan.output_dims);
}

}  // namespace

// dot(a, b) whose contracting dimensions all have size 1 (or that has none)
// -> multiply(broadcast(a'), broadcast(b')), a' and b' being a and b without
// those dimensions, converted to the dot's element type. Each output element
// is then a single product, exactly what the dot computed.
HloInstruction* DotWithUnitContraction(HloInstruction* dot, Rewriter& rw) {
  const std::optional<DotDimensionNumbers>& dnums =
      dot->attrs().dot_dimension_numbers;
  if (!dnums) return nullptr;
  int64_t batch = static_cast<int64_t>(dnums->lhs_batch_dimensions.size());
  const Shape& lhs_shape = dot->operand(0)->shape();
  int64_t lhs_free =
      lhs_shape.rank() - batch -
      static_cast<int64_t>(dnums->lhs_contracting_dimensions.size());
  std::optional<DotOperandPlan> lhs =
      PlanDotOperand(lhs_shape, dnums->lhs_batch_dimensions,
                     dnums->lhs_contracting_dimensions, batch);
  std::optional<DotOperandPlan> rhs =
      PlanDotOperand(dot->operand(1)->shape(), dnums->rhs_batch_dimensions,
                     dnums->rhs_contracting_dimensions, batch + lhs_free);
  if (!lhs || !rhs) return nullptr;
  HloInstruction* a = BroadcastForDot(dot->operand(0), *lhs, dot->shape(), rw);
  HloInstruction* b = BroadcastForDot(dot->operand(1), *rhs, dot->shape(), rw);
  return rw.Binary(dot->shape(), HloOpcode::kMultiply, a, b);
}

// reduce(x, init) over dimensions that all have size 1 (or over none):
// each output element is reducer(init, one element of x). With a reducer
// that is a single binary op of its two parameters, that is
// op(broadcast(init), reshape(x)), and just reshape(x) when init is the
// op's identity (0 for add, -inf for max, ...). The reshape disappears when
// no dimension is dropped.
HloInstruction* ReduceOfUnitDimensions(HloInstruction* reduce, Rewriter& rw) {
  if (reduce->operand_count() != 2 || !reduce->shape().IsArray()) {
    return nullptr;
  }
  HloInstruction* x = reduce->operand(0);
  HloInstruction* init = reduce->operand(1);
  for (int64_t d : reduce->dimensions()) {
    if (x->shape().dimensions(d) != 1) return nullptr;
  }
  const HloComputation* reducer = reduce->to_apply();
  const HloInstruction* root = reducer->root_instruction();
  PrimitiveType type = reduce->shape().element_type();
  if (reducer->num_parameters() != 2 || root->operand_count() != 2 ||
      !root->IsElementwise() || root->shape().element_type() != type ||
      root->operand(0)->opcode() != HloOpcode::kParameter ||
      root->operand(1)->opcode() != HloOpcode::kParameter ||
      root->operand(0) == root->operand(1)) {
    return nullptr;
  }
  // Parameter 0 is the accumulator (init), parameter 1 the element.
  HloInstruction* elements = x;
  if (!x->shape().SameDimensions(reduce->shape())) {
    Shape reshaped = reduce->shape();
    reshaped.set_element_type(x->shape().element_type());
    elements = rw.Reshape(x, reshaped);
  }
  elements = rw.Convert(elements, type);
  std::optional<double> identity = IdentityElement(root->opcode(), type);
  if (identity && IsConstantValue(init, *identity)) {
    return SameShape(reduce, elements) ? elements
                                       : rw.Reshape(elements, reduce->shape());
  }
  HloInstruction* inits = reduce->shape().IsScalar()
                              ? init
                              : rw.Broadcast(init, reduce->shape(), {});
  bool init_first = root->operand(0)->parameter_number() == 0;
  auto op = root->CloneWithNewOperands(
      reduce->shape(),
      {init_first ? inits : elements, init_first ? elements : inits});
  op->SetName("");
  return rw.Add(std::move(op));
}

}  // namespace hloc

#include "passes/computation_builder.h"

#include <utility>

namespace hloc {

HloInstruction* ComputationBuilder::Add(std::unique_ptr<HloInstruction> instr) {
  return computation_->AddInstruction(std::move(instr));
}

HloInstruction* ComputationBuilder::Reshape(HloInstruction* x,
                                            std::vector<int64_t> dims) {
  if (dims == x->shape().dimensions()) return x;
  return Add(HloInstruction::CreateReshape(
      Shape::Array(x->shape().element_type(), std::move(dims)), x));
}

HloInstruction* ComputationBuilder::Bitcast(HloInstruction* x,
                                            std::vector<int64_t> dims) {
  // Of the first array, never a chain: fusion would make a chain of
  // bitcasts a copy kernel.
  while (x->opcode() == HloOpcode::kBitcast) x = x->operand(0);
  if (dims == x->shape().dimensions()) return x;
  return Add(HloInstruction::Create(
      HloOpcode::kBitcast,
      Shape::Array(x->shape().element_type(), std::move(dims)), {x}));
}

HloInstruction* ComputationBuilder::Transpose(
    HloInstruction* x, const std::vector<int64_t>& perm) {
  bool identity = true;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < perm.size(); ++i) {
    identity = identity && perm[i] == static_cast<int64_t>(i);
    dims.push_back(x->shape().dimensions(perm[i]));
  }
  if (identity) return x;
  return Add(HloInstruction::CreateTranspose(
      Shape::Array(x->shape().element_type(), std::move(dims)), x, perm));
}

HloInstruction* ComputationBuilder::Slice(HloInstruction* x,
                                          std::vector<int64_t> starts,
                                          std::vector<int64_t> limits) {
  std::vector<int64_t> dims;
  for (size_t i = 0; i < starts.size(); ++i) {
    dims.push_back(limits[i] - starts[i]);
  }
  HloInstruction* slice = Add(HloInstruction::Create(
      HloOpcode::kSlice, Shape::Array(x->shape().element_type(), dims), {x}));
  HloAttributes& attrs = slice->mutable_attrs();
  attrs.slice_starts = std::move(starts);
  attrs.slice_limits = std::move(limits);
  attrs.slice_strides.assign(dims.size(), 1);
  return slice;
}

HloInstruction* ComputationBuilder::Concatenate(HloInstruction* a,
                                                HloInstruction* b,
                                                int64_t dim) {
  std::vector<int64_t> dims = a->shape().dimensions();
  dims[dim] += b->shape().dimensions(dim);
  HloInstruction* concat = Add(HloInstruction::Create(
      HloOpcode::kConcatenate, Shape::Array(a->shape().element_type(), dims),
      {a, b}));
  concat->mutable_attrs().dimensions = {dim};
  return concat;
}

HloInstruction* ComputationBuilder::Reverse(HloInstruction* x, int64_t dim) {
  HloInstruction* reverse = Add(HloInstruction::Create(
      HloOpcode::kReverse,
      Shape::Array(x->shape().element_type(), x->shape().dimensions()), {x}));
  reverse->mutable_attrs().dimensions = {dim};
  return reverse;
}

HloInstruction* ComputationBuilder::PadRows(
    HloInstruction* x, int64_t length,
    const std::function<HloInstruction*()>& value) {
  const Shape& shape = x->shape();
  if (shape.dimensions(1) == length) return x;
  HloInstruction* pad = Add(HloInstruction::Create(
      HloOpcode::kPad,
      Shape::Array(shape.element_type(), {shape.dimensions(0), length}),
      {x, value()}));
  PaddingConfig config;
  config.dimensions.resize(2);
  config.dimensions[1].edge_padding_high = length - shape.dimensions(1);
  pad->mutable_attrs().padding_config = config;
  return pad;
}

HloInstruction* ComputationBuilder::Iota(PrimitiveType type,
                                         std::vector<int64_t> dims,
                                         int64_t dim) {
  HloInstruction* iota = Add(HloInstruction::Create(
      HloOpcode::kIota, Shape::Array(type, std::move(dims)), {}));
  iota->mutable_attrs().iota_dimension = dim;
  return iota;
}

HloInstruction* ComputationBuilder::Constant(Literal value) {
  return Add(HloInstruction::CreateConstant(std::move(value)));
}

HloInstruction* ComputationBuilder::Splat(Literal value,
                                          const std::vector<int64_t>& dims) {
  const PrimitiveType type = value.shape().element_type();
  HloInstruction* scalar = Constant(std::move(value));
  if (dims.empty()) return scalar;
  return Add(
      HloInstruction::CreateBroadcast(Shape::Array(type, dims), scalar, {}));
}

HloInstruction* ComputationBuilder::Compare(HloInstruction* a,
                                            HloInstruction* b,
                                            ComparisonDirection direction) {
  return Add(HloInstruction::CreateCompare(
      Shape::Array(PRED, a->shape().dimensions()), a, b, direction));
}

HloInstruction* ComputationBuilder::Binary(HloOpcode opcode, HloInstruction* a,
                                           HloInstruction* b) {
  return Add(HloInstruction::CreateBinary(a->shape(), opcode, a, b));
}

HloInstruction* ComputationBuilder::Not(HloInstruction* a) {
  return Add(HloInstruction::CreateUnary(a->shape(), HloOpcode::kNot, a));
}

HloInstruction* ComputationBuilder::Select(HloInstruction* pred,
                                           HloInstruction* on_true,
                                           HloInstruction* on_false) {
  return Add(HloInstruction::Create(HloOpcode::kSelect, on_true->shape(),
                                    {pred, on_true, on_false}));
}

HloInstruction* ComputationBuilder::Element(HloInstruction* tuple, int64_t i) {
  return Add(HloInstruction::CreateGetTupleElement(
      tuple->shape().tuple_shapes(i), tuple, i));
}

}  // namespace hloc

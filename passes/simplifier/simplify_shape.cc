// Reshape, transpose and broadcast: no-ops, chains that compose into one op,
// and the broadcast/reshape round trips JAX emits for broadcast_in_dim, e.g.
//   r = f32[128,1] reshape(f32[128] x)
//   b = f32[128,1] broadcast(r), dimensions={0,1}      (no-op)
//   s = f32[128]   reshape(b)                           (undoes r)
//   y = f32[128,1000] broadcast(s), dimensions={0}
// which collapses to y = broadcast(x), dimensions={0}.
#include "passes/permutation.h"
#include "passes/simplifier/rules.h"

namespace hloc {

// reshape(x) -> x when the shape (layout included) does not change.
HloInstruction* ReshapeNoop(HloInstruction* reshape, Rewriter&) {
  HloInstruction* x = reshape->operand(0);
  return SameShape(reshape, x) ? x : nullptr;
}

// reshape(reshape(x)) -> reshape(x), or x when that gives x's shape back.
HloInstruction* ReshapeOfReshape(HloInstruction* reshape, Rewriter& rw) {
  HloInstruction* inner = reshape->operand(0);
  if (inner->opcode() != HloOpcode::kReshape) return nullptr;
  HloInstruction* x = inner->operand(0);
  if (SameShape(reshape, x)) return x;
  return rw.Reshape(x, reshape->shape());
}

// transpose(x) -> x for the identity permutation.
HloInstruction* TransposeNoop(HloInstruction* transpose, Rewriter&) {
  HloInstruction* x = transpose->operand(0);
  return IsIdentityPermutation(transpose->dimensions()) &&
                 SameShape(transpose, x)
             ? x
             : nullptr;
}

// transpose(transpose(x, p), q) -> transpose(x, r) with r[i] = p[q[i]], or x
// when r is the identity.
HloInstruction* TransposeOfTranspose(HloInstruction* transpose, Rewriter& rw) {
  HloInstruction* inner = transpose->operand(0);
  if (inner->opcode() != HloOpcode::kTranspose) return nullptr;
  HloInstruction* x = inner->operand(0);
  std::vector<int64_t> composed;
  for (int64_t q : transpose->dimensions()) {
    composed.push_back(inner->dimensions(q));
  }
  if (IsIdentityPermutation(composed) && SameShape(transpose, x)) return x;
  return rw.Transpose(x, transpose->shape(), composed);
}

// A transpose that only moves size-1 dimensions keeps the row-major order
// of the elements: it is a reshape.
HloInstruction* TransposeIsReshape(HloInstruction* transpose, Rewriter& rw) {
  const Shape& x = transpose->operand(0)->shape();
  int64_t last = -1;
  for (int64_t d : transpose->dimensions()) {
    if (x.dimensions(d) == 1) continue;
    if (d < last) return nullptr;
    last = d;
  }
  if (IsIdentityPermutation(transpose->dimensions())) return nullptr;
  return rw.Reshape(transpose->operand(0), transpose->shape());
}

// Layout-sensitive mode: a reshape between two row-major (descending)
// layouts moves no data: bitcast.
HloInstruction* ReshapeIsBitcast(HloInstruction* reshape, Rewriter& rw) {
  HloInstruction* x = reshape->operand(0);
  if (!rw.options().enable_bitcasts || !x->shape().HasDescendingLayout() ||
      !reshape->shape().HasDescendingLayout()) {
    return nullptr;
  }
  return rw.Add(
      HloInstruction::Create(HloOpcode::kBitcast, reshape->shape(), {x}));
}

// Layout-sensitive mode: a transpose whose result layout lists the operand's
// physical dimensions in the operand's own order moves no data: bitcast.
HloInstruction* TransposeIsBitcast(HloInstruction* transpose, Rewriter& rw) {
  HloInstruction* x = transpose->operand(0);
  if (!rw.options().enable_bitcasts || !TransposeKeepsBytes(*transpose)) {
    return nullptr;
  }
  return rw.Add(
      HloInstruction::Create(HloOpcode::kBitcast, transpose->shape(), {x}));
}

// broadcast(x) -> x when it maps every dimension onto itself.
HloInstruction* BroadcastNoop(HloInstruction* broadcast, Rewriter&) {
  HloInstruction* x = broadcast->operand(0);
  return IsIdentityPermutation(broadcast->dimensions()) &&
                 SameShape(broadcast, x)
             ? x
             : nullptr;
}

// broadcast(broadcast(x, d1), d2) -> broadcast(x, d) with d[i] = d2[d1[i]].
HloInstruction* BroadcastOfBroadcast(HloInstruction* broadcast, Rewriter& rw) {
  HloInstruction* inner = broadcast->operand(0);
  if (inner->opcode() != HloOpcode::kBroadcast) return nullptr;
  std::vector<int64_t> composed;
  for (int64_t d : inner->dimensions()) {
    composed.push_back(broadcast->dimensions(d));
  }
  return rw.Broadcast(inner->operand(0), broadcast->shape(), composed);
}

// broadcast(reshape(x)) where the reshape only inserts or deletes size-1
// dimensions, none of x's being deleted ->
// broadcast(x), each dimension of x going where its reshaped copy went.
HloInstruction* BroadcastOfDegenerateReshape(HloInstruction* broadcast,
                                             Rewriter& rw) {
  HloInstruction* reshape = broadcast->operand(0);
  if (reshape->opcode() != HloOpcode::kReshape) return nullptr;
  HloInstruction* x = reshape->operand(0);
  std::optional<std::vector<int64_t>> mapping =
      DegenerateDimsMapping(x->shape(), reshape->shape());
  if (!mapping) return nullptr;
  std::vector<int64_t> dims;
  for (int64_t position : *mapping) {
    if (position < 0) return nullptr;  // x's dimension would have no place.
    dims.push_back(broadcast->dimensions(position));
  }
  return rw.Broadcast(x, broadcast->shape(), dims);
}

// reshape(broadcast(x)) where the reshape only inserts or deletes size-1
// dimensions that x does not occupy -> broadcast(x) into the new shape:
//   f32[1,128,512] broadcast(f32[512] x), dimensions={2}
//   f32[128,512] reshape(...)      ->   f32[128,512] broadcast(x), dimensions={1}
HloInstruction* ReshapeOfDegenerateBroadcast(HloInstruction* reshape,
                                             Rewriter& rw) {
  HloInstruction* broadcast = reshape->operand(0);
  if (broadcast->opcode() != HloOpcode::kBroadcast) return nullptr;
  std::optional<std::vector<int64_t>> mapping =
      DegenerateDimsMapping(broadcast->shape(), reshape->shape());
  if (!mapping) return nullptr;
  std::vector<int64_t> dims;
  for (int64_t d : broadcast->dimensions()) {
    if ((*mapping)[d] < 0) return nullptr;
    dims.push_back((*mapping)[d]);
  }
  return rw.Broadcast(broadcast->operand(0), reshape->shape(), dims);
}

// reshape / transpose / slice / reverse of broadcast(scalar) ->
// broadcast(scalar) to the new shape: every element is the same value.
HloInstruction* ScalarBroadcastThroughShapeOp(HloInstruction* op,
                                              Rewriter& rw) {
  HloInstruction* broadcast = op->operand(0);
  if (!IsScalarBroadcast(broadcast)) return nullptr;
  return rw.Broadcast(broadcast->operand(0), op->shape(), {});
}

// An elementwise op all of whose operands are broadcasts of scalars ->
// broadcast of the op on the scalars: one evaluation instead of one per
// element, and constant operands become foldable.
HloInstruction* ElementwiseOfScalarBroadcasts(HloInstruction* op,
                                              Rewriter& rw) {
  if (!op->IsElementwise() || op->opcode() == HloOpcode::kFusion ||
      op->operand_count() == 0 || op->shape().IsScalar()) {
    return nullptr;
  }
  std::vector<HloInstruction*> scalars;
  for (HloInstruction* operand : op->operands()) {
    if (!IsScalarBroadcast(operand)) return nullptr;
    scalars.push_back(operand->operand(0));
  }
  auto scalar_op = op->CloneWithNewOperands(
      Shape::Scalar(op->shape().element_type()), scalars);
  scalar_op->SetName("");
  return rw.Broadcast(rw.Add(std::move(scalar_op)), op->shape(), {});
}

// get-dimension-size(x), dimensions={d} -> the constant size of d when d
// is static (as XLA's dynamic padder folds it): a static shape's size is
// known here, so no backend has to emit the op. A dynamic dimension's size
// is only known at run time and stays.
HloInstruction* GetDimensionSizeStatic(HloInstruction* get_size,
                                       Rewriter& rw) {
  const Shape& x = get_size->operand(0)->shape();
  const int64_t d =
      get_size->dimensions().empty() ? 0 : get_size->dimensions(0);
  if (!x.IsArray() || d < 0 || d >= x.rank() || x.is_dynamic_dimension(d)) {
    return nullptr;
  }
  Literal size(get_size->shape());
  size.SetFromInt64(0, x.dimensions(d));
  return rw.Add(HloInstruction::CreateConstant(std::move(size)));
}

}  // namespace hloc

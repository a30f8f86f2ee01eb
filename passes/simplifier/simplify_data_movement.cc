// Slice, concatenate, pad, reverse and copy that move nothing, and chains of
// them that compose into one.
#include <algorithm>
#include <set>

#include "passes/simplifier/rules.h"

namespace hloc {

// slice(x) -> x when it takes every element with stride 1.
HloInstruction* SliceNoop(HloInstruction* slice, Rewriter&) {
  HloInstruction* x = slice->operand(0);
  const HloAttributes& attrs = slice->attrs();
  for (int64_t d = 0; d < x->shape().rank(); ++d) {
    if (attrs.slice_starts[d] != 0 || attrs.slice_strides[d] != 1 ||
        attrs.slice_limits[d] != x->shape().dimensions(d)) {
      return nullptr;
    }
  }
  return SameShape(slice, x) ? x : nullptr;
}

// slice(slice(x)) -> slice(x): start = s1 + s2 * t1, stride = t1 * t2, and
// the limit just past the last element taken.
HloInstruction* SliceOfSlice(HloInstruction* slice, Rewriter& rw) {
  HloInstruction* inner = slice->operand(0);
  if (inner->opcode() != HloOpcode::kSlice) return nullptr;
  const HloAttributes& outer_attrs = slice->attrs();
  const HloAttributes& inner_attrs = inner->attrs();
  auto combined = HloInstruction::Create(HloOpcode::kSlice, slice->shape(),
                                         {inner->operand(0)});
  HloAttributes& attrs = combined->mutable_attrs();
  for (int64_t d = 0; d < slice->shape().rank(); ++d) {
    int64_t stride =
        inner_attrs.slice_strides[d] * outer_attrs.slice_strides[d];
    int64_t start = inner_attrs.slice_starts[d] +
                    outer_attrs.slice_starts[d] * inner_attrs.slice_strides[d];
    int64_t count = slice->shape().dimensions(d);
    // An empty outer slice may start past the inner one's last element,
    // so the composed start can pass the end of x; any in-bounds start
    // takes the same nothing.
    if (count == 0) {
      start = std::min(start, inner->operand(0)->shape().dimensions(d));
    }
    attrs.slice_starts.push_back(start);
    attrs.slice_strides.push_back(stride);
    attrs.slice_limits.push_back(count == 0 ? start
                                            : start + (count - 1) * stride + 1);
  }
  return rw.Add(std::move(combined));
}

// concatenate(x) -> x.
HloInstruction* ConcatenateSingleOperand(HloInstruction* concat, Rewriter&) {
  if (concat->operand_count() != 1) return nullptr;
  HloInstruction* x = concat->operand(0);
  return SameShape(concat, x) ? x : nullptr;
}

// concatenate(a, empty, b) -> concatenate(a, b): operands with no elements
// along the concatenated dimension contribute nothing.
HloInstruction* ConcatenateDropEmpty(HloInstruction* concat, Rewriter& rw) {
  int64_t dim = concat->dimensions(0);
  std::vector<HloInstruction*> kept;
  for (HloInstruction* operand : concat->operands()) {
    if (operand->shape().dimensions(dim) != 0) kept.push_back(operand);
  }
  if (kept.empty() || kept.size() == concat->operands().size()) return nullptr;
  if (kept.size() == 1 && SameShape(concat, kept[0])) return kept[0];
  auto shorter = concat->CloneWithNewOperands(concat->shape(), kept);
  shorter->SetName("");
  return rw.Add(std::move(shorter));
}

// pad(x, v) -> x when no dimension is padded.
HloInstruction* PadNoPadding(HloInstruction* pad, Rewriter&) {
  const std::optional<PaddingConfig>& config = pad->attrs().padding_config;
  if (!config) return nullptr;
  for (const PaddingDimension& d : config->dimensions) {
    if (d.edge_padding_low != 0 || d.edge_padding_high != 0 ||
        d.interior_padding != 0) {
      return nullptr;
    }
  }
  HloInstruction* x = pad->operand(0);
  return SameShape(pad, x) ? x : nullptr;
}

// reverse(x) -> x when every reversed dimension has at most one element.
HloInstruction* ReverseNoop(HloInstruction* reverse, Rewriter&) {
  HloInstruction* x = reverse->operand(0);
  for (int64_t d : reverse->dimensions()) {
    if (x->shape().dimensions(d) > 1) return nullptr;
  }
  return SameShape(reverse, x) ? x : nullptr;
}

// reverse(reverse(x, d), d) -> x.
HloInstruction* ReverseOfReverse(HloInstruction* reverse, Rewriter&) {
  HloInstruction* inner = reverse->operand(0);
  if (inner->opcode() != HloOpcode::kReverse) return nullptr;
  std::set<int64_t> outer_dims(reverse->dimensions().begin(),
                               reverse->dimensions().end());
  std::set<int64_t> inner_dims(inner->dimensions().begin(),
                               inner->dimensions().end());
  HloInstruction* x = inner->operand(0);
  return outer_dims == inner_dims && SameShape(reverse, x) ? x : nullptr;
}

// copy(x) -> x when the layout does not change.
HloInstruction* CopyNoop(HloInstruction* copy, Rewriter&) {
  HloInstruction* x = copy->operand(0);
  return SameShape(copy, x) ? x : nullptr;
}

}  // namespace hloc

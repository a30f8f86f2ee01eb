#include "passes/topk_splitter.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include "hlo/computation.h"
#include "hlo/math_util.h"
#include "passes/computation_builder.h"
#include "passes/topk_expander.h"

namespace hloc {
namespace {

// The bits of the value topk orders after every other: for largest, the
// least in the total order (floats: the negative NaN with every bit set;
// integers: their minimum), else the greatest (the positive NaN with every
// bit set, the maximum).
Literal LastInTopKOrderBits(PrimitiveType type, bool largest) {
  Literal value(Shape::Scalar(type));
  const int64_t bytes = ByteWidth(type);
  uint8_t* p = value.untyped_data();  // Little endian: p[bytes - 1] is top.
  if (type == PRED) {
    p[0] = largest ? 0 : 1;
  } else if (IsUnsignedIntegralType(type)) {
    std::memset(p, largest ? 0x00 : 0xFF, bytes);
  } else if (largest && IsFloatingPointType(type)) {
    std::memset(p, 0xFF, bytes);
  } else if (largest) {
    std::memset(p, 0x00, bytes);
    p[bytes - 1] = 0x80;
  } else {
    std::memset(p, 0xFF, bytes);
    p[bytes - 1] = 0x7F;
  }
  return value;
}

PrimitiveType UnsignedOfWidth(int64_t bytes) {
  switch (bytes) {
    case 1:
      return U8;
    case 2:
      return U16;
    case 4:
      return U32;
    default:
      return U64;
  }
}

// The shared builder, and topk's own pieces.
class Builder : public ComputationBuilder {
 public:
  using ComputationBuilder::ComputationBuilder;

  // A float NaN constant prints without its payload, so floats are made
  // from the unsigned integer of their bits, which keeps every bit.
  HloInstruction* LastInTopKOrder(PrimitiveType type, bool largest) {
    if (!IsFloatingPointType(type)) {
      return Constant(LastInTopKOrderBits(type, largest));
    }
    Literal bits = LastInTopKOrderBits(type, largest);
    Literal as_unsigned(Shape::Scalar(UnsignedOfWidth(ByteWidth(type))));
    std::memcpy(as_unsigned.untyped_data(), bits.untyped_data(),
                ByteWidth(type));
    return Add(HloInstruction::CreateUnary(Shape::Scalar(type),
                                           HloOpcode::kBitcastConvert,
                                           Constant(std::move(as_unsigned))));
  }

  // indices [rows, k] of chunks of `chunk` elements, rows = B * chunks,
  // made indices into the whole row: plus chunk * (row % chunks).
  HloInstruction* AddChunkOffsets(HloInstruction* indices, int64_t batch,
                                  int64_t chunks, int64_t chunk) {
    const int64_t k = indices->shape().dimensions(1);
    HloInstruction* iota = Iota(S32, {batch, chunks, k}, 1);
    HloInstruction* offsets = Binary(
        HloOpcode::kMultiply, iota,
        Splat(Literal::CreateR0<int32_t>(S32, static_cast<int32_t>(chunk)),
              {batch, chunks, k}));
    return Binary(HloOpcode::kAdd, Reshape(indices, {batch, chunks, k}),
                  offsets);
  }
};

absl::StatusOr<bool> Split(HloComputation* computation, HloInstruction* topk,
                           int64_t max_row_length) {
  const Shape& shape = topk->operand(0)->shape();
  if (!shape.IsArray() || shape.rank() == 0 ||
      !TopKOrderSupported(shape.element_type())) {
    return false;
  }
  const int64_t n = shape.dimensions().back();
  const int64_t k = topk->attrs().k;
  if (n <= max_row_length || k < 1 || 2 * k > max_row_length ||
      n > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  const PrimitiveType type = shape.element_type();
  const bool largest = topk->attrs().largest;
  const int64_t batch = shape.ElementCount() / n;
  // As few chunks as fit the limit, of equal length (the least padding).
  const int64_t chunks = CeilOfRatio(n, max_row_length);
  const int64_t chunk = CeilOfRatio(n, chunks);
  Builder b(computation);
  auto last = [&] { return b.LastInTopKOrder(type, largest); };

  HloInstruction* rows =
      b.PadRows(b.Reshape(topk->operand(0), {batch, n}), chunks * chunk, last);
  HloInstruction* chunk_topk =
      computation->AddInstruction(HloInstruction::Create(
          HloOpcode::kTopK,
          Shape::Tuple({Shape::Array(type, {batch * chunks, k}),
                        Shape::Array(S32, {batch * chunks, k})}),
          {b.Reshape(rows, {batch * chunks, chunk})}));
  chunk_topk->mutable_attrs().k = k;
  chunk_topk->mutable_attrs().largest = largest;
  chunk_topk->mutable_attrs().is_stable = true;
  TopKValues candidates{
      b.Reshape(b.Element(chunk_topk, 0), {batch, chunks * k}),
      b.Reshape(
          b.AddChunkOffsets(b.Element(chunk_topk, 1), batch, chunks, chunk),
          {batch, chunks * k})};

  // Merge `count` runs of k candidates until one sort takes them all.
  int64_t count = chunks;
  while (count * k > max_row_length) {
    const int64_t groups = CeilOfRatio(count, max_row_length / k);
    const int64_t group = CeilOfRatio(count, groups);
    const int64_t length = groups * group * k;
    HloInstruction* values = b.PadRows(candidates.values, length, last);
    HloInstruction* indices = b.PadRows(candidates.indices, length, [&] {
      return b.Constant(
          Literal::CreateR0<int32_t>(S32, std::numeric_limits<int32_t>::max()));
    });
    TopKValues merged =
        SortedTopK(computation,
                   {b.Reshape(values, {batch * groups, group * k}),
                    b.Reshape(indices, {batch * groups, group * k})},
                   k, largest);
    candidates = {b.Reshape(merged.values, {batch, groups * k}),
                  b.Reshape(merged.indices, {batch, groups * k})};
    count = groups;
  }
  TopKValues top = SortedTopK(computation, candidates, k, largest);

  std::vector<int64_t> dims = shape.dimensions();
  dims.back() = k;
  HloInstruction* tuple =
      computation->AddInstruction(HloInstruction::CreateTuple(
          {b.Reshape(top.values, dims), b.Reshape(top.indices, dims)}));
  if (absl::Status s = computation->ReplaceInstruction(topk, tuple); !s.ok()) {
    return s;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> TopKSplitter::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kTopK, "topks-split",
                     [&](HloComputation* computation, HloInstruction* instr) {
                       return Split(computation, instr, max_row_length_);
                     });
}

}  // namespace hloc

// Shape and data-movement instructions. Each is one or a few CopyStrided
// calls over untyped elements: the element type never matters here.
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/kernels.h"
#include "hlo/evaluator/strided_copy.h"

namespace hloc {
namespace eval {
namespace {

int64_t Width(const Shape& shape) { return ByteWidth(shape.element_type()); }

// Moves `value` (which has the right element count) to `shape`.
Literal WithShape(Literal value, const Shape& shape) {
  *value.mutable_shape_do_not_use() = shape;
  return value;
}

// Logical elements of `value` (dims `dims`) rearranged into the order of its
// physical buffer under minor_to_major `m2m`.
Literal ToPhysical(const Literal& value, const std::vector<int64_t>& dims,
                   const std::vector<int64_t>& m2m, PrimitiveType type) {
  const int64_t rank = dims.size();
  std::vector<int64_t> phys_dims(rank), src_strides(rank);
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = m2m[rank - 1 - i];
    phys_dims[i] = dims[d];
    src_strides[i] = strides[d];
  }
  Literal out(Shape::Array(type, phys_dims));
  CopyStrided(phys_dims, value.untyped_data(), 0, src_strides,
              out.untyped_data(), 0, RowMajorStrides(phys_dims),
              ByteWidth(type));
  return out;
}

absl::StatusOr<std::vector<int64_t>> StartIndices(const HloInstruction& instr,
                                                  OperandValues& operands,
                                                  int64_t first, int64_t rank) {
  std::vector<int64_t> starts(rank, 0);
  const int64_t count = instr.operand_count() - first;
  if (count == 1 && instr.operand(first)->shape().rank() == 1 &&
      instr.operand(first)->shape().dimensions(0) == rank) {
    for (int64_t d = 0; d < rank; ++d) {
      starts[d] = IndexValue(operands.Get(first), d);
    }
    return starts;
  }
  if (count != rank) {
    return InstructionError(instr, "wrong number of start indices");
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (operands.Get(first + d).element_count() != 1) {
      return InstructionError(instr, "start indices must be scalars");
    }
    starts[d] = IndexValue(operands.Get(first + d), 0);
  }
  return starts;
}

// The element-preserving ops: the result has the operand's element type.
absl::Status CheckSameType(const HloInstruction& instr) {
  if (!instr.shape().IsArray() || instr.operand(0)->shape().element_type() !=
                                      instr.shape().element_type()) {
    return InstructionError(instr, "result type differs from the operand's");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> EvaluateBroadcast(const HloInstruction& instr,
                                          OperandValues& operands) {
  if (absl::Status st = CheckSameType(instr); !st.ok()) return st;
  const Shape& shape = instr.shape();
  const Literal& operand = operands.Get(0);
  const Shape& op_shape = instr.operand(0)->shape();
  const std::vector<int64_t>& dims = instr.dimensions();
  if (static_cast<int64_t>(dims.size()) != op_shape.rank()) {
    if (operand.element_count() == 1) return BroadcastScalar(operand, shape);
    return InstructionError(instr, "broadcast dimensions do not match operand");
  }
  const std::vector<int64_t> op_strides =
      RowMajorStrides(op_shape.dimensions());
  std::vector<int64_t> src_strides(shape.rank(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= shape.rank() ||
        shape.dimensions(dims[i]) != op_shape.dimensions(i)) {
      return InstructionError(instr, "bad broadcast dimension");
    }
    src_strides[dims[i]] = op_strides[i];
  }
  Literal out(shape);
  CopyStrided(shape.dimensions(), operand.untyped_data(), 0, src_strides,
              out.untyped_data(), 0, RowMajorStrides(shape.dimensions()),
              Width(shape));
  return out;
}

absl::StatusOr<Literal> EvaluateReshape(const HloInstruction& instr,
                                        OperandValues& operands) {
  if (operands.Get(0).element_count() != instr.shape().ElementCount()) {
    return InstructionError(instr, "reshape changes the element count");
  }
  return WithShape(operands.TakeOrCopy(0), instr.shape());
}

absl::StatusOr<Literal> EvaluateBitcast(const HloInstruction& instr,
                                        OperandValues& operands) {
  const Shape& shape = instr.shape();
  const Shape& op_shape = instr.operand(0)->shape();
  if (op_shape.ElementCount() * Width(op_shape) !=
      shape.ElementCount() * Width(shape)) {
    return InstructionError(instr, "bitcast changes the byte size");
  }
  if (op_shape.HasDescendingLayout() && shape.HasDescendingLayout()) {
    return WithShape(operands.TakeOrCopy(0), shape);
  }
  if (Width(op_shape) != Width(shape)) {
    return InstructionError(instr,
                            "bitcast between element widths needs row-major "
                            "layouts");
  }
  if (op_shape.MinorToMajor().size() != static_cast<size_t>(op_shape.rank()) ||
      shape.MinorToMajor().size() != static_cast<size_t>(shape.rank()) ||
      !ValidDimensions(op_shape.MinorToMajor(), op_shape.rank()) ||
      !ValidDimensions(shape.MinorToMajor(), shape.rank())) {
    return InstructionError(instr, "bitcast with an invalid layout");
  }
  // The physical buffer of the operand, read back under the result layout.
  Literal physical =
      ToPhysical(operands.Get(0), op_shape.dimensions(),
                 op_shape.MinorToMajor(), op_shape.element_type());
  const std::vector<int64_t> m2m = shape.MinorToMajor();
  const int64_t rank = shape.rank();
  std::vector<int64_t> phys_dims(rank);
  for (int64_t i = 0; i < rank; ++i)
    phys_dims[i] = shape.dimensions(m2m[rank - 1 - i]);
  const std::vector<int64_t> phys_strides = RowMajorStrides(phys_dims);
  std::vector<int64_t> src_strides(rank);
  for (int64_t i = 0; i < rank; ++i)
    src_strides[m2m[rank - 1 - i]] = phys_strides[i];
  Literal out(shape);
  CopyStrided(shape.dimensions(), physical.untyped_data(), 0, src_strides,
              out.untyped_data(), 0, RowMajorStrides(shape.dimensions()),
              Width(shape));
  return out;
}

absl::StatusOr<Literal> EvaluateBitcastConvert(const HloInstruction& instr,
                                               OperandValues& operands) {
  const Literal& operand = operands.Get(0);
  Literal out(instr.shape());
  if (out.size_bytes() != operand.size_bytes()) {
    return InstructionError(instr, "bitcast-convert changes the byte size");
  }
  std::memcpy(out.untyped_data(), operand.untyped_data(), out.size_bytes());
  return out;
}

absl::StatusOr<Literal> EvaluateTranspose(const HloInstruction& instr,
                                          OperandValues& operands) {
  if (absl::Status st = CheckSameType(instr); !st.ok()) return st;
  const Shape& shape = instr.shape();
  const Shape& op_shape = instr.operand(0)->shape();
  const std::vector<int64_t>& perm = instr.dimensions();
  if (static_cast<int64_t>(perm.size()) != shape.rank() ||
      op_shape.rank() != shape.rank() || !ValidDimensions(perm, shape.rank())) {
    return InstructionError(instr, "transpose needs a permutation");
  }
  const std::vector<int64_t> op_strides =
      RowMajorStrides(op_shape.dimensions());
  std::vector<int64_t> src_strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    if (shape.dimensions(i) != op_shape.dimensions(perm[i])) {
      return InstructionError(instr, "transpose result has the wrong shape");
    }
    src_strides[i] = op_strides[perm[i]];
  }
  Literal out(shape);
  CopyStrided(shape.dimensions(), operands.Get(0).untyped_data(), 0,
              src_strides, out.untyped_data(), 0,
              RowMajorStrides(shape.dimensions()), Width(shape));
  return out;
}

absl::StatusOr<Literal> EvaluateSlice(const HloInstruction& instr,
                                      OperandValues& operands) {
  if (absl::Status st = CheckSameType(instr); !st.ok()) return st;
  const Shape& shape = instr.shape();
  const Shape& op_shape = instr.operand(0)->shape();
  const auto& starts = instr.attrs().slice_starts;
  const auto& steps = instr.attrs().slice_strides;
  const int64_t rank = op_shape.rank();
  if (static_cast<int64_t>(starts.size()) != rank || shape.rank() != rank ||
      (!steps.empty() && static_cast<int64_t>(steps.size()) != rank)) {
    return InstructionError(instr, "slice needs a start per dimension");
  }
  const std::vector<int64_t> op_strides =
      RowMajorStrides(op_shape.dimensions());
  int64_t offset = 0;
  std::vector<int64_t> src_strides(rank);
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t step = steps.empty() ? 1 : steps[d];
    if (starts[d] < 0 || step <= 0 ||
        (shape.dimensions(d) > 0 &&
         starts[d] + (shape.dimensions(d) - 1) * step >=
             op_shape.dimensions(d))) {
      return InstructionError(instr, "slice out of bounds");
    }
    offset += starts[d] * op_strides[d];
    src_strides[d] = op_strides[d] * step;
  }
  Literal out(shape);
  CopyStrided(shape.dimensions(), operands.Get(0).untyped_data(), offset,
              src_strides, out.untyped_data(), 0,
              RowMajorStrides(shape.dimensions()), Width(shape));
  return out;
}

absl::StatusOr<Literal> EvaluateDynamicSlice(const HloInstruction& instr,
                                             OperandValues& operands) {
  if (absl::Status st = CheckSameType(instr); !st.ok()) return st;
  const Shape& shape = instr.shape();
  const Shape& op_shape = instr.operand(0)->shape();
  const int64_t rank = op_shape.rank();
  if (shape.rank() != rank || instr.operand_count() < 2) {
    return InstructionError(instr, "dynamic-slice changes the rank");
  }
  absl::StatusOr<std::vector<int64_t>> starts =
      StartIndices(instr, operands, 1, rank);
  if (!starts.ok()) return starts.status();
  const std::vector<int64_t> op_strides =
      RowMajorStrides(op_shape.dimensions());
  int64_t offset = 0;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = shape.dimensions(d);
    if (size > op_shape.dimensions(d)) {
      return InstructionError(instr, "dynamic-slice larger than its operand");
    }
    const int64_t start =
        std::clamp<int64_t>((*starts)[d], 0, op_shape.dimensions(d) - size);
    offset += start * op_strides[d];
  }
  Literal out(shape);
  CopyStrided(shape.dimensions(), operands.Get(0).untyped_data(), offset,
              op_strides, out.untyped_data(), 0,
              RowMajorStrides(shape.dimensions()), Width(shape));
  return out;
}

absl::StatusOr<Literal> EvaluateDynamicUpdateSlice(const HloInstruction& instr,
                                                   OperandValues& operands) {
  if (instr.operand_count() < 3) {
    return InstructionError(instr, "dynamic-update-slice needs start indices");
  }
  const Shape& op_shape = instr.operand(0)->shape();
  const Shape& update_shape = instr.operand(1)->shape();
  const int64_t rank = op_shape.rank();
  if (update_shape.rank() != rank ||
      update_shape.element_type() != op_shape.element_type()) {
    return InstructionError(instr, "update does not match the operand");
  }
  absl::StatusOr<std::vector<int64_t>> starts =
      StartIndices(instr, operands, 2, rank);
  if (!starts.ok()) return starts.status();
  const std::vector<int64_t> op_strides =
      RowMajorStrides(op_shape.dimensions());
  int64_t offset = 0;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = update_shape.dimensions(d);
    if (size > op_shape.dimensions(d)) {
      return InstructionError(instr, "update larger than its operand");
    }
    const int64_t start =
        std::clamp<int64_t>((*starts)[d], 0, op_shape.dimensions(d) - size);
    offset += start * op_strides[d];
  }
  Literal out = operands.TakeOrCopy(0);
  CopyStrided(update_shape.dimensions(), operands.Get(1).untyped_data(), 0,
              RowMajorStrides(update_shape.dimensions()), out.untyped_data(),
              offset, op_strides, Width(op_shape));
  return out;
}

absl::StatusOr<Literal> EvaluateConcatenate(const HloInstruction& instr,
                                            OperandValues& operands) {
  const Shape& shape = instr.shape();
  if (instr.dimensions().size() != 1) {
    return InstructionError(instr, "concatenate needs one dimension");
  }
  const int64_t dim = instr.dimensions(0);
  if (dim < 0 || dim >= shape.rank()) {
    return InstructionError(instr, "concatenate dimension out of range");
  }
  const std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
  Literal out(shape);
  int64_t at = 0;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const Shape& op_shape = instr.operand(i)->shape();
    bool fits = op_shape.rank() == shape.rank() &&
                op_shape.element_type() == shape.element_type();
    for (int64_t d = 0; fits && d < shape.rank(); ++d) {
      fits = d == dim || op_shape.dimensions(d) == shape.dimensions(d);
    }
    if (!fits || at + op_shape.dimensions(dim) > shape.dimensions(dim)) {
      return InstructionError(instr,
                              "concatenate operands do not fit the result");
    }
    CopyStrided(op_shape.dimensions(), operands.Get(i).untyped_data(), 0,
                RowMajorStrides(op_shape.dimensions()), out.untyped_data(),
                at * strides[dim], strides, Width(shape));
    at += op_shape.dimensions(dim);
  }
  return out;
}

absl::StatusOr<Literal> EvaluatePad(const HloInstruction& instr,
                                    OperandValues& operands) {
  if (absl::Status st = CheckSameType(instr); !st.ok()) return st;
  const Shape& shape = instr.shape();
  const Shape& op_shape = instr.operand(0)->shape();
  if (!instr.attrs().padding_config.has_value() ||
      static_cast<int64_t>(instr.attrs().padding_config->dimensions.size()) !=
          op_shape.rank()) {
    return InstructionError(instr, "pad needs a padding config per dimension");
  }
  const auto& config = instr.attrs().padding_config->dimensions;
  if (shape.rank() != op_shape.rank() || operands.Get(1).element_count() != 1 ||
      operands.Get(1).element_type() != shape.element_type()) {
    return InstructionError(instr, "pad needs a scalar padding value");
  }
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const int64_t in = op_shape.dimensions(d);
    if (config[d].interior_padding < 0 ||
        shape.dimensions(d) !=
            config[d].edge_padding_low + config[d].edge_padding_high + in +
                std::max<int64_t>(in - 1, 0) * config[d].interior_padding) {
      return InstructionError(instr, "pad result has the wrong shape");
    }
  }
  Literal out = BroadcastScalar(operands.Get(1), shape);
  const std::vector<int64_t> op_strides =
      RowMajorStrides(op_shape.dimensions());
  const std::vector<int64_t> out_strides = RowMajorStrides(shape.dimensions());
  const int64_t rank = op_shape.rank();
  std::vector<int64_t> box(rank), dst_strides(rank);
  int64_t src_offset = 0, dst_offset = 0;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t lo = config[d].edge_padding_low;
    const int64_t step = config[d].interior_padding + 1;
    const int64_t in_dim = op_shape.dimensions(d);
    const int64_t out_dim = shape.dimensions(d);
    // Operand indices i whose position lo + i * step lies inside the result.
    const int64_t first = lo >= 0 ? 0 : (-lo + step - 1) / step;
    const int64_t last_pos = out_dim - 1 - lo;
    const int64_t end =
        last_pos < 0 ? 0 : std::min(in_dim, last_pos / step + 1);
    box[d] = std::max<int64_t>(0, end - first);
    src_offset += first * op_strides[d];
    dst_offset += (lo + first * step) * out_strides[d];
    dst_strides[d] = step * out_strides[d];
  }
  CopyStrided(box, operands.Get(0).untyped_data(), src_offset, op_strides,
              out.untyped_data(), dst_offset, dst_strides, Width(shape));
  return out;
}

absl::StatusOr<Literal> EvaluateReverse(const HloInstruction& instr,
                                        OperandValues& operands) {
  if (absl::Status st = CheckSameType(instr); !st.ok()) return st;
  const Shape& shape = instr.shape();
  if (instr.operand(0)->shape().dimensions() != shape.dimensions()) {
    return InstructionError(instr, "reverse changes the shape");
  }
  std::vector<int64_t> src_strides = RowMajorStrides(shape.dimensions());
  int64_t offset = 0;
  for (int64_t d : instr.dimensions()) {
    if (d < 0 || d >= shape.rank()) {
      return InstructionError(instr, "bad reverse dimension");
    }
    offset += (shape.dimensions(d) - 1) * src_strides[d];
    src_strides[d] = -src_strides[d];
  }
  Literal out(shape);
  if (out.element_count() == 0) return out;
  CopyStrided(shape.dimensions(), operands.Get(0).untyped_data(), offset,
              src_strides, out.untyped_data(), 0,
              RowMajorStrides(shape.dimensions()), Width(shape));
  return out;
}

absl::StatusOr<Literal> EvaluateIota(const HloInstruction& instr) {
  const Shape& shape = instr.shape();
  const int64_t dim = instr.attrs().iota_dimension;
  if (dim < 0 || dim >= shape.rank()) {
    return InstructionError(instr, "iota dimension out of range");
  }
  // One row 0, 1, ..., n-1 converted to the element type, then broadcast.
  const int64_t n = shape.dimensions(dim);
  Literal row(Shape::Array(S64, {n}));
  for (int64_t i = 0; i < n; ++i) row.data<int64_t>()[i] = i;
  absl::StatusOr<ElementwiseFn> convert =
      SelectElementwiseKernel(HloOpcode::kConvert, {S64}, shape.element_type());
  if (!convert.ok()) return InstructionError(instr, convert.status().message());
  Literal typed(Shape::Array(shape.element_type(), {n}));
  const void* in[1] = {row.untyped_data()};
  (*convert)(in, typed.untyped_data(), n, KernelAttrs{});
  std::vector<int64_t> src_strides(shape.rank(), 0);
  src_strides[dim] = 1;
  Literal out(shape);
  CopyStrided(shape.dimensions(), typed.untyped_data(), 0, src_strides,
              out.untyped_data(), 0, RowMajorStrides(shape.dimensions()),
              Width(shape));
  return out;
}

}  // namespace eval
}  // namespace hloc

// gather and scatter with XLA's full dimension numbers (including batching
// dimensions). gather copies one operand slice per batch index with its
// start clamped into bounds; scatter applies its update computation to one
// update window per scatter index, lane-wise over the window, and skips a
// window that does not fit in the operand.
#include <algorithm>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/strided_copy.h"

namespace hloc {
namespace eval {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Reads start index vectors out of an indices array: for a batch position
// (the indices' dimensions other than index_vector_dim, in order), the
// index_vector_dim components.
class IndexReader {
 public:
  IndexReader(const Literal& indices, const Shape& shape,
              int64_t index_vector_dim)
      : indices_(indices), index_vector_dim_(index_vector_dim) {
    const std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (d == index_vector_dim) {
        vector_stride_ = strides[d];
        vector_size_ = shape.dimensions(d);
      } else {
        batch_dims_.push_back(d);
        batch_strides_.push_back(strides[d]);
      }
    }
  }

  // The position among the batch dimensions of indices dimension `dim`.
  int64_t BatchPosition(int64_t dim) const {
    return std::find(batch_dims_.begin(), batch_dims_.end(), dim) -
           batch_dims_.begin();
  }
  int64_t num_batch_dims() const { return batch_dims_.size(); }
  int64_t vector_size() const { return vector_size_; }

  // Component k of the index vector at batch position `batch`.
  int64_t Get(absl::Span<const int64_t> batch, int64_t k) const {
    int64_t linear = k * vector_stride_;
    for (size_t i = 0; i < batch.size(); ++i) {
      linear += batch[i] * batch_strides_[i];
    }
    return IndexValue(indices_, linear);
  }

 private:
  const Literal& indices_;
  int64_t index_vector_dim_;
  std::vector<int64_t> batch_dims_;
  std::vector<int64_t> batch_strides_;
  int64_t vector_stride_ = 0;
  int64_t vector_size_ = 1;
};

// Calls fn(index) for every index of `dims` in row-major order.
template <typename Fn>
absl::Status ForEach(absl::Span<const int64_t> dims, Fn fn) {
  for (int64_t d : dims) {
    if (d == 0) return absl::OkStatus();
  }
  absl::InlinedVector<int64_t, 8> index(dims.size(), 0);
  while (true) {
    absl::Status status = fn(absl::Span<const int64_t>(index));
    if (!status.ok()) return status;
    int64_t d = static_cast<int64_t>(dims.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
    if (d < 0) return absl::OkStatus();
  }
}

// True if a box of `dims` laid out with `strides` is one contiguous run.
bool IsContiguous(absl::Span<const int64_t> dims,
                  absl::Span<const int64_t> strides) {
  int64_t expected = 1;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (dims[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= dims[d];
  }
  return true;
}

}  // namespace

absl::StatusOr<Literal> EvaluateGather(const HloInstruction& instr,
                                       OperandValues& operands) {
  if (!instr.attrs().gather_dimension_numbers.has_value()) {
    return InstructionError(instr, "gather needs dimension numbers");
  }
  const GatherDimensionNumbers& dn = *instr.attrs().gather_dimension_numbers;
  const Shape& shape = instr.shape();
  const Shape& op_shape = instr.operand(0)->shape();
  const Shape& idx_shape = instr.operand(1)->shape();
  const auto& slice_sizes = instr.attrs().gather_slice_sizes;
  const int64_t rank = op_shape.rank();
  if (static_cast<int64_t>(slice_sizes.size()) != rank) {
    return InstructionError(instr, "gather needs a slice size per dimension");
  }
  if (dn.index_vector_dim < 0 || dn.index_vector_dim > idx_shape.rank() ||
      !ValidDimensions(dn.offset_dims, shape.rank()) ||
      !ValidDimensions(dn.collapsed_slice_dims, rank) ||
      !ValidDimensions(dn.start_index_map, rank) ||
      !ValidDimensions(dn.operand_batching_dims, rank) ||
      !ValidDimensions(dn.start_indices_batching_dims, idx_shape.rank()) ||
      dn.operand_batching_dims.size() !=
          dn.start_indices_batching_dims.size() ||
      op_shape.element_type() != shape.element_type()) {
    return InstructionError(instr, "invalid gather dimension numbers");
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > op_shape.dimensions(d)) {
      return InstructionError(instr, "gather slice larger than the operand");
    }
  }
  IndexReader reader(operands.Get(1), idx_shape, dn.index_vector_dim);
  if (static_cast<int64_t>(dn.start_index_map.size()) != reader.vector_size()) {
    return InstructionError(instr, "start_index_map does not match indices");
  }
  std::vector<int64_t> batch_dims, window_dims;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (!Contains(dn.offset_dims, d)) batch_dims.push_back(d);
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.collapsed_slice_dims, d) &&
        !Contains(dn.operand_batching_dims, d)) {
      window_dims.push_back(d);
    }
  }
  if (window_dims.size() != dn.offset_dims.size() ||
      static_cast<int64_t>(batch_dims.size()) != reader.num_batch_dims()) {
    return InstructionError(instr, "inconsistent gather dimension numbers");
  }
  std::vector<int64_t> batching_position;
  for (int64_t d : dn.start_indices_batching_dims) {
    if (d == dn.index_vector_dim) {
      return InstructionError(instr, "index_vector_dim cannot be a batch dim");
    }
    batching_position.push_back(reader.BatchPosition(d));
  }
  for (size_t j = 0, b = 0; j < batch_dims.size(); ++j, ++b) {
    if (b == static_cast<size_t>(dn.index_vector_dim)) ++b;
    if (shape.dimensions(batch_dims[j]) != idx_shape.dimensions(b)) {
      return InstructionError(instr, "gather batch dims differ from indices");
    }
  }
  for (size_t k = 0; k < window_dims.size(); ++k) {
    if (shape.dimensions(dn.offset_dims[k]) != slice_sizes[window_dims[k]]) {
      return InstructionError(instr, "gather offset dims differ from slices");
    }
  }
  const std::vector<int64_t> op_strides =
      RowMajorStrides(op_shape.dimensions());
  const std::vector<int64_t> out_strides = RowMajorStrides(shape.dimensions());
  std::vector<int64_t> box, src_strides, dst_strides, batch_sizes;
  for (size_t k = 0; k < window_dims.size(); ++k) {
    box.push_back(shape.dimensions(dn.offset_dims[k]));
    src_strides.push_back(op_strides[window_dims[k]]);
    dst_strides.push_back(out_strides[dn.offset_dims[k]]);
  }
  for (int64_t d : batch_dims) batch_sizes.push_back(shape.dimensions(d));
  const Literal& operand = operands.Get(0);
  Literal out(shape);
  const int64_t width = ByteWidth(shape.element_type());
  std::vector<int64_t> start(rank);
  absl::Status status = ForEach(batch_sizes, [&](absl::Span<const int64_t> g) {
    std::fill(start.begin(), start.end(), 0);
    for (size_t k = 0; k < dn.start_index_map.size(); ++k) {
      start[dn.start_index_map[k]] = reader.Get(g, k);
    }
    for (size_t j = 0; j < dn.operand_batching_dims.size(); ++j) {
      start[dn.operand_batching_dims[j]] = g[batching_position[j]];
    }
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t s = std::clamp<int64_t>(
          start[d], 0, op_shape.dimensions(d) - slice_sizes[d]);
      src += s * op_strides[d];
    }
    int64_t dst = 0;
    for (size_t j = 0; j < batch_dims.size(); ++j) {
      dst += g[j] * out_strides[batch_dims[j]];
    }
    CopyStrided(box, operand.untyped_data(), src, src_strides,
                out.untyped_data(), dst, dst_strides, width);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<Literal> EvaluateScatter(const HloInstruction& instr,
                                        OperandValues& operands,
                                        Evaluator& evaluator) {
  if (!instr.attrs().scatter_dimension_numbers.has_value() ||
      instr.to_apply() == nullptr) {
    return InstructionError(instr,
                            "scatter needs dimension numbers and to_apply");
  }
  const ScatterDimensionNumbers& dn = *instr.attrs().scatter_dimension_numbers;
  if (instr.operand_count() < 3 || instr.operand_count() % 2 == 0) {
    return InstructionError(instr,
                            "scatter needs N operands, indices, N updates");
  }
  const int64_t n = (instr.operand_count() - 1) / 2;
  const Shape& op_shape = instr.operand(0)->shape();
  const Shape& idx_shape = instr.operand(n)->shape();
  const Shape& upd_shape = instr.operand(n + 1)->shape();
  const int64_t rank = op_shape.rank();
  ScalarFn& fn = evaluator.ScalarFnFor(*instr.to_apply());
  if (fn.num_params() != 2 * n || fn.num_results() != n) {
    return InstructionError(instr,
                            "scatter computation does not match operands");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (fn.param_type(i) != instr.operand(i)->shape().element_type() ||
        fn.param_type(n + i) !=
            instr.operand(n + 1 + i)->shape().element_type() ||
        fn.result_type(i) != instr.operand(i)->shape().element_type()) {
      return InstructionError(instr, "scatter computation types do not match");
    }
  }
  if (dn.index_vector_dim < 0 || dn.index_vector_dim > idx_shape.rank() ||
      !ValidDimensions(dn.update_window_dims, upd_shape.rank()) ||
      !ValidDimensions(dn.inserted_window_dims, rank) ||
      !ValidDimensions(dn.scatter_dims_to_operand_dims, rank) ||
      !ValidDimensions(dn.input_batching_dims, rank) ||
      !ValidDimensions(dn.scatter_indices_batching_dims, idx_shape.rank()) ||
      dn.input_batching_dims.size() !=
          dn.scatter_indices_batching_dims.size()) {
    return InstructionError(instr, "invalid scatter dimension numbers");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (instr.operand(i)->shape().dimensions() != op_shape.dimensions() ||
        instr.operand(n + 1 + i)->shape().dimensions() !=
            upd_shape.dimensions()) {
      return InstructionError(instr,
                              "scatter operands or updates differ in shape");
    }
  }
  IndexReader reader(operands.Get(n), idx_shape, dn.index_vector_dim);
  if (static_cast<int64_t>(dn.scatter_dims_to_operand_dims.size()) !=
      reader.vector_size()) {
    return InstructionError(
        instr, "scatter_dims_to_operand_dims does not match indices");
  }
  std::vector<int64_t> scatter_dims, window_dims;
  for (int64_t d = 0; d < upd_shape.rank(); ++d) {
    if (!Contains(dn.update_window_dims, d)) scatter_dims.push_back(d);
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.inserted_window_dims, d) &&
        !Contains(dn.input_batching_dims, d)) {
      window_dims.push_back(d);
    }
  }
  if (window_dims.size() != dn.update_window_dims.size() ||
      static_cast<int64_t>(scatter_dims.size()) != reader.num_batch_dims()) {
    return InstructionError(instr, "inconsistent scatter dimension numbers");
  }
  std::vector<int64_t> batching_position;
  for (int64_t d : dn.scatter_indices_batching_dims) {
    if (d == dn.index_vector_dim) {
      return InstructionError(instr, "index_vector_dim cannot be a batch dim");
    }
    batching_position.push_back(reader.BatchPosition(d));
  }
  for (size_t j = 0, b = 0; j < scatter_dims.size(); ++j, ++b) {
    if (b == static_cast<size_t>(dn.index_vector_dim)) ++b;
    if (upd_shape.dimensions(scatter_dims[j]) != idx_shape.dimensions(b)) {
      return InstructionError(instr, "scatter update dims differ from indices");
    }
  }
  const std::vector<int64_t> op_strides =
      RowMajorStrides(op_shape.dimensions());
  const std::vector<int64_t> upd_strides =
      RowMajorStrides(upd_shape.dimensions());
  std::vector<int64_t> window_size(rank, 1);
  std::vector<int64_t> box, op_box_strides, upd_box_strides, scatter_sizes;
  for (size_t k = 0; k < window_dims.size(); ++k) {
    const int64_t size = upd_shape.dimensions(dn.update_window_dims[k]);
    window_size[window_dims[k]] = size;
    box.push_back(size);
    op_box_strides.push_back(op_strides[window_dims[k]]);
    upd_box_strides.push_back(upd_strides[dn.update_window_dims[k]]);
  }
  for (int64_t d : scatter_dims)
    scatter_sizes.push_back(upd_shape.dimensions(d));
  int64_t lanes = 1;
  for (int64_t b : box) lanes *= b;
  const bool direct =
      IsContiguous(box, op_box_strides) && IsContiguous(box, upd_box_strides);

  std::vector<Literal> outs;
  std::vector<int64_t> widths;
  for (int64_t i = 0; i < n; ++i) {
    outs.push_back(operands.TakeOrCopy(i));
    widths.push_back(ByteWidth(instr.operand(i)->shape().element_type()));
  }
  // Staging buffers for windows that are not contiguous.
  std::vector<std::vector<uint8_t>> op_buf(n), upd_buf(n);
  const std::vector<int64_t> box_strides = RowMajorStrides(box);
  if (!direct) {
    for (int64_t i = 0; i < n; ++i) {
      op_buf[i].resize(lanes * widths[i]);
      upd_buf[i].resize(lanes * ByteWidth(fn.param_type(n + i)));
    }
  }
  std::vector<const void*> args(2 * n);
  std::vector<void*> results(n);
  std::vector<int64_t> start(rank);
  absl::Status status =
      ForEach(scatter_sizes, [&](absl::Span<const int64_t> g) {
        std::fill(start.begin(), start.end(), 0);
        for (size_t k = 0; k < dn.scatter_dims_to_operand_dims.size(); ++k) {
          start[dn.scatter_dims_to_operand_dims[k]] = reader.Get(g, k);
        }
        for (size_t j = 0; j < dn.input_batching_dims.size(); ++j) {
          start[dn.input_batching_dims[j]] = g[batching_position[j]];
        }
        int64_t op_offset = 0;
        for (int64_t d = 0; d < rank; ++d) {
          if (start[d] < 0 ||
              start[d] > op_shape.dimensions(d) - window_size[d]) {
            return absl::OkStatus();  // The window does not fit: no update.
          }
          op_offset += start[d] * op_strides[d];
        }
        int64_t upd_offset = 0;
        for (size_t j = 0; j < scatter_dims.size(); ++j) {
          upd_offset += g[j] * upd_strides[scatter_dims[j]];
        }
        if (lanes == 0) return absl::OkStatus();
        for (int64_t i = 0; i < n; ++i) {
          uint8_t* op_data = outs[i].untyped_data();
          const uint8_t* upd_data = operands.Get(n + 1 + i).untyped_data();
          const int64_t uw = ByteWidth(fn.param_type(n + i));
          if (direct) {
            args[i] = op_data + op_offset * widths[i];
            args[n + i] = upd_data + upd_offset * uw;
            results[i] = op_data + op_offset * widths[i];
          } else {
            CopyStrided(box, op_data, op_offset, op_box_strides,
                        op_buf[i].data(), 0, box_strides, widths[i]);
            CopyStrided(box, upd_data, upd_offset, upd_box_strides,
                        upd_buf[i].data(), 0, box_strides, uw);
            args[i] = op_buf[i].data();
            args[n + i] = upd_buf[i].data();
            results[i] = op_buf[i].data();
          }
        }
        absl::Status call = fn.Call(args, results, lanes);
        if (!call.ok()) return call;
        if (!direct) {
          for (int64_t i = 0; i < n; ++i) {
            CopyStrided(box, op_buf[i].data(), 0, box_strides,
                        outs[i].untyped_data(), op_offset, op_box_strides,
                        widths[i]);
          }
        }
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  if (n == 1) return std::move(outs[0]);
  return Literal::MakeTuple(std::move(outs));
}

}  // namespace eval
}  // namespace hloc

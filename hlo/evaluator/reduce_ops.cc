// reduce, reduce-window and select-and-scatter.
//
// reduce with a simple computation (add, multiply, maximum, minimum, and, or,
// xor of its two parameters) walks the input once in row-major order and
// folds each contiguous run into the accumulators with a typed kernel. Any
// other computation (variadic reductions such as argmax included) runs
// lane-wise over all output elements: the inputs are rearranged so that the
// reduced elements of every output are rows, and the computation is applied
// once per reduced position to all outputs. Either way each output sees its
// elements in row-major order of the reduced dimensions; f32 and f64 sums
// over a contiguous run add that run pairwise (kernels_binary.cc
// PairwiseSumRow), as XLA:CPU's vectorised sums keep partial sums;
// reduce-window keeps each window's order.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/kernels.h"
#include "hlo/evaluator/strided_copy.h"
#include "hlo/evaluator/window_positions.h"
#include "hlo/float16.h"
#include "hlo/reducer_patterns.h"

namespace hloc {
namespace eval {
namespace {

struct RunDim {
  int64_t size;
  bool reduced;
  int64_t in_stride;
  int64_t out_stride;
};

absl::StatusOr<Literal> ReduceSimple(const HloInstruction& instr,
                                     HloOpcode opcode, const Literal& input,
                                     const Literal& init,
                                     const std::vector<bool>& reduced) {
  const Shape& shape = instr.shape();
  const Shape& in_shape = instr.operand(0)->shape();
  const PrimitiveType type = shape.element_type();
  ReduceRowFn row = SelectReduceRowKernel(opcode, type, /*pairwise_sums=*/true);
  absl::StatusOr<ElementwiseFn> fold =
      SelectElementwiseKernel(opcode, {type, type}, type);
  if (row == nullptr || !fold.ok()) {
    return InstructionError(instr, "unsupported reduction type");
  }
  Literal out = BroadcastScalar(init, shape);
  if (input.element_count() == 0) return out;
  // Input dimensions (size > 1), adjacent ones of the same kind merged.
  const std::vector<int64_t> in_strides =
      RowMajorStrides(in_shape.dimensions());
  std::vector<int64_t> out_dim_strides;
  {
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < in_shape.rank(); ++d) {
      if (!reduced[d]) kept.push_back(in_shape.dimensions(d));
    }
    out_dim_strides = RowMajorStrides(kept);
  }
  std::vector<RunDim> dims;
  int64_t k = 0;
  for (int64_t d = 0; d < in_shape.rank(); ++d) {
    const int64_t out_stride = reduced[d] ? 0 : out_dim_strides[k++];
    if (in_shape.dimensions(d) == 1) continue;
    RunDim dim{in_shape.dimensions(d), static_cast<bool>(reduced[d]),
               in_strides[d], out_stride};
    if (!dims.empty() && dims.back().reduced == dim.reduced &&
        dims.back().in_stride == dim.in_stride * dim.size &&
        dims.back().out_stride == dim.out_stride * dim.size) {
      dims.back() = {dims.back().size * dim.size, dim.reduced, dim.in_stride,
                     dim.out_stride};
      continue;
    }
    dims.push_back(dim);
  }
  const int64_t width = ByteWidth(type);
  const uint8_t* in = input.untyped_data();
  uint8_t* acc = out.untyped_data();
  if (dims.empty()) {  // One element.
    row(acc, in, 1);
    return out;
  }
  const RunDim last = dims.back();
  const int64_t outer_rank = static_cast<int64_t>(dims.size()) - 1;
  const KernelAttrs attrs;
  // Different values of a kept dimension update disjoint outputs, so the
  // first kept dimension is split across threads.
  int64_t split = -1;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!dims[d].reduced) {
      split = static_cast<int64_t>(d);
      break;
    }
  }
  auto run = [&](int64_t lo, int64_t hi) {
    absl::InlinedVector<int64_t, 8> begin(dims.size(), 0), end(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) end[d] = dims[d].size;
    if (split >= 0) {
      begin[split] = lo;
      end[split] = hi;
    }
    absl::InlinedVector<int64_t, 8> index(begin.begin(),
                                          begin.begin() + outer_rank);
    const int64_t run_begin = begin[outer_rank];
    const int64_t run_len = end[outer_rank] - run_begin;
    while (true) {
      int64_t i = run_begin * last.in_stride, o = run_begin * last.out_stride;
      for (int64_t d = 0; d < outer_rank; ++d) {
        i += index[d] * dims[d].in_stride;
        o += index[d] * dims[d].out_stride;
      }
      if (last.reduced) {
        row(acc + o * width, in + i * width, run_len);
      } else {
        const void* ins[2] = {acc + o * width, in + i * width};
        (*fold)(ins, acc + o * width, run_len, attrs);
      }
      int64_t d = outer_rank - 1;
      for (; d >= 0; --d) {
        if (++index[d] < end[d]) break;
        index[d] = begin[d];
      }
      if (d < 0) break;
    }
  };
  if (split < 0 || input.element_count() < (1 << 20)) {
    run(0, split < 0 ? 0 : dims[split].size);
  } else {
    const int64_t per_unit =
        std::max<int64_t>(1, input.element_count() / dims[split].size);
    ParallelFor(dims[split].size, std::max<int64_t>(1, (1 << 18) / per_unit),
                run);
  }
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvaluateReduce(const HloInstruction& instr,
                                       OperandValues& operands,
                                       Evaluator& evaluator) {
  if (instr.operand_count() % 2 != 0 || instr.operand_count() == 0 ||
      instr.to_apply() == nullptr) {
    return InstructionError(instr, "reduce needs inputs, inits and to_apply");
  }
  const int64_t n = instr.operand_count() / 2;
  const Shape& in_shape = instr.operand(0)->shape();
  const int64_t rank = in_shape.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : instr.dimensions()) {
    if (d < 0 || d >= rank)
      return InstructionError(instr, "bad reduce dimension");
    reduced[d] = true;
  }
  std::vector<int64_t> kept_dims, red_dims, perm;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      red_dims.push_back(in_shape.dimensions(d));
      perm.push_back(d);
    }
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      kept_dims.push_back(in_shape.dimensions(d));
      perm.push_back(d);
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    const Shape& out_shape =
        instr.shape().IsTuple() && i < instr.shape().tuple_shapes_size()
            ? instr.shape().tuple_shapes(i)
            : instr.shape();
    if (instr.operand(i)->shape().dimensions() != in_shape.dimensions() ||
        !out_shape.IsArray() || out_shape.dimensions() != kept_dims ||
        operands.Get(n + i).element_count() != 1 ||
        (n > 1 && (!instr.shape().IsTuple() ||
                   instr.shape().tuple_shapes_size() != n))) {
      return InstructionError(instr, "reduce shapes do not match");
    }
  }
  const HloComputation& computation = *instr.to_apply();
  if (n == 1 && instr.shape().IsArray() &&
      instr.shape().element_type() == in_shape.element_type()) {
    if (std::optional<HloOpcode> op = MatchSimpleReducer(computation)) {
      if (computation.root_instruction()->shape().element_type() ==
          in_shape.element_type()) {
        return ReduceSimple(instr, *op, operands.Get(0), operands.Get(1),
                            reduced);
      }
    }
  }
  ScalarFn& fn = evaluator.ScalarFnFor(computation);
  if (fn.num_params() != 2 * n || fn.num_results() != n) {
    return InstructionError(instr,
                            "reduce computation does not match operands");
  }
  int64_t outputs = 1, positions = 1;
  for (int64_t s : kept_dims) outputs *= s;
  for (int64_t s : red_dims) positions *= s;
  std::vector<Literal> accs;
  std::vector<Literal> rows;  // Inputs as [positions, outputs].
  const std::vector<int64_t> in_strides =
      RowMajorStrides(in_shape.dimensions());
  std::vector<int64_t> perm_dims, perm_strides;
  for (int64_t d : perm) {
    perm_dims.push_back(in_shape.dimensions(d));
    perm_strides.push_back(in_strides[d]);
  }
  for (int64_t i = 0; i < n; ++i) {
    const Shape& out_shape =
        instr.shape().IsTuple() ? instr.shape().tuple_shapes(i) : instr.shape();
    if (fn.param_type(i) != out_shape.element_type() ||
        fn.param_type(n + i) != instr.operand(i)->shape().element_type() ||
        fn.result_type(i) != out_shape.element_type() ||
        operands.Get(n + i).element_type() != out_shape.element_type()) {
      return InstructionError(instr, "reduce computation types do not match");
    }
    accs.push_back(BroadcastScalar(operands.Get(n + i), out_shape));
    const PrimitiveType type = instr.operand(i)->shape().element_type();
    Literal rearranged(Shape::Array(type, perm_dims));
    CopyStrided(perm_dims, operands.Get(i).untyped_data(), 0, perm_strides,
                rearranged.untyped_data(), 0, RowMajorStrides(perm_dims),
                ByteWidth(type));
    rows.push_back(std::move(rearranged));
  }
  // Chunks of outputs are independent; a compiled computation gets a
  // private copy per thread (its lane buffers are state).
  const int64_t kChunk = std::clamp<int64_t>(outputs / 64, 256, 2048);
  const int64_t chunks = (outputs + kChunk - 1) / kChunk;
  auto reduce_chunks = [&](ScalarFn& f, int64_t first, int64_t last) {
    std::vector<const void*> args(2 * n);
    std::vector<void*> results(n);
    for (int64_t c = first; c < last; ++c) {
      const int64_t begin = c * kChunk;
      const int64_t len = std::min(kChunk, outputs - begin);
      for (int64_t p = 0; p < positions; ++p) {
        for (int64_t i = 0; i < n; ++i) {
          const int64_t aw = ByteWidth(accs[i].element_type());
          const int64_t xw = ByteWidth(rows[i].element_type());
          results[i] = accs[i].untyped_data() + begin * aw;
          args[i] = results[i];
          args[n + i] = rows[i].untyped_data() + (p * outputs + begin) * xw;
        }
        absl::Status status = f.Call(args, results, len);
        if (!status.ok()) return status;
      }
    }
    return absl::OkStatus();
  };
  if (!fn.compiled() || chunks < 2 || outputs * positions < (1 << 20)) {
    absl::Status status = reduce_chunks(fn, 0, chunks);
    if (!status.ok()) return status;
  } else {
    std::vector<absl::Status> statuses;
    std::mutex mu;
    ParallelFor(chunks, 1, [&](int64_t first, int64_t last) {
      ScalarFn local(computation, computation.root_instruction());
      absl::Status status = reduce_chunks(local, first, last);
      std::lock_guard<std::mutex> lock(mu);
      statuses.push_back(status);
    });
    for (const absl::Status& status : statuses) {
      if (!status.ok()) return status;
    }
  }
  if (n == 1) return std::move(accs[0]);
  return Literal::MakeTuple(std::move(accs));
}

namespace {

// A windowed op's window, per dimension, and scratch for the input offsets
// of one output's window (window_positions.h says why not a table).
struct WindowTable {
  std::vector<WindowDimension> dims;
  std::vector<int64_t> input_dims;
  // Scratch per dimension: the input offsets of one output's window.
  std::vector<std::vector<int64_t>> coords;
};

absl::StatusOr<WindowTable> MakeWindowTable(const HloInstruction& instr,
                                            const Shape& input,
                                            const Shape& output) {
  // XLA omits the empty window of a rank-0 operand.
  const Window window = instr.attrs().window.value_or(Window{});
  if (static_cast<int64_t>(window.dimensions.size()) != input.rank() ||
      output.rank() != input.rank()) {
    return InstructionError(instr,
                            "needs a window dimension per input dimension");
  }
  WindowTable table;
  for (int64_t d = 0; d < input.rank(); ++d) {
    const WindowDimension& w = window.dimensions[d];
    if (w.stride <= 0 || w.window_dilation <= 0 || w.base_dilation <= 0 ||
        w.size < 0) {
      return InstructionError(instr, "bad window");
    }
    table.dims.push_back(w);
    table.input_dims.push_back(input.dimensions(d));
  }
  table.coords.resize(input.rank());
  return table;
}

// Sets `offsets` to the linear input offsets (row-major over the window) of
// the valid window elements of output `out_index`: those that read neither
// padding nor a hole of base dilation. `table` is not shared between
// threads (its scratch).
void WindowOffsets(WindowTable& table, absl::Span<const int64_t> out_index,
                   const std::vector<int64_t>& in_strides,
                   std::vector<int64_t>* offsets) {
  offsets->clear();
  const int64_t rank = out_index.size();
  for (int64_t d = 0; d < rank; ++d) {
    std::vector<int64_t>& coords = table.coords[d];
    coords.clear();
    ForEachWindowPosition(
        table.dims[d], table.input_dims[d], out_index[d],
        [&](int64_t, int64_t c) { coords.push_back(c * in_strides[d]); });
    if (coords.empty()) return;
  }
  absl::InlinedVector<size_t, 8> w(rank, 0);
  while (true) {
    int64_t off = 0;
    for (int64_t d = 0; d < rank; ++d) off += table.coords[d][w[d]];
    offsets->push_back(off);
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++w[d] < table.coords[d].size()) break;
      w[d] = 0;
    }
    if (d < 0) return;
  }
}

// A cumulative window: along `dimension` every window is a prefix of its
// line (JAX's cumsum, cumprod, cummax and cummin: window n or more, low
// padding one less, every other dimension of window 1), so output i
// reduces inputs [0, i] in order; or, `reverse`, a suffix (the high padding
// one less: lax.cumsum(reverse=True), and every cumsum's transpose in a
// gradient), so output i reduces inputs [i, n - 1].
struct ScanWindow {
  int64_t dimension = 0;
  bool reverse = false;
};

std::optional<ScanWindow> CumulativeWindow(const WindowTable& table) {
  std::optional<ScanWindow> scan;
  for (size_t d = 0; d < table.dims.size(); ++d) {
    const WindowDimension& w = table.dims[d];
    if (w.stride != 1 || w.window_dilation != 1 || w.base_dilation != 1) {
      return std::nullopt;
    }
    if (w.size == 1 && w.padding_low == 0 && w.padding_high == 0) continue;
    if (scan.has_value() || w.size < table.input_dims[d]) return std::nullopt;
    if (w.padding_low == w.size - 1 && w.padding_high == 0) {
      scan = ScanWindow{static_cast<int64_t>(d), false};
    } else if (w.padding_low == 0 && w.padding_high == w.size - 1) {
      scan = ScanWindow{static_cast<int64_t>(d), true};
    } else {
      return std::nullopt;
    }
  }
  return scan;
}

// Where line `line` of a cumulative window along a dimension of length
// `len` and row-major stride `stride` starts (output and input shapes
// agree).
int64_t LineStart(int64_t line, int64_t len, int64_t stride) {
  return (line / stride) * len * stride + line % stride;
}

// A cumulative bf16 or f16 sum, or log-add-exp (`log_add_exp`), folded in
// f32 with each output rounded once, as the cpu scans them where excess
// precision is allowed (passes/reduce_window_to_scan.h): folded in the
// narrow type, a sum stops growing once its carry is 256 (bf16) times its
// addends (jnp.cumsum(jnp.ones(1000, bf16)) stopped at 256), where
// XLA:CPU's blocked scans stay close to the exact sums. nullopt where the
// window is not cumulative or the type not narrow.
std::optional<Literal> WidenedCumulativeSum(const HloInstruction& instr,
                                            const WindowTable& table,
                                            const Literal& input,
                                            const Literal& init,
                                            bool log_add_exp) {
  const PrimitiveType type = input.element_type();
  if (type != BF16 && type != F16) return std::nullopt;
  std::optional<ScanWindow> scan = CumulativeWindow(table);
  const std::vector<int64_t>& dims = instr.shape().dimensions();
  if (!scan.has_value() || !instr.shape().IsArray() ||
      instr.shape().element_type() != type ||
      dims != input.shape().dimensions()) {
    return std::nullopt;
  }
  auto load = [type](const uint8_t* p) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return type == BF16 ? BF16BitsToFloat(bits) : HalfBitsToFloat(bits);
  };
  auto store = [type](float f, uint8_t* p) {
    const uint16_t bits =
        type == BF16 ? FloatToBF16Bits(f) : FloatToHalfBits(f);
    std::memcpy(p, &bits, 2);
  };
  Literal out(instr.shape());
  const int64_t len = dims[scan->dimension];
  const int64_t stride = RowMajorStrides(dims)[scan->dimension];
  const int64_t lines = len == 0 ? 0 : out.element_count() / len;
  const int64_t step = scan->reverse ? -stride : stride;
  const float start = load(init.untyped_data());
  const uint8_t* in = input.untyped_data();
  uint8_t* o = out.untyped_data();
  for (int64_t line = 0; line < lines; ++line) {
    int64_t at =
        LineStart(line, len, stride) + (scan->reverse ? (len - 1) * stride : 0);
    float carry = start;
    for (int64_t i = 0; i < len; ++i, at += step) {
      const float x = load(in + at * 2);
      if (!log_add_exp) {
        carry += x;
      } else {
        // JAX's form (hlo/reducer_patterns.h): the sum where a - b is NaN.
        const float d = carry - x;
        carry = std::isnan(d)
                    ? carry + x
                    : std::max(carry, x) + std::log1p(std::exp(-std::fabs(d)));
      }
      store(carry, o + at * 2);
    }
  }
  return out;
}

template <typename Fn>
absl::Status ForEachIndexStatus(absl::Span<const int64_t> dims, Fn fn) {
  for (int64_t d : dims) {
    if (d == 0) return absl::OkStatus();
  }
  absl::InlinedVector<int64_t, 8> index(dims.size(), 0);
  int64_t linear = 0;
  while (true) {
    absl::Status status = fn(absl::Span<const int64_t>(index), linear++);
    if (!status.ok()) return status;
    int64_t d = static_cast<int64_t>(dims.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
    if (d < 0) return absl::OkStatus();
  }
}

}  // namespace

absl::StatusOr<Literal> EvaluateReduceWindow(const HloInstruction& instr,
                                             OperandValues& operands,
                                             Evaluator& evaluator) {
  if (instr.operand_count() % 2 != 0 || instr.operand_count() == 0 ||
      instr.to_apply() == nullptr) {
    return InstructionError(instr,
                            "reduce-window needs inputs, inits and to_apply");
  }
  const int64_t n = instr.operand_count() / 2;
  const Shape& in_shape = instr.operand(0)->shape();
  if ((n > 1) != instr.shape().IsTuple() ||
      (n > 1 && instr.shape().tuple_shapes_size() != n)) {
    return InstructionError(instr, "reduce-window result arity does not match");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (operands.Get(n + i).element_count() != 1) {
      return InstructionError(instr,
                              "reduce-window init values must be scalars");
    }
  }
  const Shape& out_shape0 =
      instr.shape().IsTuple() ? instr.shape().tuple_shapes(0) : instr.shape();
  absl::StatusOr<WindowTable> table =
      MakeWindowTable(instr, in_shape, out_shape0);
  if (!table.ok()) return table.status();
  const std::vector<int64_t> in_strides =
      RowMajorStrides(in_shape.dimensions());
  const HloComputation& computation = *instr.to_apply();
  std::vector<int64_t> offsets;

  std::optional<HloOpcode> simple = MatchSimpleReducer(computation);
  if (n == 1 && simple.has_value() && instr.shape().IsArray() &&
      instr.shape().element_type() == in_shape.element_type() &&
      computation.root_instruction()->shape().element_type() ==
          in_shape.element_type()) {
    const PrimitiveType type = in_shape.element_type();
    if (*simple == HloOpcode::kAdd) {
      std::optional<Literal> widened = WidenedCumulativeSum(
          instr, *table, operands.Get(0), operands.Get(1), false);
      if (widened.has_value()) return std::move(*widened);
    }
    ReduceRowFn row = SelectReduceRowKernel(*simple, type);
    if (row == nullptr)
      return InstructionError(instr, "unsupported reduction type");
    const int64_t width = ByteWidth(type);
    Literal out = BroadcastScalar(operands.Get(1), instr.shape());
    const uint8_t* in = operands.Get(0).untyped_data();
    const std::vector<int64_t>& out_dims = instr.shape().dimensions();
    const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
    std::optional<ScanWindow> scan = CumulativeWindow(*table);
    if (scan.has_value() && out_dims == in_shape.dimensions()) {
      // The reducer folds a window in order, so each prefix is the one
      // before it folded with one more input: O(n) where the windows
      // cost O(n^2) (a cumulative sum of 60000 elements took 36 s). A
      // suffix is the one after it folded with one more input, from the
      // end: the same result for integers, pred, max and min (whose
      // results do not depend on the order); float sums and products
      // round in that order, as the cpu's reverse scans do, where the
      // windows summed pairwise (a reverse cummax of 40000 took 12 s).
      const int64_t len = out_dims[scan->dimension];
      const int64_t stride = out_strides[scan->dimension];
      const int64_t lines = len == 0 ? 0 : out.element_count() / len;
      const int64_t step = scan->reverse ? -stride : stride;
      uint8_t* o = out.untyped_data();
      ParallelFor(lines, 1 << 6, [&](int64_t first, int64_t last) {
        for (int64_t line = first; line < last; ++line) {
          int64_t at = LineStart(line, len, stride) +
                       (scan->reverse ? (len - 1) * stride : 0);
          for (int64_t i = 0; i < len; ++i, at += step) {
            if (i > 0)
              std::memcpy(o + at * width, o + (at - step) * width, width);
            row(o + at * width, in + at * width, 1);
          }
        }
      });
      return out;
    }
    // Outputs are independent: split them across threads.
    ParallelFor(out.element_count(), 1 << 12, [&](int64_t first, int64_t last) {
      WindowTable local = *table;
      std::vector<int64_t> window_offsets, index(out_dims.size());
      std::vector<uint8_t> gathered;
      for (int64_t linear = first; linear < last; ++linear) {
        int64_t rem = linear;
        for (size_t d = 0; d < out_dims.size(); ++d) {
          index[d] = rem / out_strides[d];
          rem %= out_strides[d];
        }
        WindowOffsets(local, index, in_strides, &window_offsets);
        gathered.resize(window_offsets.size() * width);
        for (size_t j = 0; j < window_offsets.size(); ++j) {
          std::memcpy(gathered.data() + j * width,
                      in + window_offsets[j] * width, width);
        }
        row(out.untyped_data() + linear * width, gathered.data(),
            window_offsets.size());
      }
    });
    return out;
  }

  ScalarFn& fn = evaluator.ScalarFnFor(computation);
  if (fn.num_params() != 2 * n || fn.num_results() != n) {
    return InstructionError(
        instr, "reduce-window computation does not match operands");
  }
  std::vector<Literal> accs;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& out_shape =
        instr.shape().IsTuple() ? instr.shape().tuple_shapes(i) : instr.shape();
    if (fn.param_type(i) != out_shape.element_type() ||
        fn.param_type(n + i) != instr.operand(i)->shape().element_type() ||
        out_shape.dimensions() != out_shape0.dimensions() ||
        instr.operand(i)->shape().dimensions() != in_shape.dimensions()) {
      return InstructionError(instr, "reduce-window operands do not match");
    }
    accs.push_back(BroadcastScalar(operands.Get(n + i), out_shape));
  }
  if (n == 1 && IsLogAddExpReducer(computation)) {
    std::optional<Literal> widened = WidenedCumulativeSum(
        instr, *table, operands.Get(0), operands.Get(1), true);
    if (widened.has_value()) return std::move(*widened);
  }
  std::vector<const void*> args(2 * n);
  std::vector<void*> results(n);
  std::optional<ScanWindow> scan = CumulativeWindow(*table);
  if (scan.has_value() && out_shape0.dimensions() == in_shape.dimensions() &&
      (!scan->reverse || (n == 1 && IsLogAddExpReducer(computation)))) {
    // Any reducer: output i of a prefix window is output i - 1 folded with
    // input i, the same calls in the same order as its window's, bit for
    // bit (lax.cumlogsumexp's log-add-exp over rows of 1000 took 4 s). A
    // suffix of log-add-exp, associative in real arithmetic as a float sum
    // is, is output i + 1 folded with input i, rounded in that order (a
    // reverse cumlogsumexp of 20000 took 24 s).
    const int64_t len = in_shape.dimensions(scan->dimension);
    const int64_t stride = in_strides[scan->dimension];
    const int64_t step = scan->reverse ? -stride : stride;
    const int64_t lines = len == 0 ? 0 : operands.Get(0).element_count() / len;
    for (int64_t line = 0; line < lines; ++line) {
      int64_t at = LineStart(line, len, stride) +
                   (scan->reverse ? (len - 1) * stride : 0);
      for (int64_t i = 0; i < len; ++i, at += step) {
        for (int64_t k = 0; k < n; ++k) {
          const int64_t aw = ByteWidth(accs[k].element_type());
          uint8_t* acc = accs[k].untyped_data();
          if (i > 0) std::memcpy(acc + at * aw, acc + (at - step) * aw, aw);
          results[k] = acc + at * aw;
          args[k] = results[k];
          const Literal& x = operands.Get(k);
          args[n + k] = x.untyped_data() + at * ByteWidth(x.element_type());
        }
        absl::Status call = fn.Call(args, results, 1);
        if (!call.ok()) return call;
      }
    }
    if (n == 1) return std::move(accs[0]);
    return Literal::MakeTuple(std::move(accs));
  }
  absl::Status status = ForEachIndexStatus(
      out_shape0.dimensions(),
      [&](absl::Span<const int64_t> index, int64_t linear) {
        WindowOffsets(*table, index, in_strides, &offsets);
        for (int64_t i = 0; i < n; ++i) {
          results[i] = accs[i].untyped_data() +
                       linear * ByteWidth(accs[i].element_type());
          args[i] = results[i];
        }
        for (int64_t off : offsets) {
          for (int64_t i = 0; i < n; ++i) {
            const Literal& x = operands.Get(i);
            args[n + i] = x.untyped_data() + off * ByteWidth(x.element_type());
          }
          absl::Status call = fn.Call(args, results, 1);
          if (!call.ok()) return call;
        }
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  if (n == 1) return std::move(accs[0]);
  return Literal::MakeTuple(std::move(accs));
}

absl::StatusOr<Literal> EvaluateSelectAndScatter(const HloInstruction& instr,
                                                 OperandValues& operands,
                                                 Evaluator& evaluator) {
  if (instr.called_computations().size() != 2 || instr.operand_count() != 3) {
    return InstructionError(instr,
                            "select-and-scatter needs select and scatter");
  }
  const Shape& in_shape = instr.operand(0)->shape();
  const Shape& src_shape = instr.operand(1)->shape();
  absl::StatusOr<WindowTable> table =
      MakeWindowTable(instr, in_shape, src_shape);
  if (!table.ok()) return table.status();
  ScalarFn& select = evaluator.ScalarFnFor(*instr.called_computations()[0]);
  ScalarFn& scatter = evaluator.ScalarFnFor(*instr.called_computations()[1]);
  const PrimitiveType type = in_shape.element_type();
  if (select.num_params() != 2 || select.num_results() != 1 ||
      select.result_type(0) != PRED || select.param_type(0) != type ||
      scatter.num_params() != 2 || scatter.num_results() != 1 ||
      scatter.result_type(0) != instr.shape().element_type()) {
    return InstructionError(instr,
                            "select or scatter computation does not match");
  }
  if (instr.shape().dimensions() != in_shape.dimensions() ||
      operands.Get(2).element_count() != 1) {
    return InstructionError(instr,
                            "select-and-scatter result differs from operand");
  }
  const std::vector<int64_t> in_strides =
      RowMajorStrides(in_shape.dimensions());
  const Literal& input = operands.Get(0);
  const Literal& source = operands.Get(1);
  Literal out = BroadcastScalar(operands.Get(2), instr.shape());
  const int64_t width = ByteWidth(type);
  const int64_t out_width = ByteWidth(instr.shape().element_type());
  const int64_t src_width = ByteWidth(src_shape.element_type());
  std::vector<int64_t> offsets;
  absl::Status status = ForEachIndexStatus(
      src_shape.dimensions(),
      [&](absl::Span<const int64_t> index, int64_t linear) {
        WindowOffsets(*table, index, in_strides, &offsets);
        if (offsets.empty()) return absl::OkStatus();
        int64_t selected = offsets[0];
        for (size_t j = 1; j < offsets.size(); ++j) {
          const void* args[2] = {input.untyped_data() + selected * width,
                                 input.untyped_data() + offsets[j] * width};
          bool keep = false;
          void* result = &keep;
          absl::Status call = select.Call(args, {&result, 1}, 1);
          if (!call.ok()) return call;
          if (!keep) selected = offsets[j];
        }
        void* target = out.untyped_data() + selected * out_width;
        const void* args[2] = {target,
                               source.untyped_data() + linear * src_width};
        return scatter.Call(args, {&target, 1}, 1);
      });
  if (!status.ok()) return status;
  return out;
}

}  // namespace eval
}  // namespace hloc

// Elementwise instructions: one typed kernel call over the whole array (split
// across threads for large arrays), writing into the buffer of an operand
// that is not needed afterwards when the types allow it; single-value
// operands are never expanded to full arrays. map runs its scalar
// computation lane-wise over the elements.
#include <algorithm>
#include <mutex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/kernels.h"
#include "hlo/evaluator/strided_copy.h"

namespace hloc {
namespace eval {

absl::StatusOr<Literal> EvaluateElementwise(const HloInstruction& instr,
                                            OperandValues& operands) {
  absl::StatusOr<ElementwiseFn> fn = SelectElementwiseKernel(instr);
  if (!fn.ok()) return InstructionError(instr, fn.status().message());
  const Shape& shape = instr.shape();
  if (!shape.IsArray()) return InstructionError(instr, "needs an array shape");
  const int64_t n = shape.ElementCount();
  const int64_t k = instr.operand_count();
  // Operands are whole arrays, or single values (a scalar operand of select
  // or clamp, or a broadcast the evaluator kept unexpanded) that are fed to
  // the kernel as a chunk-sized splat instead of a full array.
  constexpr int64_t kSplatChunk = 4096;
  std::vector<std::vector<uint8_t>> splats(k);
  std::vector<bool> is_splat(k, false);
  std::vector<const Literal*> in(k);
  for (int64_t i = 0; i < k; ++i) {
    const Literal& value = operands.Get(i);
    in[i] = &value;
    if (value.shape().dimensions() == shape.dimensions()) continue;
    if (!value.shape().IsArray() || value.element_count() != 1) {
      return InstructionError(
          instr, absl::StrCat("operand ", i, " has shape ",
                              value.shape().ToString(false),
                              " but the result is ", shape.ToString(false)));
    }
    is_splat[i] = true;
    const int64_t w = ByteWidth(value.element_type());
    splats[i].resize(kSplatChunk * w);
    FillElements(splats[i].data(), kSplatChunk, value.untyped_data(), w);
  }
  Literal out;
  bool reused = false;
  for (int64_t i = 0; i < k && !reused; ++i) {
    if (!is_splat[i] && in[i]->element_type() == shape.element_type() &&
        operands.CanTake(i)) {
      out = operands.TakeOrCopy(i);
      in[i] = &out;
      reused = true;
    }
  }
  if (!reused) out = Literal(shape);

  bool any_splat = false;
  std::vector<const uint8_t*> data(k);
  std::vector<int64_t> widths(k);
  for (int64_t i = 0; i < k; ++i) {
    any_splat |= is_splat[i];
    data[i] = is_splat[i] ? splats[i].data() : in[i]->untyped_data();
    widths[i] = ByteWidth(in[i]->element_type());
  }
  uint8_t* out_data = out.untyped_data();
  const int64_t out_width = ByteWidth(shape.element_type());
  const KernelAttrs attrs = KernelAttrsOf(instr);
  const ElementwiseFn kernel = *fn;
  ParallelFor(n, 1 << 16, [&](int64_t begin, int64_t end) {
    const int64_t chunk = any_splat ? kSplatChunk : end - begin;
    for (int64_t at = begin; at < end; at += chunk) {
      const int64_t len = std::min(chunk, end - at);
      const void* ins[3] = {nullptr, nullptr, nullptr};
      for (int64_t i = 0; i < k && i < 3; ++i) {
        ins[i] = is_splat[i] ? data[i] : data[i] + at * widths[i];
      }
      kernel(ins, out_data + at * out_width, len, attrs);
    }
  });
  return out;
}

absl::StatusOr<Literal> EvaluateMap(const HloInstruction& instr,
                                    OperandValues& operands,
                                    Evaluator& evaluator) {
  const HloComputation* computation = instr.to_apply();
  if (computation == nullptr)
    return InstructionError(instr, "map needs to_apply");
  ScalarFn& fn = evaluator.ScalarFnFor(*computation);
  const int64_t k = instr.operand_count();
  const Shape& shape = instr.shape();
  if (fn.num_params() != k || fn.num_results() != 1 ||
      fn.result_type(0) != shape.element_type()) {
    return InstructionError(instr, "map computation does not match operands");
  }
  for (int64_t i = 0; i < k; ++i) {
    if (operands.Get(i).element_type() != fn.param_type(i) ||
        operands.Get(i).shape().dimensions() != shape.dimensions()) {
      return InstructionError(instr, "map operand does not match");
    }
  }
  Literal out(shape);
  const int64_t n = shape.ElementCount();
  const int64_t out_width = ByteWidth(shape.element_type());
  constexpr int64_t kChunk = 4096;
  auto map_range = [&](ScalarFn& f, int64_t first, int64_t last) {
    std::vector<const void*> args(k);
    for (int64_t begin = first; begin < last; begin += kChunk) {
      const int64_t len = std::min(kChunk, last - begin);
      for (int64_t i = 0; i < k; ++i) {
        const Literal& operand = operands.Get(i);
        args[i] =
            operand.untyped_data() + begin * ByteWidth(operand.element_type());
      }
      void* result = out.untyped_data() + begin * out_width;
      absl::Status status = f.Call(args, {&result, 1}, len);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  };
  if (!fn.compiled() || n < (1 << 18)) {
    absl::Status status = map_range(fn, 0, n);
    if (!status.ok()) return status;
    return out;
  }
  // A compiled computation gets a private copy per thread (its lane
  // buffers are state).
  std::vector<absl::Status> statuses;
  std::mutex mu;
  ParallelFor(n, 1 << 16, [&](int64_t first, int64_t last) {
    ScalarFn local(*computation, computation->root_instruction());
    absl::Status status = map_range(local, first, last);
    std::lock_guard<std::mutex> lock(mu);
    statuses.push_back(status);
  });
  for (const absl::Status& status : statuses) {
    if (!status.ok()) return status;
  }
  return out;
}

}  // namespace eval
}  // namespace hloc

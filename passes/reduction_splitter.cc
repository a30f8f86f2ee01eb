#include "passes/reduction_splitter.h"

#include <algorithm>
#include <vector>

#include "hlo/computation.h"

namespace hloc {
namespace {

// Reductions of fewer elements per output stay one reduce: the loop kernel
// that takes them gives each output a thread, and a thread that sums a
// few hundred elements alone (the corpus's sum over [8, 64, 33] minus its
// middle axis, 264 each: one kernel of about 6 us on the H200, as XLA:GPU
// has one) costs less than a second kernel would. An estimate, not a
// measured crossover: at 8192 each (the zoo's sum over [128, 33, 64]
// minus its middle axis) that thread is the whole kernel's time.
constexpr int64_t kMinSplitElementsPerOutput = 1024;

// The runs of reduced dimensions of `dims` (logical = physical order),
// each as its dimension numbers; size-1 dimensions join the run they sit
// in or next to and never separate two.
std::vector<std::vector<int64_t>> ReducedRuns(
    const std::vector<int64_t>& dims, const std::vector<int64_t>& reduced) {
  auto is_reduced = [&](int64_t d) {
    return std::find(reduced.begin(), reduced.end(), d) != reduced.end();
  };
  std::vector<std::vector<int64_t>> runs;
  bool open = false;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (is_reduced(d)) {
      if (!open) runs.emplace_back();
      runs.back().push_back(d);
      open = true;
    } else if (dims[d] != 1) {
      open = false;
    }
  }
  return runs;
}

int64_t Elements(const std::vector<int64_t>& dims,
                 const std::vector<int64_t>& run) {
  int64_t n = 1;
  for (int64_t d : run) n *= dims[d];
  return n;
}

// Splits `reduce` once: its largest run of reduced dimensions first.
absl::StatusOr<HloInstruction*> SplitOnce(HloComputation* computation,
                                          HloInstruction* reduce,
                                          const std::vector<int64_t>& first) {
  const int64_t n = reduce->operand_count() / 2;
  const std::vector<int64_t>& dims = reduce->operand(0)->shape().dimensions();
  // The first reduce keeps every dimension not in `first`.
  std::vector<int64_t> kept_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (std::find(first.begin(), first.end(), d) == first.end()) {
      kept_dims.push_back(dims[d]);
    }
  }
  std::vector<Shape> partial_shapes;
  for (int64_t k = 0; k < n; ++k) {
    partial_shapes.push_back(Shape::Array(
        reduce->operand(n + k)->shape().element_type(), kept_dims));
  }
  const Shape partial_shape =
      n == 1 ? partial_shapes[0] : Shape::Tuple(partial_shapes);
  std::vector<HloInstruction*> operands(reduce->operands().begin(),
                                        reduce->operands().end());
  HloInstruction* partial =
      computation->AddInstruction(HloInstruction::CreateReduce(
          partial_shape, operands, first, reduce->to_apply()));
  // The rest of the reduced dimensions, numbered in the partial result.
  std::vector<int64_t> rest;
  for (int64_t d : reduce->dimensions()) {
    if (std::find(first.begin(), first.end(), d) != first.end()) continue;
    const int64_t before = std::count_if(first.begin(), first.end(),
                                         [&](int64_t f) { return f < d; });
    rest.push_back(d - before);
  }
  std::sort(rest.begin(), rest.end());
  std::vector<HloInstruction*> second_operands;
  for (int64_t k = 0; k < n; ++k) {
    second_operands.push_back(
        n == 1
            ? partial
            : computation->AddInstruction(HloInstruction::CreateGetTupleElement(
                  partial_shapes[k], partial, k)));
  }
  for (int64_t k = 0; k < n; ++k) {
    second_operands.push_back(reduce->operands()[n + k]);
  }
  HloInstruction* combined =
      computation->AddInstruction(HloInstruction::CreateReduce(
          reduce->shape(), second_operands, rest, reduce->to_apply()));
  if (absl::Status s = computation->ReplaceInstruction(reduce, combined);
      !s.ok()) {
    return s;
  }
  return combined;
}

absl::StatusOr<bool> Split(HloComputation* computation,
                           HloInstruction* reduce) {
  bool changed = false;
  for (;;) {
    for (const HloInstruction* operand : reduce->operands()) {
      if (!operand->shape().IsArray() ||
          !operand->shape().HasDescendingLayout()) {
        return changed;
      }
    }
    const std::vector<int64_t>& dims = reduce->operand(0)->shape().dimensions();
    std::vector<std::vector<int64_t>> runs =
        ReducedRuns(dims, reduce->dimensions());
    if (runs.size() < 2) return changed;
    int64_t per_output = 1;
    for (int64_t d : reduce->dimensions()) per_output *= dims[d];
    if (per_output < kMinSplitElementsPerOutput) return changed;
    const auto largest = std::max_element(
        runs.begin(), runs.end(),
        [&](const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
          return Elements(dims, a) < Elements(dims, b);
        });
    absl::StatusOr<HloInstruction*> next =
        SplitOnce(computation, reduce, *largest);
    if (!next.ok()) return next.status();
    reduce = *next;
    changed = true;
  }
}

}  // namespace

absl::StatusOr<bool> ReductionSplitter::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kReduce, "reductions-split",
                     [&](HloComputation* computation, HloInstruction* instr) {
                       return Split(computation, instr);
                     });
}

}  // namespace hloc

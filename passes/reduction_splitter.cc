#include "passes/reduction_splitter.h"

#include <algorithm>
#include <vector>

#include "hlo/computation.h"
#include "passes/reduce_in_two.h"

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
  // The rest of the reduced dimensions, numbered in the partial result.
  std::vector<int64_t> rest;
  for (int64_t d : reduce->dimensions()) {
    if (std::find(first.begin(), first.end(), d) != first.end()) continue;
    const int64_t before = std::count_if(first.begin(), first.end(),
                                         [&](int64_t f) { return f < d; });
    rest.push_back(d - before);
  }
  std::sort(rest.begin(), rest.end());
  const int64_t n = reduce->operand_count() / 2;
  const std::vector<HloInstruction*> inputs(reduce->operands().begin(),
                                            reduce->operands().begin() + n);
  HloInstruction* combined =
      ReduceInTwo(computation, *reduce, inputs, first, rest);
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

// Long sorts by a key order as radix sorts ("radix-sort-rewriter").
//
// A comparison sort of a row longer than the GPU sort kernel's shared
// memory takes a merge sort of many kernels (sort-splitter); XLA:GPU sorts
// such rows with CUB's radix sort. A sort qualifies when its comparator
// orders elements by one operand's value through a function of it alone:
//
//   less(x, y) = f(x_k) < f(y_k)   or   f(x_k) > f(y_k)
//
// where the root is a compare (LT or GT) of two mirror-image expressions,
// one of parameter 2k only, the other of parameter 2k + 1 only (jnp.sort's
// comparator canonicalises -0 and NaN before a TOTALORDER compare: f is
// that canonicalisation). The compare must be a strict order: integers, or
// floats in total order (a partial-order float compare does not order
// NaNs). Such a comparator is a key order, which a stable radix sort of
// the unsigned key
//
//   u(x) = ordered bits of f(x) (floats: negatives' bits flipped, positives'
//          sign set; signed integers: sign flipped), inverted for GT
//
// reproduces bit for bit, ties in the stable order. The sort becomes the
// custom call radix_sort_plan.h describes, with u as its key computation
// and operand k moved first.
//
// Rows of at least `min_row_length` elements are rewritten, with fewer
// than 2^31 elements in all (u32 positions). Past the bitonic kernel's
// 8192 the alternative is sort-splitter's merge sort of many kernels; from
// 1024 on, the radix sort beats the bitonic network too (argsorts of f32
// on the H200: 4096 rows of 1024 0.091 ms against 0.242, 2048 rows of
// 2000 0.086 against 0.236, 512 rows of 6000 0.227 against 0.277;
// tools/gpu_bench/RESULTS.md, session 18). Both GPU pipelines run it:
// the kernels are the shared emitters' (backends/gpu/radix_sort_emitter.cc,
// ballots of the warp's width, 32 or 64).
#ifndef PASSES_RADIX_SORT_REWRITER_H_
#define PASSES_RADIX_SORT_REWRITER_H_

#include <cstdint>

#include "passes/pass.h"

namespace hloc {

class RadixSortRewriter : public HloPass {
 public:
  static constexpr int64_t kGpuMinRowLength = 1024;
  explicit RadixSortRewriter(int64_t min_row_length = kGpuMinRowLength)
      : min_row_length_(min_row_length) {}
  absl::string_view name() const override { return "radix-sort-rewriter"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  int64_t min_row_length_;
};

}  // namespace hloc

#endif  // PASSES_RADIX_SORT_REWRITER_H_

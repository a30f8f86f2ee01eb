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
// Rows longer than `min_row_length` are rewritten (the GPU pipeline: the
// sort kernel's shared-memory limit, beyond which sort-splitter would
// otherwise merge), with fewer than 2^31 elements in all (u32 positions).
#ifndef PASSES_RADIX_SORT_REWRITER_H_
#define PASSES_RADIX_SORT_REWRITER_H_

#include <cstdint>

#include "passes/pass.h"

namespace hloc {

class RadixSortRewriter : public HloPass {
 public:
  explicit RadixSortRewriter(int64_t min_row_length = 8192)
      : min_row_length_(min_row_length) {}
  absl::string_view name() const override { return "radix-sort-rewriter"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  int64_t min_row_length_;
};

}  // namespace hloc

#endif  // PASSES_RADIX_SORT_REWRITER_H_

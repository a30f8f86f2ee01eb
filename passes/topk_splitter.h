// Long topk rows split into chunks ("topk-splitter").
//
// The GPU topk (and sort) kernel sorts a row in shared memory and takes
// rows of up to 8192 elements; jax.lax.top_k over a vocabulary (32000,
// 50257, 131072) is longer. A topk with small k is a topk of topks: the
// row of n elements is cut into c chunks of s (padded at the end with the
// value topk orders last), each chunk's top k found by the kernel in
// parallel, the chunk's offset added to its indices, and the c*k
// candidates merged by a stable sort of (values, indices) in topk order,
// sliced to k:
//   topk(x[B, n])  =>  sort(topk(x'[B*c, s]) + offsets, as [B, c*k])[:, :k]
// When c*k is itself longer than the limit the candidates are merged in
// groups first, as many levels as it takes.
//
// The result equals the topk's exactly. Candidates stay in chunk order and
// each chunk's are in topk order, so among equal values (ties and NaNs
// alike) position order is index order, and the stable merge keeps the
// lower index first, as topk does. The padding has the last value in topk
// order and positions after every element, so it sorts after everything;
// a row has at least k elements, so none reaches the result.
//
// Rows longer than `max_row_length` whose k is at most half of it (a merge
// must take two chunks' candidates) are split; the GPU pipelines run it
// with the kernel's limit.
#ifndef PASSES_TOPK_SPLITTER_H_
#define PASSES_TOPK_SPLITTER_H_

#include <cstdint>

#include "passes/pass.h"

namespace hloc {

class TopKSplitter : public HloPass {
 public:
  // The GPU sort kernel's row limit (backends/gpu/sort_emitter.cc).
  static constexpr int64_t kGpuMaxRowLength = 8192;

  explicit TopKSplitter(int64_t max_row_length = kGpuMaxRowLength)
      : max_row_length_(max_row_length) {}
  absl::string_view name() const override { return "topk-splitter"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  int64_t max_row_length_;
};

}  // namespace hloc

#endif  // PASSES_TOPK_SPLITTER_H_

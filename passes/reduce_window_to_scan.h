// Prefix reduce-windows become scans ("reduce-window-to-scan").
//
// JAX lowers jnp.cumsum / cumprod / cummax / cummin (and the logical
// cumulative ops) along an axis of extent n to a reduce-window whose
// window covers the whole axis, padded so that window i ends at element i:
//     reduce-window(x, init), window={size=1xn pad=0_0x(n-1)_0}, to_apply=op
// i.e. out[i] = init op x[0] op ... op x[i]. Computed as written that is
// O(n^2) work (each output re-reduces its whole prefix). The same result is
// a scan along that axis with the init as its carry:
//     scan(x, broadcast(init)), dimensions={d}, num_carries=1,
//          is_associative=true, to_apply={ s = op(c, x); ROOT (s, s) }
// whose first output replaces the reduce-window. A window padded the other
// way (low 0, high n-1: out[i] = init op x[i] op ... op x[n-1], a reverse
// cumsum) becomes a scan with is_reverse=true.
//
// Only exact prefix windows are rewritten: one window dimension of size n
// with that padding, stride 1 and no dilation or reversal; every other
// window dimension of size 1 with no padding; a constant scalar init; a
// reducer computed from its two scalar parameters by elementwise
// instructions and scalar constants alone, which the scan body applies to
// whole slices, the carry as the reducer's first operand.
//
// A reducer that is one binary op of its two parameters among add,
// multiply, maximum, minimum, and, or (all associative), or log-add-exp as
// JAX writes it for lax.cumlogsumexp (associative in real arithmetic, as a
// float sum is; hlo/reducer_patterns.h), makes a scan marked associative,
// so a backend may reassociate (GPUs scan a row with a warp; float sums
// may then differ in the last bits, as any parallel prefix sum does), and
// reverse windows are rewritten too: the reverse scan folds from the end,
// so even a sequential float sum associates differently from the
// reduce-window's left-to-right order. Any other reducer (a subtract, a
// decaying a * c + b) makes a scan that is not marked associative, folded
// left to right exactly as the reduce-window is, so only forward windows
// are rewritten: O(n) steps a row instead of O(n^2), sequential along the
// axis.
//
// Every pipeline runs it before fusion: backends/gpu has a parallel scan
// kernel, backends/cpu a row-parallel one (scan_emitter.h).
#ifndef PASSES_REDUCE_WINDOW_TO_SCAN_H_
#define PASSES_REDUCE_WINDOW_TO_SCAN_H_

#include "passes/pass.h"

namespace hloc {

class ReduceWindowToScan : public HloPass {
 public:
  // `widen_narrow_sums`: scan bf16 and f16 sums and log-add-exps in f32,
  // rounding each output once (where the pipeline allows excess
  // precision). Folded in order in the narrow type, a cumulative sum stops
  // growing once its carry is 256 (bf16) or 2048 (f16) times its addends;
  // XLA:CPU scans long windows in blocks of 16, which keeps it close to the
  // exact sum.
  explicit ReduceWindowToScan(bool widen_narrow_sums = false)
      : widen_narrow_sums_(widen_narrow_sums) {}
  absl::string_view name() const override { return "reduce-window-to-scan"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  bool widen_narrow_sums_;
};

}  // namespace hloc

#endif  // PASSES_REDUCE_WINDOW_TO_SCAN_H_

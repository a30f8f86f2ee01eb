// The window positions that read the input, per dimension, for the
// evaluator's windowed ops (reduce-window, select-and-scatter, convolution).
//
// They are found for one output coordinate at a time, never tabulated for
// every (output, window position) pair: such a table holds output x window
// entries per dimension, n^2 for the windows JAX gives a cumulative sum
// (window n, padding n - 1: 29 GB at n = 60000) or a full correlation of n
// samples (6.4 GB at n = 20000), where only the positions inside the input
// cost work.
#ifndef HLO_EVALUATOR_WINDOW_POSITIONS_H_
#define HLO_EVALUATOR_WINDOW_POSITIONS_H_

#include <algorithm>
#include <cstdint>

#include "hlo/attributes.h"

namespace hloc {
namespace eval {

// Calls fn(k, c) for each window position k of output coordinate `o` along
// a dimension of `in_size` input elements that reads input coordinate c
// (not padding, nor a hole of base dilation), in increasing k.
template <typename Fn>
void ForEachWindowPosition(const WindowDimension& w, int64_t in_size, int64_t o,
                           Fn fn) {
  const int64_t base = o * w.stride - w.padding_low;
  const int64_t dil = w.window_dilation;
  int64_t k_first = 0, k_end = w.size;
  if (w.base_dilation == 1) {
    // Without holes the positions inside the input are one run of k:
    // 0 <= base + k * dil < in_size.
    if (base < 0) k_first = (-base + dil - 1) / dil;
    k_end =
        base >= in_size ? 0 : std::min(k_end, (in_size - 1 - base) / dil + 1);
  }
  for (int64_t k = k_first; k < k_end; ++k) {
    int64_t c = base + k * dil;
    if (c < 0 || c % w.base_dilation != 0) continue;
    c /= w.base_dilation;
    if (c < in_size) fn(k, c);
  }
}

}  // namespace eval
}  // namespace hloc

#endif  // HLO_EVALUATOR_WINDOW_POSITIONS_H_

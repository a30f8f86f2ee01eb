// Integer arithmetic every pass and emitter needs.
#ifndef HLO_MATH_UTIL_H_
#define HLO_MATH_UTIL_H_

#include <cstdint>

namespace hloc {

// ceil(a / b) for a >= 0 and b > 0: tiles, blocks or chunks of b that
// cover a.
constexpr int64_t CeilOfRatio(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The least multiple of b that is at least a, for a >= 0 and b > 0: a size
// padded to an alignment, a thread count to whole warps.
constexpr int64_t RoundUpTo(int64_t a, int64_t b) {
  return CeilOfRatio(a, b) * b;
}

}  // namespace hloc

#endif  // HLO_MATH_UTIL_H_

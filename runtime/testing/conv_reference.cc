#include "runtime/testing/conv_reference.h"

#include <algorithm>
#include <cmath>

namespace hloc {
namespace testing {

double ConvReferenceError(const ConvTestShape& t, const Literal& input,
                          const Literal& second, const Literal& result) {
  const int64_t cg = t.c / t.groups, kg = t.k / t.groups;
  double worst = 0;
  if (!t.backward_filter) {
    for (int64_t n = 0; n < t.n; ++n) {
      for (int64_t y = 0; y < t.OutH(); ++y) {
        for (int64_t x = 0; x < t.OutW(); ++x) {
          for (int64_t k = 0; k < t.k; ++k) {
            double sum = 0;
            for (int64_t r = 0; r < t.r; ++r) {
              for (int64_t s = 0; s < t.s; ++s) {
                const int64_t iy = y * t.stride - t.padding + r * t.dilation;
                const int64_t ix = x * t.stride - t.padding + s * t.dilation;
                if (iy < 0 || iy >= t.h || ix < 0 || ix >= t.w) continue;
                for (int64_t c = 0; c < cg; ++c) {
                  const int64_t channel = (k / kg) * cg + c;
                  sum += input.GetAsDouble(t.InputIndex(n, iy, ix, channel)) *
                         second.GetAsDouble(t.FilterIndex(k, r, s, c));
                }
              }
            }
            const double got = result.GetAsDouble(t.OutIndex(n, y, x, k));
            worst = std::max(worst, std::abs(got - sum));
          }
        }
      }
    }
    return worst;
  }
  for (int64_t k = 0; k < t.k; ++k) {
    for (int64_t r = 0; r < t.r; ++r) {
      for (int64_t s = 0; s < t.s; ++s) {
        for (int64_t c = 0; c < cg; ++c) {
          const int64_t channel = (k / kg) * cg + c;
          double sum = 0;
          for (int64_t n = 0; n < t.n; ++n) {
            for (int64_t y = 0; y < t.OutH(); ++y) {
              for (int64_t x = 0; x < t.OutW(); ++x) {
                const int64_t iy = y * t.stride - t.padding + r * t.dilation;
                const int64_t ix = x * t.stride - t.padding + s * t.dilation;
                if (iy < 0 || iy >= t.h || ix < 0 || ix >= t.w) continue;
                sum += input.GetAsDouble(t.InputIndex(n, iy, ix, channel)) *
                       second.GetAsDouble(t.OutIndex(n, y, x, k));
              }
            }
          }
          const double got = result.GetAsDouble(t.FilterIndex(k, r, s, c));
          worst = std::max(worst, std::abs(got - sum));
        }
      }
    }
  }
  return worst;
}

}  // namespace testing
}  // namespace hloc

// A model of AMD's single-block MFMA instructions written from AMD's
// published register layout in the element -> (lane, slot) direction (the
// CDNA3 ISA guide's MFMA section; AMD's matrix instruction calculator
// prints the same formulas), independent of mfma_layout.h, which maps the
// other way for the emitter. Used by mfma_layout_test (a wave simulated on
// plain arrays) and by the simulated GPU (host_simt.h), which executes the
// tiled dot kernel's MFMA path with it. Tests only: NO AMD GPU has checked
// this model for this project; it encodes the documentation.
#ifndef BACKENDS_GPU_TESTING_MFMA_MODEL_H_
#define BACKENDS_GPU_TESTING_MFMA_MODEL_H_

#include <utility>
#include <vector>

#include "backends/gpu/mfma_layout.h"

namespace hloc {

// (lane, element of the lane's A operand) holding A[i][k].
inline std::pair<int, int> ModelAPosition(const MfmaShape& s, int i, int k) {
  return {i + s.m * (k / s.values_per_lane), k % s.values_per_lane};
}
// (lane, element of the lane's B operand) holding B[k][j].
inline std::pair<int, int> ModelBPosition(const MfmaShape& s, int k, int j) {
  return {j + s.n * (k / s.values_per_lane), k % s.values_per_lane};
}
// (lane, accumulator register) holding C[i][j] and D[i][j] (32-bit).
inline std::pair<int, int> ModelDPosition(const MfmaShape& s, int i, int j) {
  const int reg = s.m == 32 ? 4 * (i / 8) + i % 4 : i % 4;
  return {(s.n * (i / 4)) % kMfmaWaveSize + j, reg};
}

// One instruction on a wave's registers: a[lane][v], b[lane][v],
// acc[lane][r] (C in, D out), summing each element's k products in order
// after C, in T's precision.
template <typename T>
void ExecuteMfmaModel(const MfmaShape& s, const std::vector<std::vector<T>>& a,
                      const std::vector<std::vector<T>>& b,
                      std::vector<std::vector<T>>& acc) {
  std::vector<std::vector<T>> d(s.m, std::vector<T>(s.n));
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) {
      auto [cl, cr] = ModelDPosition(s, i, j);
      T sum = acc[cl][cr];
      for (int k = 0; k < s.k; ++k) {
        auto [al, av] = ModelAPosition(s, i, k);
        auto [bl, bv] = ModelBPosition(s, k, j);
        sum += a[al][av] * b[bl][bv];
      }
      d[i][j] = sum;
    }
  }
  for (int i = 0; i < s.m; ++i) {
    for (int j = 0; j < s.n; ++j) {
      auto [l, r] = ModelDPosition(s, i, j);
      acc[l][r] = d[i][j];
    }
  }
}

}  // namespace hloc

#endif  // BACKENDS_GPU_TESTING_MFMA_MODEL_H_

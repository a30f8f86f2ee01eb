// A model of AMD's single-block MFMA instructions and NVIDIA's
// mma.sync.m16n8k16, written from the vendors' published register layouts
// in the element -> (lane, slot) direction (the CDNA3 ISA guide's MFMA
// section and AMD's matrix instruction calculator; the PTX ISA's mma
// fragment tables), independent of matrix_layout.h, which maps the other
// way for the emitter. Used by matrix_layout_test (a wave simulated on
// plain arrays) and by the simulated GPU (host_simt.h), which executes the
// tiled dot kernel's MFMA path with it. Tests only: NO AMD GPU has checked
// the MFMA model for this project; it encodes the documentation.
#ifndef BACKENDS_GPU_TESTING_MATRIX_MODEL_H_
#define BACKENDS_GPU_TESTING_MATRIX_MODEL_H_

#include <utility>
#include <vector>

#include "backends/gpu/matrix_layout.h"

namespace hloc {

// (lane, element of the lane's A operand) holding A[i][k]. NVIDIA: the
// PTX ISA's fragment tables read from the matrix side (rows i and i + 8
// share a lane, as do columns 2t, 2t + 1 and their + 8 partners).
inline std::pair<int, int> ModelAPosition(const MatrixShape& s, int i, int k) {
  if (IsNvidiaMatrixKind(s.kind)) {
    return {(i % 8) * 4 + (k % 8) / 2, k % 2 + 2 * (i / 8) + 4 * (k / 8)};
  }
  return {i + s.m * (k / s.a_values), k % s.a_values};
}
// (lane, element of the lane's B operand) holding B[k][j].
inline std::pair<int, int> ModelBPosition(const MatrixShape& s, int k, int j) {
  if (IsNvidiaMatrixKind(s.kind)) {
    return {j * 4 + (k % 8) / 2, k % 2 + 2 * (k / 8)};
  }
  return {j + s.n * (k / s.b_values), k % s.b_values};
}
// (lane, accumulator register) holding C[i][j] and D[i][j] (32-bit).
inline std::pair<int, int> ModelDPosition(const MatrixShape& s, int i, int j) {
  if (IsNvidiaMatrixKind(s.kind)) {
    return {(i % 8) * 4 + j / 2, j % 2 + 2 * (i / 8)};
  }
  const int reg = s.m == 32 ? 4 * (i / 8) + i % 4 : i % 4;
  return {(s.n * (i / 4)) % kMfmaWaveSize + j, reg};
}

// One instruction on a wave's registers: a[lane][v], b[lane][v],
// acc[lane][r] (C in, D out), summing each element's k products in order
// after C, in T's precision.
template <typename T>
void ExecuteMatrixModel(const MatrixShape& s,
                        const std::vector<std::vector<T>>& a,
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

#endif  // BACKENDS_GPU_TESTING_MATRIX_MODEL_H_

// The matrix instructions' lane layouts (matrix_layout.h: AMD's MFMA and
// NVIDIA's mma.sync) against a model of each instruction written
// independently from the vendor's published layout, in the other
// direction (matrix element -> register and lane: testing/matrix_model.h).
// A simulated warp loads A, B and C by the emitter's functions, the model
// executes D = A * B + C reading the lanes' registers where the vendor
// says each element is, and the result, read back by the emitter's
// accumulator function, must equal the matrix product. This runs on the
// CPU: no AMD GPU has executed the MFMA instructions for this project;
// the mma.sync form is also run on the H100 by tests/gpu.
#include "backends/gpu/matrix_layout.h"

#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "backends/gpu/testing/matrix_model.h"
#include "gtest/gtest.h"

namespace hloc {
namespace {

// A lane's registers for one instruction: a_values A and b_values B
// elements, `accumulators` C/D elements.
struct Wave {
  std::vector<std::vector<double>> a, b, acc;
  explicit Wave(const MatrixShape& s)
      : a(s.lanes, std::vector<double>(s.a_values)),
        b(s.lanes, std::vector<double>(s.b_values)),
        acc(s.lanes, std::vector<double>(s.accumulators)) {}
};

void ExecuteModel(const MatrixShape& s, Wave& w) {
  ExecuteMatrixModel(s, w.a, w.b, w.acc);
}

std::pair<int, int> ModelA(const MatrixShape& s, int i, int k) {
  return ModelAPosition(s, i, k);
}
std::pair<int, int> ModelB(const MatrixShape& s, int k, int j) {
  return ModelBPosition(s, k, j);
}
std::pair<int, int> ModelD(const MatrixShape& s, int i, int j) {
  return ModelDPosition(s, i, j);
}

class MatrixLayoutTest : public ::testing::TestWithParam<MatrixKind> {};

TEST_P(MatrixLayoutTest, ShapeIsOneWaveOfRegisters) {
  const MatrixShape s = GetMatrixShape(GetParam());
  EXPECT_EQ(s.m * s.k, s.lanes * s.a_values);
  EXPECT_EQ(s.n * s.k, s.lanes * s.b_values);
  EXPECT_EQ(s.m * s.n, s.lanes * s.accumulators);
}

// Every element of A, B and D is held by exactly one (lane, slot).
TEST_P(MatrixLayoutTest, MappingsAreBijections) {
  const MatrixShape s = GetMatrixShape(GetParam());
  std::set<std::pair<int, int>> a, b, d;
  for (int lane = 0; lane < s.lanes; ++lane) {
    for (int v = 0; v < s.a_values; ++v) {
      MatrixElement<int> ea = MatrixAElement(s, lane, v);
      EXPECT_TRUE(ea.row < s.m && ea.col < s.k);
      a.insert({ea.row, ea.col});
    }
    for (int v = 0; v < s.b_values; ++v) {
      MatrixElement<int> eb = MatrixBElement(s, lane, v);
      EXPECT_TRUE(eb.row < s.k && eb.col < s.n);
      b.insert({eb.row, eb.col});
    }
    for (int r = 0; r < s.accumulators; ++r) {
      MatrixElement<int> e = MatrixAccumulatorElement(s, lane, r);
      EXPECT_TRUE(e.row < s.m && e.col < s.n);
      d.insert({e.row, e.col});
    }
  }
  EXPECT_EQ(a.size(), static_cast<size_t>(s.m * s.k));
  EXPECT_EQ(b.size(), static_cast<size_t>(s.k * s.n));
  EXPECT_EQ(d.size(), static_cast<size_t>(s.m * s.n));
}

// A lane's operand elements come in runs of k_run consecutive k in one row
// of A (column of B), each starting at a multiple of k_run: the kernel
// loads each run from shared memory at once.
TEST_P(MatrixLayoutTest, OperandsComeInAlignedRunsAlongK) {
  const MatrixShape s = GetMatrixShape(GetParam());
  ASSERT_GE(s.k_run, 1);
  EXPECT_EQ(s.a_values % s.k_run, 0);
  EXPECT_EQ(s.b_values % s.k_run, 0);
  for (int lane = 0; lane < s.lanes; ++lane) {
    for (int v = 0; v < s.a_values; v += s.k_run) {
      const MatrixElement<int> first = MatrixAElement(s, lane, v);
      EXPECT_EQ(first.col % s.k_run, 0);
      for (int r = 1; r < s.k_run; ++r) {
        const MatrixElement<int> e = MatrixAElement(s, lane, v + r);
        EXPECT_EQ(e.row, first.row);
        EXPECT_EQ(e.col, first.col + r);
      }
    }
    for (int v = 0; v < s.b_values; v += s.k_run) {
      const MatrixElement<int> first = MatrixBElement(s, lane, v);
      EXPECT_EQ(first.row % s.k_run, 0);
      for (int r = 1; r < s.k_run; ++r) {
        const MatrixElement<int> e = MatrixBElement(s, lane, v + r);
        EXPECT_EQ(e.col, first.col);
        EXPECT_EQ(e.row, first.row + r);
      }
    }
  }
}

// The emitter's mapping agrees with the vendor's, element by element.
TEST_P(MatrixLayoutTest, AgreesWithTheModelsDirection) {
  const MatrixShape s = GetMatrixShape(GetParam());
  for (int lane = 0; lane < s.lanes; ++lane) {
    for (int v = 0; v < s.a_values; ++v) {
      MatrixElement<int> ea = MatrixAElement(s, lane, v);
      EXPECT_EQ(ModelA(s, ea.row, ea.col), std::make_pair(lane, v));
    }
    for (int v = 0; v < s.b_values; ++v) {
      MatrixElement<int> eb = MatrixBElement(s, lane, v);
      EXPECT_EQ(ModelB(s, eb.row, eb.col), std::make_pair(lane, v));
    }
    for (int r = 0; r < s.accumulators; ++r) {
      MatrixElement<int> e = MatrixAccumulatorElement(s, lane, r);
      EXPECT_EQ(ModelD(s, e.row, e.col), std::make_pair(lane, r));
    }
  }
}

// A wave loaded by the emitter's functions and executed by the model
// computes A * B + C; accumulating over several instructions (as the
// kernel does along K) too.
TEST_P(MatrixLayoutTest, SimulatedWaveComputesTheProduct) {
  const MatrixShape s = GetMatrixShape(GetParam());
  constexpr int kSteps = 3;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-8, 8);
  const int k_total = s.k * kSteps;
  std::vector<std::vector<double>> a(s.m, std::vector<double>(k_total));
  std::vector<std::vector<double>> b(k_total, std::vector<double>(s.n));
  std::vector<std::vector<double>> c(s.m, std::vector<double>(s.n));
  for (auto& row : a) {
    for (double& x : row) x = small(rng);
  }
  for (auto& row : b) {
    for (double& x : row) x = small(rng);
  }
  for (auto& row : c) {
    for (double& x : row) x = small(rng);
  }
  Wave w(s);
  for (int lane = 0; lane < s.lanes; ++lane) {
    for (int r = 0; r < s.accumulators; ++r) {
      MatrixElement<int> e = MatrixAccumulatorElement(s, lane, r);
      w.acc[lane][r] = c[e.row][e.col];
    }
  }
  for (int step = 0; step < kSteps; ++step) {
    for (int lane = 0; lane < s.lanes; ++lane) {
      for (int v = 0; v < s.a_values; ++v) {
        MatrixElement<int> ea = MatrixAElement(s, lane, v);
        w.a[lane][v] = a[ea.row][step * s.k + ea.col];
      }
      for (int v = 0; v < s.b_values; ++v) {
        MatrixElement<int> eb = MatrixBElement(s, lane, v);
        w.b[lane][v] = b[step * s.k + eb.row][eb.col];
      }
    }
    ExecuteModel(s, w);
  }
  int mismatches = 0;
  for (int lane = 0; lane < s.lanes; ++lane) {
    for (int r = 0; r < s.accumulators; ++r) {
      MatrixElement<int> e = MatrixAccumulatorElement(s, lane, r);
      double expected = c[e.row][e.col];
      for (int k = 0; k < k_total; ++k) expected += a[e.row][k] * b[k][e.col];
      if (w.acc[lane][r] != expected) ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// A deliberately wrong layout (rows and columns of D swapped) must fail
// the simulation: the test can tell a wrong mapping from a right one.
TEST(MatrixLayoutModelTest, DetectsATransposedAccumulatorLayout) {
  const MatrixShape s = GetMatrixShape(MatrixKind::kF32_32x32x2);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> small(-8, 8);
  Wave w(s);
  std::vector<std::vector<double>> a(s.m, std::vector<double>(s.k));
  std::vector<std::vector<double>> b(s.k, std::vector<double>(s.n));
  for (auto& row : a) {
    for (double& x : row) x = small(rng);
  }
  for (auto& row : b) {
    for (double& x : row) x = small(rng);
  }
  for (int lane = 0; lane < s.lanes; ++lane) {
    MatrixElement<int> ea = MatrixAElement(s, lane, 0);
    MatrixElement<int> eb = MatrixBElement(s, lane, 0);
    w.a[lane][0] = a[ea.row][ea.col];
    w.b[lane][0] = b[eb.row][eb.col];
  }
  ExecuteModel(s, w);
  int mismatches = 0;
  for (int lane = 0; lane < s.lanes; ++lane) {
    for (int r = 0; r < s.accumulators; ++r) {
      MatrixElement<int> e = MatrixAccumulatorElement(s, lane, r);
      double swapped = 0;
      for (int k = 0; k < s.k; ++k) swapped += a[e.col][k] * b[k][e.row];
      if (w.acc[lane][r] != swapped) ++mismatches;
    }
  }
  EXPECT_GT(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, MatrixLayoutTest,
    ::testing::Values(MatrixKind::kF32_32x32x2, MatrixKind::kF32_16x16x4,
                      MatrixKind::kF16_32x32x8, MatrixKind::kF16_16x16x16,
                      MatrixKind::kBF16_32x32x8, MatrixKind::kBF16_16x16x16,
                      MatrixKind::kNvF16_16x8x16, MatrixKind::kNvBF16_16x8x16),
    [](const ::testing::TestParamInfo<MatrixKind>& info) {
      switch (info.param) {
        case MatrixKind::kF32_32x32x2:
          return "f32_32x32x2";
        case MatrixKind::kF32_16x16x4:
          return "f32_16x16x4";
        case MatrixKind::kF16_32x32x8:
          return "f16_32x32x8";
        case MatrixKind::kF16_16x16x16:
          return "f16_16x16x16";
        case MatrixKind::kBF16_32x32x8:
          return "bf16_32x32x8";
        case MatrixKind::kBF16_16x16x16:
          return "bf16_16x16x16";
        case MatrixKind::kNvF16_16x8x16:
          return "nv_f16_16x8x16";
        case MatrixKind::kNvBF16_16x8x16:
          return "nv_bf16_16x8x16";
      }
      return "unknown";
    });

}  // namespace
}  // namespace hloc

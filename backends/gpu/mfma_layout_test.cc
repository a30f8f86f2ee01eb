// The MFMA lane layout (mfma_layout.h) against a model of the instruction
// written independently from AMD's published layout, in the other
// direction (matrix element -> register and lane, as AMD's matrix
// instruction calculator and the CDNA3 ISA guide state it:
// testing/mfma_model.h). A simulated
// wave of 64 lanes loads A, B and C by the emitter's functions, the model
// executes D = A * B + C reading the lanes' registers where AMD says each
// element is, and the result, read back by the emitter's accumulator
// function, must equal the matrix product. This runs on the CPU: no AMD
// GPU has executed these instructions for this project.
#include "backends/gpu/mfma_layout.h"

#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "backends/gpu/testing/mfma_model.h"
#include "gtest/gtest.h"

namespace hloc {
namespace {

// A lane's registers for one instruction: values_per_lane A and B elements,
// `accumulators` C/D elements.
struct Wave {
  std::vector<std::vector<double>> a, b, acc;
  explicit Wave(const MfmaShape& s)
      : a(kMfmaWaveSize, std::vector<double>(s.values_per_lane)),
        b(kMfmaWaveSize, std::vector<double>(s.values_per_lane)),
        acc(kMfmaWaveSize, std::vector<double>(s.accumulators)) {}
};

void ExecuteModel(const MfmaShape& s, Wave& w) {
  ExecuteMfmaModel(s, w.a, w.b, w.acc);
}

std::pair<int, int> ModelA(const MfmaShape& s, int i, int k) {
  return ModelAPosition(s, i, k);
}
std::pair<int, int> ModelB(const MfmaShape& s, int k, int j) {
  return ModelBPosition(s, k, j);
}
std::pair<int, int> ModelD(const MfmaShape& s, int i, int j) {
  return ModelDPosition(s, i, j);
}

class MfmaLayoutTest : public ::testing::TestWithParam<MfmaKind> {};

TEST_P(MfmaLayoutTest, ShapeIsOneWaveOfRegisters) {
  const MfmaShape s = GetMfmaShape(GetParam());
  EXPECT_EQ(s.m * s.k, kMfmaWaveSize * s.values_per_lane);
  EXPECT_EQ(s.n * s.k, kMfmaWaveSize * s.values_per_lane);
  EXPECT_EQ(s.m * s.n, kMfmaWaveSize * s.accumulators);
}

// Every element of A, B and D is held by exactly one (lane, slot).
TEST_P(MfmaLayoutTest, MappingsAreBijections) {
  const MfmaShape s = GetMfmaShape(GetParam());
  std::set<std::pair<int, int>> a, b, d;
  for (int lane = 0; lane < kMfmaWaveSize; ++lane) {
    for (int v = 0; v < s.values_per_lane; ++v) {
      MfmaElement<int> ea = MfmaAElement(s, lane, v);
      MfmaElement<int> eb = MfmaBElement(s, lane, v);
      EXPECT_TRUE(ea.row < s.m && ea.col < s.k);
      EXPECT_TRUE(eb.row < s.k && eb.col < s.n);
      a.insert({ea.row, ea.col});
      b.insert({eb.row, eb.col});
    }
    for (int r = 0; r < s.accumulators; ++r) {
      MfmaElement<int> e = MfmaAccumulatorElement(s, lane, r);
      EXPECT_TRUE(e.row < s.m && e.col < s.n);
      d.insert({e.row, e.col});
    }
  }
  EXPECT_EQ(a.size(), static_cast<size_t>(s.m * s.k));
  EXPECT_EQ(b.size(), static_cast<size_t>(s.k * s.n));
  EXPECT_EQ(d.size(), static_cast<size_t>(s.m * s.n));
}

// The emitter's mapping agrees with AMD's, element by element.
TEST_P(MfmaLayoutTest, AgreesWithTheModelsDirection) {
  const MfmaShape s = GetMfmaShape(GetParam());
  for (int lane = 0; lane < kMfmaWaveSize; ++lane) {
    for (int v = 0; v < s.values_per_lane; ++v) {
      MfmaElement<int> ea = MfmaAElement(s, lane, v);
      EXPECT_EQ(ModelA(s, ea.row, ea.col), std::make_pair(lane, v));
      MfmaElement<int> eb = MfmaBElement(s, lane, v);
      EXPECT_EQ(ModelB(s, eb.row, eb.col), std::make_pair(lane, v));
    }
    for (int r = 0; r < s.accumulators; ++r) {
      MfmaElement<int> e = MfmaAccumulatorElement(s, lane, r);
      EXPECT_EQ(ModelD(s, e.row, e.col), std::make_pair(lane, r));
    }
  }
}

// A wave loaded by the emitter's functions and executed by the model
// computes A * B + C; accumulating over several instructions (as the
// kernel does along K) too.
TEST_P(MfmaLayoutTest, SimulatedWaveComputesTheProduct) {
  const MfmaShape s = GetMfmaShape(GetParam());
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
  for (int lane = 0; lane < kMfmaWaveSize; ++lane) {
    for (int r = 0; r < s.accumulators; ++r) {
      MfmaElement<int> e = MfmaAccumulatorElement(s, lane, r);
      w.acc[lane][r] = c[e.row][e.col];
    }
  }
  for (int step = 0; step < kSteps; ++step) {
    for (int lane = 0; lane < kMfmaWaveSize; ++lane) {
      for (int v = 0; v < s.values_per_lane; ++v) {
        MfmaElement<int> ea = MfmaAElement(s, lane, v);
        MfmaElement<int> eb = MfmaBElement(s, lane, v);
        w.a[lane][v] = a[ea.row][step * s.k + ea.col];
        w.b[lane][v] = b[step * s.k + eb.row][eb.col];
      }
    }
    ExecuteModel(s, w);
  }
  int mismatches = 0;
  for (int lane = 0; lane < kMfmaWaveSize; ++lane) {
    for (int r = 0; r < s.accumulators; ++r) {
      MfmaElement<int> e = MfmaAccumulatorElement(s, lane, r);
      double expected = c[e.row][e.col];
      for (int k = 0; k < k_total; ++k) expected += a[e.row][k] * b[k][e.col];
      if (w.acc[lane][r] != expected) ++mismatches;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// A deliberately wrong layout (rows and columns of D swapped) must fail
// the simulation: the test can tell a wrong mapping from a right one.
TEST(MfmaLayoutModelTest, DetectsATransposedAccumulatorLayout) {
  const MfmaShape s = GetMfmaShape(MfmaKind::kF32_32x32x2);
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
  for (int lane = 0; lane < kMfmaWaveSize; ++lane) {
    MfmaElement<int> ea = MfmaAElement(s, lane, 0);
    MfmaElement<int> eb = MfmaBElement(s, lane, 0);
    w.a[lane][0] = a[ea.row][ea.col];
    w.b[lane][0] = b[eb.row][eb.col];
  }
  ExecuteModel(s, w);
  int mismatches = 0;
  for (int lane = 0; lane < kMfmaWaveSize; ++lane) {
    for (int r = 0; r < s.accumulators; ++r) {
      MfmaElement<int> e = MfmaAccumulatorElement(s, lane, r);
      double swapped = 0;
      for (int k = 0; k < s.k; ++k) swapped += a[e.col][k] * b[k][e.row];
      if (w.acc[lane][r] != swapped) ++mismatches;
    }
  }
  EXPECT_GT(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, MfmaLayoutTest,
    ::testing::Values(MfmaKind::kF32_32x32x2, MfmaKind::kF32_16x16x4,
                      MfmaKind::kF16_32x32x8, MfmaKind::kF16_16x16x16,
                      MfmaKind::kBF16_32x32x8, MfmaKind::kBF16_16x16x16),
    [](const ::testing::TestParamInfo<MfmaKind>& info) {
      switch (info.param) {
        case MfmaKind::kF32_32x32x2:
          return "f32_32x32x2";
        case MfmaKind::kF32_16x16x4:
          return "f32_16x16x4";
        case MfmaKind::kF16_32x32x8:
          return "f16_32x32x8";
        case MfmaKind::kF16_16x16x16:
          return "f16_16x16x16";
        case MfmaKind::kBF16_32x32x8:
          return "bf16_32x32x8";
        case MfmaKind::kBF16_16x16x16:
          return "bf16_16x16x16";
      }
      return "unknown";
    });

}  // namespace
}  // namespace hloc

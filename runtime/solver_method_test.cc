#include "runtime/solver_method.h"

#include <climits>

#include "gtest/gtest.h"

namespace hloc {
namespace {

LibraryConfig Config(char mode = 'V', bool econ = false, int algorithm = 0) {
  LibraryConfig config;
  config.mode = mode;
  config.econ = econ;
  config.eigh_algorithm = algorithm;
  return config;
}

SolverMethod Choose(SolverRoutine routine, int64_t batch, int64_t m, int64_t n,
                    const LibraryConfig& config = Config()) {
  return ChooseSolverMethod(routine, batch, m, n, config);
}

TEST(SolverMethodTest, CholeskyBatchesEveryBatch) {
  EXPECT_EQ(Choose(SolverRoutine::kPotrf, 1, 8, 8), SolverMethod::kPerMatrix);
  EXPECT_EQ(Choose(SolverRoutine::kPotrf, 2, 500, 500), SolverMethod::kBatched);
  EXPECT_EQ(Choose(SolverRoutine::kPotrf, 512, 4, 4), SolverMethod::kBatched);
}

TEST(SolverMethodTest, LuBatchesSquareMatricesSmallForTheirBatch) {
  EXPECT_EQ(Choose(SolverRoutine::kGetrf, 1, 8, 8), SolverMethod::kPerMatrix);
  EXPECT_EQ(Choose(SolverRoutine::kGetrf, 512, 8, 8), SolverMethod::kBatched);
  // n / batch <= 128: two 256 x 256 are batched, two 258 x 258 are not.
  EXPECT_EQ(Choose(SolverRoutine::kGetrf, 2, 256, 256), SolverMethod::kBatched);
  EXPECT_EQ(Choose(SolverRoutine::kGetrf, 2, 258, 258),
            SolverMethod::kPerMatrix);
  EXPECT_EQ(Choose(SolverRoutine::kGetrf, 64, 8, 6), SolverMethod::kPerMatrix);
}

TEST(SolverMethodTest, EighIsJacobiUpTo32RowsByDefault) {
  EXPECT_EQ(Choose(SolverRoutine::kSyevd, 512, 3, 3), SolverMethod::kBatched);
  // One matrix is a batch of one (not jaxlib's syevj).
  EXPECT_EQ(Choose(SolverRoutine::kSyevd, 1, 32, 32), SolverMethod::kBatched);
  EXPECT_EQ(Choose(SolverRoutine::kSyevd, 512, 33, 33),
            SolverMethod::kPerMatrix);
  // QR asked for: divide and conquer whatever the size.
  EXPECT_EQ(Choose(SolverRoutine::kSyevd, 512, 3, 3, Config('V', false, 1)),
            SolverMethod::kPerMatrix);
  // Jacobi asked for: batched up to 32 rows, one by one past them.
  EXPECT_EQ(Choose(SolverRoutine::kSyevd, 4, 64, 64, Config('V', false, 2)),
            SolverMethod::kJacobiPerMatrix);
  EXPECT_EQ(Choose(SolverRoutine::kSyevd, 4, 16, 16, Config('V', false, 2)),
            SolverMethod::kBatched);
}

TEST(SolverMethodTest, SvdBatchesSmallFullMatrices) {
  EXPECT_EQ(Choose(SolverRoutine::kGesvdj, 2, 4, 3), SolverMethod::kBatched);
  EXPECT_EQ(Choose(SolverRoutine::kGesvdj, 2, 33, 3), SolverMethod::kPerMatrix);
  // Thin factors too (their columns are copied out of full ones).
  EXPECT_EQ(Choose(SolverRoutine::kGesvdj, 2, 4, 3, Config('V', true)),
            SolverMethod::kBatched);
  // One matrix is a batch of one (not jaxlib's gesvdj), with or without
  // its vectors; past 32 it is gesvdj's.
  EXPECT_EQ(Choose(SolverRoutine::kGesvdj, 1, 4, 5, Config('N')),
            SolverMethod::kBatched);
  EXPECT_EQ(Choose(SolverRoutine::kGesvdj, 1, 4, 5), SolverMethod::kBatched);
  EXPECT_EQ(Choose(SolverRoutine::kGesvdj, 1, 40, 5), SolverMethod::kPerMatrix);
}

TEST(SolverMethodTest, QrBatchesSmallMatricesForTheirBatch) {
  EXPECT_EQ(Choose(SolverRoutine::kGeqrf, 512, 8, 8), SolverMethod::kBatched);
  EXPECT_EQ(Choose(SolverRoutine::kGeqrf, 64, 12, 6), SolverMethod::kBatched);
  EXPECT_EQ(Choose(SolverRoutine::kGeqrf, 1, 8, 8), SolverMethod::kPerMatrix);
  EXPECT_EQ(Choose(SolverRoutine::kGeqrf, 2, 300, 8), SolverMethod::kPerMatrix);
}

TEST(SolverMethodTest, QrBatchesOnlyBatchesThatOutrunOneMatrix) {
  // jaxlib's ratio would batch these: geqrfBatched takes longer for one
  // 192 x 192 than cuSOLVER's geqrf for 25.
  EXPECT_EQ(Choose(SolverRoutine::kGeqrf, 2, 192, 192),
            SolverMethod::kPerMatrix);
  EXPECT_EQ(Choose(SolverRoutine::kGeqrf, 23, 192, 192),
            SolverMethod::kPerMatrix);
  EXPECT_EQ(Choose(SolverRoutine::kGeqrf, 24, 192, 192),
            SolverMethod::kBatched);
  EXPECT_EQ(Choose(SolverRoutine::kGeqrf, 4, 64, 40), SolverMethod::kPerMatrix);
  EXPECT_EQ(Choose(SolverRoutine::kGeqrf, 8, 64, 40), SolverMethod::kBatched);
  // LU keeps jaxlib's rule.
  EXPECT_EQ(Choose(SolverRoutine::kGetrf, 2, 192, 192), SolverMethod::kBatched);
}

TEST(SolverMethodTest, TriangularSolvesBatchEveryBatch) {
  EXPECT_EQ(Choose(SolverRoutine::kTrsm, 1, 192, 192),
            SolverMethod::kPerMatrix);
  EXPECT_EQ(Choose(SolverRoutine::kTrsm, 2, 1024, 1), SolverMethod::kBatched);
  EXPECT_EQ(Choose(SolverRoutine::kTrsm, 300, 64, 64), SolverMethod::kBatched);
}

TEST(SolverMethodTest, OrgqrAndBatchesPastAnIntRunPerMatrix) {
  EXPECT_EQ(Choose(SolverRoutine::kOrgqr, 512, 8, 8), SolverMethod::kPerMatrix);
  const int64_t huge = static_cast<int64_t>(INT_MAX) + 1;
  EXPECT_EQ(Choose(SolverRoutine::kPotrf, huge, 1, 1),
            SolverMethod::kPerMatrix);
  EXPECT_EQ(Choose(SolverRoutine::kSyevd, huge, 2, 2),
            SolverMethod::kJacobiPerMatrix);
  EXPECT_EQ(Choose(SolverRoutine::kGesvdj, huge, 2, 2),
            SolverMethod::kPerMatrix);
  EXPECT_EQ(Choose(SolverRoutine::kTrsm, huge, 2, 2), SolverMethod::kPerMatrix);
}

}  // namespace
}  // namespace hloc

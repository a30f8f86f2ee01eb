// The --config=tsan set-up checks what it should (run by scripts/test.sh's
// tsan stage; a plain build skips): a correct OpenMP loop reports nothing,
// so libomp's own false positives are suppressed (suppressions.txt) and
// Archer supplies OpenMP's ordering, while a data race inside a parallel
// region of our code is still reported, so the suppression is not too
// broad. The tsan config stops a test at its first report
// (halt_on_error=1), so the clean loop would fail this test outright.
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HLOC_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define HLOC_TSAN 1
#endif

namespace hloc {
namespace {

// Each thread writes its own elements; the sum is read after the region's
// implicit barrier.
int64_t CleanParallelSum(int64_t n) {
  std::vector<int64_t> v(n);
#pragma omp parallel for num_threads(4)
  for (int64_t i = 0; i < n; ++i) v[i] = i;
  int64_t sum = 0;
  for (int64_t x : v) sum += x;
  return sum;
}

// Every thread adds to one unguarded counter.
int64_t RacyParallelSum(int64_t n) {
  int64_t sum = 0;
#pragma omp parallel for num_threads(4)
  for (int64_t i = 0; i < n; ++i) sum += i;
  return sum;
}

TEST(OpenMpRaceTest, CorrectLoopIsQuietAndARaceIsReported) {
#ifndef HLOC_TSAN
  GTEST_SKIP() << "not built with ThreadSanitizer (--config=tsan)";
#else
  EXPECT_EQ(CleanParallelSum(4096), int64_t{4096} * 4095 / 2);
  // In a fresh process (threadsafe style re-runs the binary): this one
  // already has OpenMP threads, and TSan cannot follow a fork of those.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(RacyParallelSum(1 << 16),
               "SUMMARY: ThreadSanitizer: data race [^ ]*openmp_race_test.cc");
#endif
}

}  // namespace
}  // namespace hloc

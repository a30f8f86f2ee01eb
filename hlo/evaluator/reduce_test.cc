// Reductions and the other ops that call scalar computations: reduce (fast
// path, generic computations, variadic argmax, per-step rounding),
// reduce-window (padding, strides, dilations, variadic), select-and-scatter,
// sort (multi-operand, stable, total order), topk, scan and map.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/evaluator/test_util.h"

namespace hloc {
namespace {

using eval_test::ExpectFloats;
using eval_test::Make;
using eval_test::MustRun;
using eval_test::Values;
using eval_test::Vec;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const char* kComputations = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] add(x, y)
}
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] maximum(x, y)
}
min {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] minimum(y, x)
}
twice_plus {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  two = f32[] constant(2)
  m = f32[] multiply(x, two)
  ROOT r = f32[] add(m, y)
}
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  eq = pred[] compare(v0, v1), direction=EQ
  lt = pred[] compare(i0, i1), direction=LT
  tie = pred[] and(eq, lt)
  pick = pred[] or(gt, tie)
  v = f32[] select(pick, v0, v1)
  i = s32[] select(pick, i0, i1)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
)";

std::string Module(const std::string& entry) {
  return std::string("HloModule m\n") + kComputations + entry;
}

Literal Iota(std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  return Make<float>(F32, dims, v);
}

TEST(ReduceTest, SumsOverEveryDimensionSet) {
  const std::string hlo = Module(R"(
ENTRY e {
  a = f32[2,3] parameter(0)
  z = f32[] constant(0)
  ten = f32[] constant(10)
  r0 = f32[3] reduce(a, z), dimensions={0}, to_apply=add
  r1 = f32[2] reduce(a, z), dimensions={1}, to_apply=add
  r01 = f32[] reduce(a, ten), dimensions={0,1}, to_apply=add
  none = f32[2,3] reduce(a, ten), dimensions={}, to_apply=add
  ROOT t = (f32[3], f32[2], f32[], f32[2,3]) tuple(r0, r1, r01, none)
})");
  Literal r = MustRun(hlo, {Iota({2, 3})});
  ExpectFloats(r.tuple_elements()[0], {5, 7, 9});
  ExpectFloats(r.tuple_elements()[1], {6, 15});
  ExpectFloats(r.tuple_elements()[2], {31});
  ExpectFloats(r.tuple_elements()[3], {11, 12, 13, 14, 15, 16});
}

TEST(ReduceTest, FastPathMatchesReferenceOnInterleavedDims) {
  const std::string hlo = Module(R"(
ENTRY e {
  a = f32[4,5,6] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[5] reduce(a, z), dimensions={0,2}, to_apply=add
})");
  Literal a = Iota({4, 5, 6});
  std::vector<double> expected(5, 0.0);
  auto v = Values<float>(a);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 5; ++j) {
      for (int k = 0; k < 6; ++k) expected[j] += v[(i * 5 + j) * 6 + k];
    }
  }
  ExpectFloats(MustRun(hlo, {a}), expected);
}

// Large enough to be split across threads. Columns fold one row after
// another, so they equal a sequential loop bit for bit; each row is one
// contiguous run, summed pairwise, so it equals the same row reduced alone
// (threads change nothing) and is within f32 rounding of the exact sum.
TEST(ReduceTest, ThreadedReductionsMatchUnthreadedSums) {
  const std::string hlo = Module(R"(
ENTRY e {
  a = f32[1024,1100] parameter(0)
  z = f32[] constant(0)
  rows = f32[1024] reduce(a, z), dimensions={1}, to_apply=add
  cols = f32[1100] reduce(a, z), dimensions={0}, to_apply=add
  ROOT t = (f32[1024], f32[1100]) tuple(rows, cols)
})");
  const std::string one_row = Module(R"(
ENTRY e {
  a = f32[1100] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=add
})");
  std::vector<float> v(1024 * 1100);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>((i * 7919) % 1000) / 7.0f;
  Literal r = MustRun(hlo, {Make<float>(F32, {1024, 1100}, v)});
  std::vector<float> cols(1100, 0.0f);
  for (int i = 0; i < 1024; ++i) {
    for (int j = 0; j < 1100; ++j) cols[j] += v[i * 1100 + j];
  }
  EXPECT_EQ(Values<float>(r.tuple_elements()[1]), cols);
  const std::vector<float> rows = Values<float>(r.tuple_elements()[0]);
  for (int i : {0, 1, 511, 1023}) {
    std::vector<float> row(v.begin() + i * 1100, v.begin() + (i + 1) * 1100);
    EXPECT_EQ(Values<float>(MustRun(one_row, {Make<float>(F32, {1100}, row)})),
              std::vector<float>{rows[i]})
        << "row " << i;
  }
  for (int i = 0; i < 1024; ++i) {
    double exact = 0;
    for (int j = 0; j < 1100; ++j) exact += v[i * 1100 + j];
    EXPECT_NEAR(rows[i], exact, 1e-6 * exact) << "row " << i;
  }
}

// A long f32 sum is pairwise, as XLA:CPU's vectorised sums keep partial
// sums: 4 Mi times 0.1f folded in one at a time ends far off (each add
// rounds to the accumulator's ulp, 1/32 past 2^18), pairwise it is within
// f32 rounding of the exact sum.
TEST(ReduceTest, LongF32SumIsPairwise) {
  const std::string hlo = Module(R"(
ENTRY e {
  a = f32[4194304] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=add
})");
  const int64_t n = int64_t{1} << 22;
  std::vector<float> v(n, 0.1f);
  const double exact = static_cast<double>(n) * 0.1f;
  float sequential = 0;
  for (float x : v) sequential += x;
  ASSERT_GT(std::fabs(sequential - exact), 1e-3 * exact);
  const float got = Values<float>(MustRun(hlo, {Make<float>(F32, {n}, v)}))[0];
  EXPECT_NEAR(got, exact, 1e-6 * exact);
}

TEST(ReduceTest, MaxPropagatesNanAndMinKeepsNegativeZero) {
  const std::string hlo = Module(R"(
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[2] parameter(1)
  lo = f32[] constant(-inf)
  hi = f32[] constant(inf)
  m = f32[] reduce(a, lo), dimensions={0}, to_apply=max
  n = f32[] reduce(b, hi), dimensions={0}, to_apply=min
  ROOT t = (f32[], f32[]) tuple(m, n)
})");
  Literal r = MustRun(
      hlo, {Vec<float>(F32, {1, NAN, 2}), Vec<float>(F32, {0.0f, -0.0f})});
  ExpectFloats(r.tuple_elements()[0], {kNaN});
  ExpectFloats(r.tuple_elements()[1], {-0.0});
}

TEST(ReduceTest, GenericComputationSeesElementsInRowMajorOrder) {
  const std::string hlo = Module(R"(
ENTRY e {
  a = f32[2,2] parameter(0)
  z = f32[] constant(0)
  all = f32[] reduce(a, z), dimensions={0,1}, to_apply=twice_plus
  rows = f32[2] reduce(a, z), dimensions={1}, to_apply=twice_plus
  cols = f32[2] reduce(a, z), dimensions={0}, to_apply=twice_plus
  ROOT t = (f32[], f32[2], f32[2]) tuple(all, rows, cols)
})");
  Literal r = MustRun(hlo, {Iota({2, 2})});
  ExpectFloats(r.tuple_elements()[0], {26});
  ExpectFloats(r.tuple_elements()[1], {4, 10});
  ExpectFloats(r.tuple_elements()[2], {5, 8});
}

TEST(ReduceTest, Bf16ReductionRoundsEveryStep) {
  const char* kHlo = R"(
HloModule m
add {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT r = bf16[] add(x, y)
}
ENTRY e {
  a = bf16[300] parameter(0)
  z = bf16[] constant(0)
  ROOT r = bf16[] reduce(a, z), dimensions={0}, to_apply=add
})";
  Literal ones =
      Make<BFloat16>(BF16, {300}, std::vector<BFloat16>(300, BFloat16(1.0f)));
  // 256 + 1 rounds back to 256 in bf16.
  ExpectFloats(MustRun(kHlo, {ones}), {256});
}

TEST(ReduceTest, VariadicArgmax) {
  const std::string hlo = Module(R"(
ENTRY e {
  a = f32[2,4] parameter(0)
  i = s32[2,4] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  zero = s32[] constant(0)
  rows = (f32[2], s32[2]) reduce(a, i, lo, zero), dimensions={1}, to_apply=argmax
  j = s32[2,4] iota(), iota_dimension=0
  cols = (f32[4], s32[4]) reduce(a, j, lo, zero), dimensions={0}, to_apply=argmax
  ROOT t = ((f32[2], s32[2]), (f32[4], s32[4])) tuple(rows, cols)
})");
  Literal r =
      MustRun(hlo, {Make<float>(F32, {2, 4}, {1, 5, 5, 2, 7, 0, 7, 1})});
  const Literal& rows = r.tuple_elements()[0];
  ExpectFloats(rows.tuple_elements()[0], {5, 7});
  EXPECT_EQ(Values<int32_t>(rows.tuple_elements()[1]),
            (std::vector<int32_t>{1, 0}));
  const Literal& cols = r.tuple_elements()[1];
  ExpectFloats(cols.tuple_elements()[0], {7, 5, 7, 2});
  EXPECT_EQ(Values<int32_t>(cols.tuple_elements()[1]),
            (std::vector<int32_t>{1, 0, 1, 0}));
}

TEST(ReduceTest, ThreadedVariadicArgmaxAndMap) {
  const std::string hlo = Module(R"(
double_it {
  x = f32[] parameter(0)
  ROOT d = f32[] add(x, x)
}
ENTRY e {
  a = f32[1024,1100] parameter(0)
  i = s32[1024,1100] iota(), iota_dimension=1
  lo = f32[] constant(-inf)
  zero = s32[] constant(0)
  am = (f32[1024], s32[1024]) reduce(a, i, lo, zero), dimensions={1}, to_apply=argmax
  m = f32[1024,1100] map(a), dimensions={0,1}, to_apply=double_it
  ROOT t = ((f32[1024], s32[1024]), f32[1024,1100]) tuple(am, m)
})");
  std::vector<float> v(1024 * 1100);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>((i * 7919) % 1013);
  Literal r = MustRun(hlo, {Make<float>(F32, {1024, 1100}, v)});
  std::vector<float> best(1024, -INFINITY);
  std::vector<int32_t> where(1024, 0);
  for (int i = 0; i < 1024; ++i) {
    for (int j = 0; j < 1100; ++j) {
      if (v[i * 1100 + j] > best[i]) {
        best[i] = v[i * 1100 + j];
        where[i] = j;
      }
    }
  }
  const Literal& am = r.tuple_elements()[0];
  EXPECT_EQ(Values<float>(am.tuple_elements()[0]), best);
  EXPECT_EQ(Values<int32_t>(am.tuple_elements()[1]), where);
  std::vector<float> doubled = v;
  for (float& x : doubled) x += x;
  EXPECT_EQ(Values<float>(r.tuple_elements()[1]), doubled);
}

TEST(ReduceTest, IntegerAndPredReductions) {
  const char* kHlo = R"(
HloModule m
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] add(x, y)
}
and {
  x = pred[] parameter(0)
  y = pred[] parameter(1)
  ROOT r = pred[] and(x, y)
}
ENTRY e {
  a = s32[3] parameter(0)
  p = pred[2,2] parameter(1)
  z = s32[] constant(0)
  t = pred[] constant(true)
  s = s32[] reduce(a, z), dimensions={0}, to_apply=add
  q = pred[2] reduce(p, t), dimensions={1}, to_apply=and
  ROOT o = (s32[], pred[2]) tuple(s, q)
})";
  Literal r =
      MustRun(kHlo, {Vec<int32_t>(S32, {2147483647, 1, 5}),
                     Make<bool>(PRED, {2, 2}, {true, true, true, false})});
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[0]),
            (std::vector<int32_t>{-2147483643}));
  EXPECT_EQ(Values<bool>(r.tuple_elements()[1]),
            (std::vector<bool>{true, false}));
}

TEST(ReduceWindowTest, MaxPoolAndPaddedSums) {
  const std::string clean = Module(R"(
ENTRY e {
  a = f32[4,4] parameter(0)
  b = f32[5] parameter(1)
  lo = f32[] constant(-inf)
  z = f32[] constant(0)
  pool = f32[2,2] reduce-window(a, lo), window={size=2x2 stride=2x2}, to_apply=max
  sums = f32[5] reduce-window(b, z), window={size=3 pad=1_1}, to_apply=add
  c = f32[3] slice(b), slice={[0:3]}
  based = f32[4] reduce-window(c, z), window={size=2 lhs_dilate=2}, to_apply=add
  holes = f32[3] reduce-window(b, z), window={size=2 rhs_dilate=2}, to_apply=add
  strided = f32[2] reduce-window(b, z), window={size=2 stride=3 pad=0_1}, to_apply=add
  ROOT t = (f32[2,2], f32[5], f32[4], f32[3], f32[2]) tuple(pool, sums, based, holes, strided)
})");
  Literal r = MustRun(clean, {Iota({4, 4}), Vec<float>(F32, {1, 2, 3, 4, 5})});
  ExpectFloats(r.tuple_elements()[0], {6, 8, 14, 16});
  ExpectFloats(r.tuple_elements()[1], {3, 6, 9, 12, 9});
  ExpectFloats(r.tuple_elements()[2], {1, 2, 2, 3});
  ExpectFloats(r.tuple_elements()[3], {4, 6, 8});
  ExpectFloats(r.tuple_elements()[4], {3, 9});
}

// JAX lowers jnp.cumsum of n elements to a reduce-window of window n and
// low padding n - 1. The evaluator tabulated every (output, window
// position) pair, n^2 coordinates: 29 GB at n = 60000, out of memory. Here
// a window of 2^30 over five elements (a 40 GB table), by the fast path
// and by the generic one (whose window select-and-scatter shares).
TEST(ReduceWindowTest, CumulativeSumWindowsAsLongAsTheInput) {
  const std::string hlo = Module(R"(
ENTRY e {
  a = f32[5] parameter(0)
  z = f32[] constant(0)
  huge = f32[5] reduce-window(a, z), window={size=1073741824 pad=1073741823_0}, to_apply=add
  generic = f32[5] reduce-window(a, z), window={size=1073741824 pad=1073741823_0}, to_apply=twice_plus
  ROOT t = (f32[5], f32[5]) tuple(huge, generic)
})");
  Literal r = MustRun(hlo, {Vec<float>(F32, {1, 2, 3, 4, 5})});
  ExpectFloats(r.tuple_elements()[0], {1, 3, 6, 10, 15});
  // twice_plus(acc, x) = 2 * acc + x, in window order.
  ExpectFloats(r.tuple_elements()[1], {1, 4, 11, 26, 57});
}

// Cumulative reductions (a prefix window along one dimension) fold each
// output from the one before it; the outputs must be those of the windows
// folded in order: along rows and columns, with a window longer than the
// line, in f32 (rounding in order), s32 max and a non-zero init.
TEST(ReduceWindowTest, PrefixWindowsFoldInOrder) {
  const std::string hlo = Module(R"(
imax {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] maximum(x, y)
}
ENTRY e {
  a = f32[2,3] parameter(0)
  z = f32[] constant(0)
  rows = f32[2,3] reduce-window(a, z), window={size=1x3 pad=0_0x2_0}, to_apply=add
  cols = f32[2,3] reduce-window(a, z), window={size=5x1 pad=4_0x0_0}, to_apply=add
  b = f32[3] parameter(1)
  one = f32[] constant(1)
  rounded = f32[3] reduce-window(b, one), window={size=3 pad=2_0}, to_apply=add
  i = s32[5] parameter(2)
  lo = s32[] constant(-100)
  m = s32[5] reduce-window(i, lo), window={size=5 pad=4_0}, to_apply=imax
  ROOT t = (f32[2,3], f32[2,3], f32[3], s32[5]) tuple(rows, cols, rounded, m)
})");
  Literal r = MustRun(hlo, {Make<float>(F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                            Vec<float>(F32, {1e8f, 4, 4}),
                            Vec<int32_t>(S32, {-200, 3, 1, 7, 2})});
  ExpectFloats(r.tuple_elements()[0], {1, 3, 6, 4, 9, 15});
  ExpectFloats(r.tuple_elements()[1], {1, 2, 3, 5, 7, 9});
  // ((1 + 1e8) + 4) + 4 in f32: each 4 rounds away; a sum of 8 would not.
  ExpectFloats(r.tuple_elements()[2], {1e8f, 1e8f, 1e8f});
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[3]),
            (std::vector<int32_t>{-100, 3, 3, 7, 7}));
}

// Reverse cumulative reductions (a suffix window: high padding one less
// than the window) fold each output from the one after it: rows and
// columns, a window longer than the line, s32 max with an init, and f32
// sums of exact values. And lines long enough that windows folded one by
// one would take minutes (a reverse cummax of 40000 took 12 s; 200000
// would take five minutes).
TEST(ReduceWindowTest, SuffixWindowsFoldFromTheEnd) {
  const std::string hlo = Module(R"(
imax {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] maximum(x, y)
}
ENTRY e {
  a = f32[2,3] parameter(0)
  z = f32[] constant(0)
  rows = f32[2,3] reduce-window(a, z), window={size=1x3 pad=0_0x0_2}, to_apply=add
  cols = f32[2,3] reduce-window(a, z), window={size=5x1 pad=0_4x0_0}, to_apply=add
  i = s32[5] parameter(1)
  lo = s32[] constant(-100)
  m = s32[5] reduce-window(i, lo), window={size=5 pad=0_4}, to_apply=imax
  long = s32[200000] parameter(2)
  lm = s32[200000] reduce-window(long, lo), window={size=200000 pad=0_199999}, to_apply=imax
  ROOT t = (f32[2,3], f32[2,3], s32[5], s32[200000]) tuple(rows, cols, m, lm)
})");
  std::vector<int32_t> long_line(200000);
  for (int64_t j = 0; j < 200000; ++j) {
    long_line[j] = static_cast<int32_t>((j * 7919) % 100003);
  }
  Literal r = MustRun(hlo, {Make<float>(F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                            Vec<int32_t>(S32, {-200, 3, 1, 7, 2}),
                            Vec<int32_t>(S32, long_line)});
  ExpectFloats(r.tuple_elements()[0], {6, 5, 3, 15, 11, 6});
  ExpectFloats(r.tuple_elements()[1], {5, 7, 9, 4, 5, 6});
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[2]),
            (std::vector<int32_t>{7, 7, 7, 7, 2}));
  std::vector<int32_t> expected(200000);
  int32_t best = -100;
  for (int64_t j = 199999; j >= 0; --j) {
    best = std::max(best, long_line[j]);
    expected[j] = best;
  }
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[3]), expected);
}

// Prefix windows of any reducer (not one binary op: lax.cumlogsumexp's
// log-add-exp, a running argmax) fold each output from the one before it,
// the same calls in the same order as the window's: a non-commutative
// twice_plus along rows, a variadic running argmax with ties, and a line
// of 100000 (5 * 10^9 calls as windows; cumlogsumexp over rows of 1000
// took 4 s).
TEST(ReduceWindowTest, GenericPrefixWindowsFoldInOrder) {
  const std::string hlo = Module(R"(
ENTRY e {
  a = f32[2,3] parameter(0)
  z = f32[] constant(0)
  g = f32[2,3] reduce-window(a, z), window={size=1x3 pad=0_0x2_0}, to_apply=twice_plus
  v = f32[6] parameter(1)
  i = s32[6] iota(), iota_dimension=0
  lo = f32[] constant(-inf)
  zero = s32[] constant(0)
  am = (f32[6], s32[6]) reduce-window(v, i, lo, zero), window={size=6 pad=5_0}, to_apply=argmax
  long = f32[100000] parameter(2)
  half = f32[] constant(0.5)
  lg = f32[100000] reduce-window(long, half), window={size=100000 pad=99999_0}, to_apply=twice_plus
  ROOT t = (f32[2,3], (f32[6], s32[6]), f32[100000]) tuple(g, am, lg)
})");
  std::vector<float> long_line(100000, 0.0f);
  long_line[0] = 1.0f;
  long_line[1] = -2.0f;
  Literal r = MustRun(
      hlo, {Make<float>(F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
            Vec<float>(F32, {3, 8, 1, 8, 9, 2}), Vec<float>(F32, long_line)});
  // twice_plus(acc, x) = 2 * acc + x from the init 0, in window order.
  ExpectFloats(r.tuple_elements()[0], {1, 4, 11, 4, 13, 32});
  const Literal& am = r.tuple_elements()[1];
  ExpectFloats(am.tuple_elements()[0], {3, 8, 8, 8, 9, 9});
  EXPECT_EQ(Values<int32_t>(am.tuple_elements()[1]),
            (std::vector<int32_t>{0, 1, 1, 1, 4, 4}));
  // 2 * 0.5 + 1 = 2, 2 * 2 - 2 = 2, then doubling: 2^k at k >= 2, inf
  // from 128 on.
  const std::vector<float> lg = Values<float>(r.tuple_elements()[2]);
  EXPECT_EQ(lg[0], 2.0f);
  EXPECT_EQ(lg[1], 2.0f);
  EXPECT_EQ(lg[2], 4.0f);
  EXPECT_EQ(lg[10], 1024.0f);
  EXPECT_EQ(lg[99999], std::numeric_limits<float>::infinity());
}

// A reverse cumlogsumexp (a suffix window of JAX's log-add-exp reducer)
// folds each output from the one after it: log(n - i) for a line of
// zeros, to rounding, over 50000 (10^9 calls as windows; 20000 took 24 s).
TEST(ReduceWindowTest, SuffixLogAddExpFoldsFromTheEnd) {
  const std::string hlo = Module(R"(
logaddexp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  d = f32[] subtract(a, b)
  nan = pred[] compare(d, d), direction=NE
  sum = f32[] add(a, b)
  m = f32[] maximum(a, b)
  ad = f32[] abs(d)
  nd = f32[] negate(ad)
  e = f32[] exponential(nd)
  l = f32[] log-plus-one(e)
  s = f32[] add(m, l)
  ROOT r = f32[] select(nan, sum, s)
}
ENTRY e {
  x = f32[50000] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT rw = f32[50000] reduce-window(x, ninf), window={size=50000 pad=0_49999}, to_apply=logaddexp
})");
  Literal r = MustRun(hlo, {Vec<float>(F32, std::vector<float>(50000, 0.0f))});
  const std::vector<float> got = Values<float>(r);
  for (int64_t i : {0, 1, 2, 100, 25000, 49998, 49999}) {
    const double want = std::log(50000.0 - i);
    EXPECT_NEAR(got[i], want, 1e-4 * (1 + want)) << i;
  }
}

// Cumulative bf16 and f16 sums and log-add-exps accumulate in f32, each
// output rounded once, as the cpu scans them: in bf16 a cumulative sum of
// 1000 ones stopped at 256 and a reverse cumlogsumexp of 3000 zeros at
// 6.7 (XLA:CPU: 1000 and 8).
TEST(ReduceWindowTest, NarrowCumulativeSumsAccumulateInF32) {
  const std::string hlo = Module(R"(
badd {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT r = bf16[] add(x, y)
}
hadd {
  x = f16[] parameter(0)
  y = f16[] parameter(1)
  ROOT r = f16[] add(x, y)
}
blogaddexp {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  d = bf16[] subtract(a, b)
  nan = pred[] compare(d, d), direction=NE
  sum = bf16[] add(a, b)
  m = bf16[] maximum(a, b)
  ad = bf16[] abs(d)
  nd = bf16[] negate(ad)
  e = bf16[] exponential(nd)
  l = bf16[] log-plus-one(e)
  s = bf16[] add(m, l)
  ROOT r = bf16[] select(nan, sum, s)
}
ENTRY e {
  b = bf16[1000] parameter(0)
  bz = bf16[] constant(0)
  fwd = bf16[1000] reduce-window(b, bz), window={size=1000 pad=999_0}, to_apply=badd
  h = f16[3000] parameter(1)
  hz = f16[] constant(0)
  rev = f16[3000] reduce-window(h, hz), window={size=3000 pad=0_2999}, to_apply=hadd
  z = bf16[3000] parameter(2)
  ninf = bf16[] constant(-inf)
  lse = bf16[3000] reduce-window(z, ninf), window={size=3000 pad=0_2999}, to_apply=blogaddexp
  ROOT t = (bf16[1000], f16[3000], bf16[3000]) tuple(fwd, rev, lse)
})");
  Literal b(Shape::Array(BF16, {1000}));
  for (int64_t i = 0; i < 1000; ++i) b.SetFromDouble(i, 1.0);
  Literal h(Shape::Array(F16, {3000}));
  for (int64_t i = 0; i < 3000; ++i) h.SetFromDouble(i, 1.0);
  Literal z(Shape::Array(BF16, {3000}));
  for (int64_t i = 0; i < 3000; ++i) z.SetFromDouble(i, 0.0);
  Literal r = MustRun(hlo, {b, h, z});
  EXPECT_EQ(r.tuple_elements()[0].GetAsDouble(999), 1000.0);
  EXPECT_EQ(r.tuple_elements()[0].GetAsDouble(299), 300.0);
  EXPECT_EQ(r.tuple_elements()[1].GetAsDouble(0), 3000.0);
  EXPECT_EQ(r.tuple_elements()[1].GetAsDouble(2999), 1.0);
  // log(3000) = 8.006 rounds to bf16's 8; log(1) = 0.
  EXPECT_EQ(r.tuple_elements()[2].GetAsDouble(0), 8.0);
  EXPECT_EQ(r.tuple_elements()[2].GetAsDouble(2999), 0.0);
}

TEST(ReduceWindowTest, GenericAndVariadicComputations) {
  const std::string hlo = Module(R"(
ENTRY e {
  a = f32[3] parameter(0)
  z = f32[] constant(0)
  g = f32[2] reduce-window(a, z), window={size=2}, to_apply=twice_plus
  v = f32[4] parameter(1)
  i = s32[4] iota(), iota_dimension=0
  lo = f32[] constant(-inf)
  zero = s32[] constant(0)
  am = (f32[2], s32[2]) reduce-window(v, i, lo, zero), window={size=2 stride=2}, to_apply=argmax
  ROOT t = (f32[2], (f32[2], s32[2])) tuple(g, am)
})");
  Literal r =
      MustRun(hlo, {Vec<float>(F32, {1, 2, 3}), Vec<float>(F32, {3, 8, 8, 1})});
  ExpectFloats(r.tuple_elements()[0], {4, 7});
  const Literal& am = r.tuple_elements()[1];
  ExpectFloats(am.tuple_elements()[0], {8, 8});
  EXPECT_EQ(Values<int32_t>(am.tuple_elements()[1]),
            (std::vector<int32_t>{1, 2}));
}

TEST(SelectAndScatterTest, ScattersToSelectedElements) {
  const std::string hlo = std::string("HloModule m\n") + kComputations + R"(
ge {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = pred[] compare(x, y), direction=GE
}
ENTRY e {
  a = f32[4] parameter(0)
  s = f32[2] parameter(1)
  z = f32[] constant(0)
  disjoint = f32[4] select-and-scatter(a, s, z), window={size=2 stride=2}, select=ge, scatter=add
  overlap = f32[4] select-and-scatter(a, s, z), window={size=3}, select=ge, scatter=add
  ROOT t = (f32[4], f32[4]) tuple(disjoint, overlap)
})";
  Literal r =
      MustRun(hlo, {Vec<float>(F32, {1, 5, 3, 3}), Vec<float>(F32, {10, 20})});
  ExpectFloats(r.tuple_elements()[0], {0, 10, 20, 0});
  ExpectFloats(r.tuple_elements()[1], {0, 30, 0, 0});
}

// reduce-window and select-and-scatter of a rank-0 operand (jax's
// lax.reduce_window on a scalar, and its gradient) have an empty window,
// which XLA's text and protos omit: the evaluator refused them for having
// none (zoo: windows_over_scalars).
TEST(ReduceWindowTest, ScalarOperandHasNoWindow) {
  const std::string hlo = std::string("HloModule m\n") + kComputations + R"(
ge {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = pred[] compare(x, y), direction=GE
}
ENTRY e {
  s = f32[] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[] reduce-window(s, ninf), to_apply=max
  z = f32[] constant(0)
  three = f32[] constant(3)
  g = f32[] select-and-scatter(s, three, z), select=ge, scatter=add
  ROOT t = (f32[], f32[]) tuple(m, g)
})";
  Literal r = MustRun(hlo, {Make<float>(F32, {}, {2.5f})});
  ExpectFloats(r.tuple_elements()[0], {2.5});
  ExpectFloats(r.tuple_elements()[1], {3});
}

TEST(SortTest, SingleOperandAscendingAndDescendingRows) {
  const char* kHlo = R"(
HloModule m
lt {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = pred[] compare(x, y), direction=LT
}
gt {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = pred[] compare(x, y), direction=GT
}
ENTRY e {
  a = f32[2,3] parameter(0)
  up = f32[2,3] sort(a), dimensions={1}, to_apply=lt
  down = f32[2,3] sort(a), dimensions={1}, is_stable=true, to_apply=gt
  cols = f32[2,3] sort(a), dimensions={0}, to_apply=lt
  ROOT t = (f32[2,3], f32[2,3], f32[2,3]) tuple(up, down, cols)
})";
  Literal r = MustRun(kHlo, {Make<float>(F32, {2, 3}, {3, 1, 2, 0, 9, -1})});
  ExpectFloats(r.tuple_elements()[0], {1, 2, 3, -1, 0, 9});
  ExpectFloats(r.tuple_elements()[1], {3, 2, 1, 9, 0, -1});
  ExpectFloats(r.tuple_elements()[2], {0, 1, -1, 3, 9, 2});
}

TEST(SortTest, KeyValueIsStableAndTotalOrderPlacesNans) {
  const char* kHlo = R"(
HloModule m
by_key {
  k0 = s32[] parameter(0)
  k1 = s32[] parameter(1)
  v0 = f32[] parameter(2)
  v1 = f32[] parameter(3)
  ROOT r = pred[] compare(k0, k1), direction=LT
}
total {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = pred[] compare(x, y), direction=LT, type=TOTALORDER
}
ENTRY e {
  k = s32[4] parameter(0)
  v = f32[4] parameter(1)
  kv = (s32[4], f32[4]) sort(k, v), dimensions={0}, is_stable=true, to_apply=by_key
  n = f32[5] parameter(2)
  s = f32[5] sort(n), dimensions={0}, to_apply=total
  ROOT t = ((s32[4], f32[4]), f32[5]) tuple(kv, s)
})";
  Literal r = MustRun(
      kHlo, {Vec<int32_t>(S32, {2, 1, 2, 1}), Vec<float>(F32, {0, 1, 2, 3}),
             Vec<float>(F32, {NAN, -0.0f, 0.0f, -INFINITY, 1.0f})});
  const Literal& kv = r.tuple_elements()[0];
  EXPECT_EQ(Values<int32_t>(kv.tuple_elements()[0]),
            (std::vector<int32_t>{1, 1, 2, 2}));
  ExpectFloats(kv.tuple_elements()[1], {1, 3, 0, 2});
  ExpectFloats(r.tuple_elements()[1], {-kInf, -0.0, 0.0, 1.0, kNaN});
}

// JAX's float comparator canonicalizes NaN and -0 before a total-order
// compare: evaluated as per-element keys, equal keys stay in input order.
TEST(SortTest, JaxComparatorAndGenericComparator) {
  const char* kHlo = R"(
HloModule m
jax_lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  nan = f32[] constant(nan)
  zero = f32[] constant(0)
  a_nan = pred[] compare(a, a), direction=NE
  a_zero = pred[] compare(a, zero), direction=EQ
  a0 = f32[] select(a_zero, zero, a)
  ac = f32[] select(a_nan, nan, a0)
  b_nan = pred[] compare(b, b), direction=NE
  b_zero = pred[] compare(b, zero), direction=EQ
  b0 = f32[] select(b_zero, zero, b)
  bc = f32[] select(b_nan, nan, b0)
  ROOT lt = pred[] compare(ac, bc), direction=LT, order=TOTAL
}
by_sum {
  a0 = f32[] parameter(0)
  a1 = f32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = f32[] parameter(3)
  s0 = f32[] add(a0, b0)
  s1 = f32[] add(a1, b1)
  ROOT lt = pred[] compare(s0, s1), direction=LT
}
ENTRY e {
  x = f32[7] parameter(0)
  s = f32[7] sort(x), dimensions={0}, is_stable=true, to_apply=jax_lt
  a = f32[3] parameter(1)
  b = f32[3] parameter(2)
  ab = (f32[3], f32[3]) sort(a, b), dimensions={0}, to_apply=by_sum
  ROOT t = (f32[7], (f32[3], f32[3])) tuple(s, ab)
})";
  Literal r =
      MustRun(kHlo, {Vec<float>(F32, {NAN, -0.0f, 1, -NAN, 0.0f, -INFINITY, 1}),
                     Vec<float>(F32, {3, 1, 2}), Vec<float>(F32, {0, 5, 0})});
  ExpectFloats(r.tuple_elements()[0], {-kInf, -0.0, 0.0, 1, 1, kNaN, kNaN});
  auto got = Values<float>(r.tuple_elements()[0]);
  EXPECT_FALSE(std::signbit(got[5]));  // NaN (index 0) before -NaN (index 3)
  EXPECT_TRUE(std::signbit(got[6]));
  const Literal& ab = r.tuple_elements()[1];
  ExpectFloats(ab.tuple_elements()[0], {2, 3, 1});
  ExpectFloats(ab.tuple_elements()[1], {0, 0, 5});
}

TEST(TopKTest, LargestAndSmallestWithTiesAndNan) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[2,5] parameter(0)
  big = (f32[2,3], s32[2,3]) topk(a), k=3, largest=true
  small = (f32[2,3], s32[2,3]) topk(a), k=3, largest=false
  ROOT t = ((f32[2,3], s32[2,3]), (f32[2,3], s32[2,3])) tuple(big, small)
})";
  Literal r = MustRun(
      kHlo,
      {Make<float>(F32, {2, 5}, {1, 5, NAN, 5, 2, -1, -2, -3, -0.0f, 0.0f})});
  const Literal& big = r.tuple_elements()[0];
  ExpectFloats(big.tuple_elements()[0], {kNaN, 5, 5, 0.0, -0.0, -1});
  EXPECT_EQ(Values<int32_t>(big.tuple_elements()[1]),
            (std::vector<int32_t>{2, 1, 3, 4, 3, 0}));
  const Literal& small = r.tuple_elements()[1];
  ExpectFloats(small.tuple_elements()[0], {1, 2, 5, -3, -2, -1});
  EXPECT_EQ(Values<int32_t>(small.tuple_elements()[1]),
            (std::vector<int32_t>{0, 4, 1, 2, 1, 0}));
}

TEST(ScanTest, CumulativeSumForwardAndReverse) {
  const char* kHlo = R"(
HloModule m
step {
  x = f32[] parameter(0)
  acc = f32[] parameter(1)
  s = f32[] add(acc, x)
  ROOT t = (f32[], f32[]) tuple(s, s)
}
ENTRY e {
  a = f32[4] parameter(0)
  z = f32[] constant(0)
  fwd = (f32[4], f32[]) scan(a, z), dimensions={0}, is_reverse=false, to_apply=step
  rev = (f32[4], f32[]) scan(a, z), dimensions={0}, is_reverse=true, num_carries=1, to_apply=step
  ROOT t = ((f32[4], f32[]), (f32[4], f32[])) tuple(fwd, rev)
})";
  Literal r = MustRun(kHlo, {Vec<float>(F32, {1, 2, 3, 4})});
  const Literal& fwd = r.tuple_elements()[0];
  ExpectFloats(fwd.tuple_elements()[0], {1, 3, 6, 10});
  ExpectFloats(fwd.tuple_elements()[1], {10});
  const Literal& rev = r.tuple_elements()[1];
  ExpectFloats(rev.tuple_elements()[0], {10, 9, 7, 4});
  ExpectFloats(rev.tuple_elements()[1], {10});
}

TEST(ScanTest, ScansRowsAlongAnInnerDimension) {
  const char* kHlo = R"(
HloModule m
step {
  x = f32[2] parameter(0)
  acc = f32[2] parameter(1)
  m = f32[2] multiply(acc, x)
  ROOT t = (f32[2], f32[2]) tuple(m, m)
}
ENTRY e {
  a = f32[2,3] parameter(0)
  one = f32[] constant(1)
  ones = f32[2] broadcast(one), dimensions={}
  ROOT s = (f32[2,3], f32[2]) scan(a, ones), dimensions={1}, to_apply=step
})";
  Literal r = MustRun(kHlo, {Iota({2, 3})});
  ExpectFloats(r.tuple_elements()[0], {1, 2, 6, 4, 20, 120});
  ExpectFloats(r.tuple_elements()[1], {6, 120});
}

TEST(MapTest, AppliesComputationElementwise) {
  const char* kHlo = R"(
HloModule m
fma1 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  p = f32[] multiply(x, y)
  one = f32[] constant(1)
  ROOT r = f32[] add(p, one)
}
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT m = f32[3] map(a, b), dimensions={0}, to_apply=fma1
})";
  ExpectFloats(
      MustRun(kHlo, {Vec<float>(F32, {1, 2, 3}), Vec<float>(F32, {4, 5, 6})}),
      {5, 11, 19});
}

}  // namespace
}  // namespace hloc

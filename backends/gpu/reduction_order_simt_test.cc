// Reducers that are not commutative, run on a GPU simulated on this CPU
// (testing/host_simt.h): an argmax over (value, index) pairs whose ties
// keep the first operand's index, as JAX programs write it with lax.reduce,
// and a "first of largest magnitude" reduce inside a row fusion. XLA's CPU
// loop combines a row's elements in order; the GPU kernels combine each
// lane's run in order and then the lanes' partial results in lane order
// (reduction_util.h, ButterflyOperands), so wherever every lane holds at
// most one run of the row the result is exactly the sequential one, and in
// a row fusion every lane of the row reads the same result. The inputs
// take few values, so ties are everywhere (and each case fails with the
// lanes combined in butterfly order from the widest mask down).
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/testing/simt_check.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

constexpr char kReducers[] = R"(
argmax_first {
  a = s32[] parameter(0)
  ai = s32[] parameter(1)
  b = s32[] parameter(2)
  bi = s32[] parameter(3)
  m = s32[] maximum(a, b)
  ge = pred[] compare(a, b), direction=GE
  i = s32[] select(ge, ai, bi)
  ROOT t = (s32[], s32[]) tuple(m, i)
}

argmax_nan_first {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  nan = pred[] compare(a, a), direction=NE
  take_a = pred[] or(gt, nan)
  v = f32[] select(take_a, a, b)
  eq = pred[] compare(a, b), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  take_ai = pred[] or(take_a, tie)
  i = s32[] select(take_ai, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}

first_of_largest_magnitude {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  aa = f32[] abs(a)
  ab = f32[] abs(b)
  ge = pred[] compare(aa, ab), direction=GE
  ROOT r = f32[] select(ge, a, b)
}
)";

// argmax_first over rows of `rows` x `cols` small integers,
// clamp(-scale, floor(scale * x), scale - 1) for x in [-1, 1): the maximum
// is about one element in 2 * scale.
std::string ArgmaxModule(int rows, int cols, int scale) {
  return absl::StrReplaceAll(R"(
ENTRY main {
  x = f32[$R,$C] parameter(0)
  k = f32[] constant($K)
  ks = f32[$R,$C] broadcast(k), dimensions={}
  x2 = f32[$R,$C] multiply(x, ks)
  fl = f32[$R,$C] floor(x2)
  lo = f32[] constant(-$K)
  los = f32[$R,$C] broadcast(lo), dimensions={}
  hi = f32[] constant($H)
  his = f32[$R,$C] broadcast(hi), dimensions={}
  cl = f32[$R,$C] clamp(los, fl, his)
  v = s32[$R,$C] convert(cl)
  iota = s32[$R,$C] iota(), iota_dimension=1
  lowest = s32[] constant(-2147483648)
  zero = s32[] constant(0)
  ROOT r = (s32[$R], s32[$R]) reduce(v, iota, lowest, zero), dimensions={1},
      to_apply=argmax_first
})",
                             {{"$R", std::to_string(rows)},
                              {"$C", std::to_string(cols)},
                              {"$K", std::to_string(scale)},
                              {"$H", std::to_string(scale - 1)}});
}

struct Module {
  std::string name;
  std::string entry;
};

std::vector<Module> Modules() {
  return {
      // Short rows: 9 elements (one per lane of a 16-lane group) and 100
      // (25 runs of 4, one per lane of a warp).
      {"argmax_rows_of_9", ArgmaxModule(6, 9, 2)},
      {"argmax_rows_of_100", ArgmaxModule(5, 100, 2)},
      // A block per row: 250 runs of 4 over a 1024-thread block, through
      // the warps' partial results in shared memory. The maximum is rare
      // enough that its first occurrence is seldom in the first lane.
      {"argmax_rows_of_1000", ArgmaxModule(3, 1000, 16)},
      // jnp.argmax down columns (JAX's reducer: a NaN wins, and of two
      // NaNs the first operand, not the lower index): 300 rows of 40
      // columns, a NaN wherever floor(2x) is 1 (several per column). The
      // warps take contiguous blocks of rows and meet in order, so the
      // first NaN of each column wins, as in the sequential loop.
      {"column_argmax_nans", R"(
ENTRY main {
  x = f32[300,40] parameter(0)
  two = f32[] constant(2)
  twos = f32[300,40] broadcast(two), dimensions={}
  x2 = f32[300,40] multiply(x, twos)
  fl = f32[300,40] floor(x2)
  one = f32[] constant(1)
  ones = f32[300,40] broadcast(one), dimensions={}
  hit = pred[300,40] compare(fl, ones), direction=EQ
  nan = f32[] constant(nan)
  nans = f32[300,40] broadcast(nan), dimensions={}
  v = f32[300,40] select(hit, nans, fl)
  iota = s32[300,40] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[40], s32[40]) reduce(v, iota, ninf, zero), dimensions={0},
      to_apply=argmax_nan_first
})"},
      // A row fusion: every element of the row reads the reduce's result
      // (-1 and 1 tie in magnitude; the first of them is the result).
      {"row_fusion_first_of_largest_magnitude", R"(
ENTRY main {
  x = f32[37,100] parameter(0)
  two = f32[] constant(2)
  twos = f32[37,100] broadcast(two), dimensions={}
  x2 = f32[37,100] multiply(x, twos)
  fl = f32[37,100] floor(x2)
  lo = f32[] constant(-1)
  los = f32[37,100] broadcast(lo), dimensions={}
  hi = f32[] constant(1)
  his = f32[37,100] broadcast(hi), dimensions={}
  v = f32[37,100] clamp(los, fl, his)
  zero = f32[] constant(0)
  r = f32[37] reduce(v, zero), dimensions={1},
      to_apply=first_of_largest_magnitude
  rb = f32[37,100] broadcast(r), dimensions={0}
  ROOT d = f32[37,100] subtract(v, rb)
})"},
  };
}

struct Case {
  Module module;
  std::string platform;
  std::string arch;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.module.name << "/" << c.arch;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const Module& m : Modules()) {
    cases.push_back({m, "cuda", "sm_90"});
    cases.push_back({m, "rocm", "gfx942"});
  }
  return cases;
}

class ReductionOrderSimtTest : public ::testing::TestWithParam<Case> {};

TEST_P(ReductionOrderSimtTest, MatchesTheSequentialOrderExactly) {
  const Case& c = GetParam();
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo(c.platform, c.arch);
  ASSERT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(std::string("HloModule ") + c.module.name + "\n" +
                         kReducers + c.module.entry,
                     c.module.name);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<SimtRun> run =
      RunOnHostSimtAndEvaluate(**module, c.platform, c.arch, *device, 7);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(CountKernelSteps(run->executable), 1);
  Tolerance exact;
  exact.rtol = 0;
  exact.atol = 0;
  ComparisonResult result = CompareLiterals(run->actual, run->expected, exact);
  EXPECT_TRUE(result.ok()) << DescribeMismatch(result);
}

INSTANTIATE_TEST_SUITE_P(Reducers, ReductionOrderSimtTest,
                         ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.module.name + "_" +
                                  info.param.arch;
                         });

}  // namespace
}  // namespace hloc

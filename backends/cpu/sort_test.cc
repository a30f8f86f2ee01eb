// Sort kernels against the evaluator (which sorts stably): one and several
// operands, ascending and descending, stability with duplicate keys, NaN
// and signed zeros under total order, lexicographic comparators, any sort
// dimension and layout, long rows and many rows. None may fall back.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"

namespace hloc {
namespace {

using testing_util::CheckAgainstEvaluator;

std::string SortModule(const std::string& shape, int64_t dim,
                       const std::string& direction,
                       const std::string& type = "f32") {
  return absl::StrReplaceAll(R"(
HloModule sort
cmp {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=$DIR
}
ENTRY main {
  x = $SHAPE parameter(0)
  ROOT s = $SHAPE sort(x), dimensions={$DIM}, to_apply=cmp
}
)",
                             {{"$SHAPE", shape},
                              {"$DIM", std::to_string(dim)},
                              {"$DIR", direction},
                              {"$T", type}});
}

TEST(SortTest, AscendingAndDescending) {
  EXPECT_TRUE(
      CheckAgainstEvaluator(SortModule("f32[16,100]", 1, "LT")).empty());
  EXPECT_TRUE(CheckAgainstEvaluator(SortModule("f32[37,5]", 0, "GT")).empty());
  EXPECT_TRUE(CheckAgainstEvaluator(SortModule("f32[4,9,6]", 1, "LT")).empty());
}

TEST(SortTest, ElementTypesAndLayouts) {
  EXPECT_TRUE(
      CheckAgainstEvaluator(SortModule("s8[10,70]", 1, "LT", "s8")).empty());
  EXPECT_TRUE(
      CheckAgainstEvaluator(SortModule("u64[3,40]", 1, "GT", "u64")).empty());
  EXPECT_TRUE(
      CheckAgainstEvaluator(SortModule("bf16[5,33]", 1, "LT", "bf16")).empty());
  EXPECT_TRUE(
      CheckAgainstEvaluator(SortModule("f32[20,30]{0,1}", 1, "LT")).empty());
  EXPECT_TRUE(
      CheckAgainstEvaluator(SortModule("f32[20,30]{0,1}", 0, "GT")).empty());
}

TEST(SortTest, LongRowsAndManyRows) {
  EXPECT_TRUE(
      CheckAgainstEvaluator(SortModule("f32[2,5000]", 1, "LT")).empty());
  EXPECT_TRUE(
      CheckAgainstEvaluator(SortModule("f32[3000,7]", 1, "GT")).empty());
  EXPECT_TRUE(CheckAgainstEvaluator(SortModule("f32[1]", 0, "LT")).empty());
  EXPECT_TRUE(CheckAgainstEvaluator(SortModule("f32[3,0]", 1, "LT")).empty());
}

// Keys with many duplicates and their positions: a stable sort keeps equal
// keys in input order, which the positions show exactly.
TEST(SortTest, StableWithSeveralOperands) {
  const std::string text = R"(
HloModule stable
cmp {
  ka = s32[] parameter(0)
  kb = s32[] parameter(1)
  va = s32[] parameter(2)
  vb = s32[] parameter(3)
  wa = f32[] parameter(4)
  wb = f32[] parameter(5)
  ROOT c = pred[] compare(ka, kb), direction=$DIR
}
ENTRY main {
  k = s32[6,300] parameter(0)
  v = s32[6,300] iota(), iota_dimension=1
  w = f32[6,300] parameter(1)
  ROOT s = (s32[6,300], s32[6,300], f32[6,300]) sort(k, v, w), dimensions={1}, is_stable=$STABLE, to_apply=cmp
}
)";
  for (const char* dir : {"LT", "GT"}) {
    for (const char* stable : {"true", "false"}) {
      EXPECT_TRUE(
          CheckAgainstEvaluator(
              absl::StrReplaceAll(text, {{"$DIR", dir}, {"$STABLE", stable}}))
              .empty());
    }
  }
}

TEST(SortTest, LexicographicComparator) {
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule lexicographic
cmp {
  a0 = s32[] parameter(0)
  b0 = s32[] parameter(1)
  a1 = f32[] parameter(2)
  b1 = f32[] parameter(3)
  lt0 = pred[] compare(a0, b0), direction=LT
  eq0 = pred[] compare(a0, b0), direction=EQ
  lt1 = pred[] compare(a1, b1), direction=GT
  t = pred[] and(eq0, lt1)
  ROOT r = pred[] or(lt0, t)
}
ENTRY main {
  k = s32[200,9] parameter(0)
  v = f32[200,9] parameter(1)
  ROOT s = (s32[200,9], f32[200,9]) sort(k, v), dimensions={0}, to_apply=cmp
}
)")
                  .empty());
}

TEST(SortTest, NanAndSignedZerosInTotalOrder) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> values = {3.0f, -nan,  0.0f, -0.0f, nan,  -inf,  1.0f,
                               inf,  -0.0f, 0.0f, -2.5f, nan,  2.0f,  -nan,
                               7.0f, -1.0f, 0.0f, inf,   -inf, 1e-40f};
  Literal x = Literal::CreateR1<float>(F32, values);
  for (const char* cmp : {"compare(a, b), direction=LT, type=TOTALORDER",
                          "compare(a, b), direction=GT, type=TOTALORDER",
                          "compare(a, b), direction=LT, order=TOTAL"}) {
    const std::string text = absl::StrReplaceAll(R"(
HloModule total_order
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] $CMP
}
ENTRY main {
  x = f32[20] parameter(0)
  ROOT s = f32[20] sort(x), dimensions={0}, is_stable=true, to_apply=cmp
}
)",
                                                 {{"$CMP", cmp}});
    EXPECT_TRUE(CheckAgainstEvaluator(text, {x}).empty());
  }
  // JAX's comparator: NaNs canonicalized, -0 == +0, total order (the
  // corpus's sort_rows).
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule jax_sort
cmp {
  a = f32[] parameter(0)
  ne.a = pred[] compare(a, a), direction=NE
  qnan = f32[] constant(nan)
  zero = f32[] constant(0)
  eq.a = pred[] compare(a, zero), direction=EQ
  za = f32[] select(eq.a, zero, a)
  ca = f32[] select(ne.a, qnan, za)
  b = f32[] parameter(1)
  ne.b = pred[] compare(b, b), direction=NE
  eq.b = pred[] compare(b, zero), direction=EQ
  zb = f32[] select(eq.b, zero, b)
  cb = f32[] select(ne.b, qnan, zb)
  ROOT lt = pred[] compare(ca, cb), direction=LT, order=TOTAL
}
ENTRY main {
  x = f32[20] parameter(0)
  ROOT s = f32[20] sort(x), dimensions={0}, is_stable=true, to_apply=cmp
}
)",
                                    {x})
                  .empty());
}

}  // namespace
}  // namespace hloc

// IsLogAddExpReducer against lax.cumlogsumexp's reducer as JAX 0.10 lowers
// it, its spellings with operands commuted and without the NaN select, and
// reducers that look alike but compute something else.
#include "hlo/reducer_patterns.h"

#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace {

// lax.cumlogsumexp's reducer, as in a JAX-lowered module.
constexpr char kJaxLogAddExp[] = R"(
HloModule m
r {
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
  ROOT out = f32[] select(nan, sum, s)
}
ENTRY e {
  x = f32[4] parameter(0)
  z = f32[] constant(-inf)
  ROOT rw = f32[4] reduce-window(x, z), window={size=4 pad=0_3}, to_apply=r
})";

bool Matches(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return false;
  return IsLogAddExpReducer(*(*module)->GetComputationWithName("r"));
}

std::string With(
    std::initializer_list<std::pair<absl::string_view, absl::string_view>>
        replacements) {
  return absl::StrReplaceAll(kJaxLogAddExp, replacements);
}

TEST(ReducerPatternsTest, JaxLogAddExpAndItsSpellings) {
  EXPECT_TRUE(Matches(kJaxLogAddExp));
  // Commuted operands, b - a, f64 and bf16.
  EXPECT_TRUE(Matches(With({{"add(a, b)", "add(b, a)"},
                            {"maximum(a, b)", "maximum(b, a)"},
                            {"add(m, l)", "add(l, m)"},
                            {"subtract(a, b)", "subtract(b, a)"}})));
  EXPECT_TRUE(Matches(With({{"f32", "f64"}})));
  EXPECT_TRUE(Matches(With({{"f32", "bf16"}})));
  // Without the NaN select.
  EXPECT_TRUE(
      Matches(With({{"ROOT out = f32[] select(nan, sum, s)",
                     "out = f32[] select(nan, sum, s)"},
                    {"s = f32[] add(m, l)", "ROOT s = f32[] add(m, l)"}})));
}

TEST(ReducerPatternsTest, LookAlikesAreNotLogAddExp) {
  // min instead of max: -log(exp(-a) + exp(-b)) is not what this is.
  EXPECT_FALSE(Matches(With({{"maximum(a, b)", "minimum(a, b)"}})));
  // log instead of log1p; exp(+|d|); a constant added.
  EXPECT_FALSE(Matches(With({{"log-plus-one(e)", "log(e)"}})));
  EXPECT_FALSE(
      Matches(With({{"nd = f32[] negate(ad)", "nd = f32[] abs(ad)"}})));
  EXPECT_FALSE(Matches(
      With({{"s = f32[] add(m, l)",
             "one = f32[] constant(1)\n  l1 = f32[] add(l, one)\n  s = f32[] "
             "add(m, l1)"}})));
  // A difference of one parameter with itself; the NaN test on another
  // value; the select's branches swapped.
  EXPECT_FALSE(Matches(With({{"subtract(a, b)", "subtract(a, a)"}})));
  EXPECT_FALSE(Matches(With({{"compare(d, d)", "compare(a, a)"}})));
  EXPECT_FALSE(Matches(With({{"select(nan, sum, s)", "select(nan, s, sum)"}})));
  // Integers.
  EXPECT_FALSE(Matches(With({{"f32[] parameter", "s32[] parameter"},
                             {"f32[4]", "s32[4]"},
                             {"f32[] constant(-inf)", "s32[] constant(0)"}})));
}

}  // namespace
}  // namespace hloc

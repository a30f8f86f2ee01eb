// reduction-splitter computes what the reduce it splits computes: the
// evaluator's results before and after the pass agree (sums reassociated:
// within f32 rounding; maxima and argmax exactly), and it leaves one
// reduce per run of reduced dimensions, reductions over one run alone.
#include "passes/reduction_splitter.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "passes/test_util.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

struct SplitCase {
  std::string name;
  std::string input;       // shape
  std::string output;      // shape
  std::string dimensions;  // reduced
  int reduces;             // after the pass
};

// Evaluates `text` on seeded inputs (ties everywhere; NaNs replaced by 0
// with `no_nans`), runs the pass, checks the reduce count and evaluates
// again.
void ExpectSameAfterSplit(const std::string& text, int reduces, bool exact,
                          bool no_nans = false) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<Literal> inputs;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    inputs.push_back(
        MakeTiedInput(entry->parameter_instruction(i)->shape(), 11 + i));
    if (no_nans && inputs.back().shape().element_type() == F32) {
      for (float& x : inputs.back().data<float>()) {
        if (std::isnan(x)) x = 0;
      }
    }
  }
  SCOPED_TRACE(text);
  ReductionSplitter pass;
  const std::optional<bool> changed = ExpectSameResultsAfterPass(
      pass, module->get(), inputs,
      exact ? Tolerance{0, 0} : Tolerance{1e-5, 1e-5});
  ASSERT_TRUE(changed.has_value());
  EXPECT_EQ(*changed, reduces > 1);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kReduce), reduces)
      << ModuleText(**module);
}

class ReductionSplitterTest : public testing::TestWithParam<SplitCase> {};

TEST_P(ReductionSplitterTest, SameResults) {
  const SplitCase& c = GetParam();
  for (const char* op : {"add", "maximum"}) {
    SCOPED_TRACE(op);
    const std::string text = absl::StrCat(
        "HloModule m\n\ncombine {\n  a = f32[] parameter(0)\n  b = f32[] "
        "parameter(1)\n  ROOT r = f32[] ",
        op, "(a, b)\n}\n\nENTRY e {\n  x = ", c.input,
        " parameter(0)\n  init = f32[] constant(",
        std::string(op) == "add" ? "0" : "-inf", ")\n  ROOT r = ", c.output,
        " reduce(x, init), dimensions={", c.dimensions,
        "}, to_apply=combine\n}\n");
    ExpectSameAfterSplit(text, c.reduces, std::string(op) == "maximum");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ReductionSplitterTest,
    testing::Values(
        // The middle kept: the minor run (64) first, then 128 rows.
        SplitCase{"outer_and_minor", "f32[128,33,64]", "f32[33]", "0,2", 2},
        // NCHW batch statistics: N, and H x W.
        SplitCase{"nchw_statistics", "f32[8,6,16,16]", "f32[6]", "0,2,3", 2},
        // Three runs: three reduces.
        SplitCase{"three_runs", "f32[32,4,32,3,32]", "f32[4,3]", "0,2,4", 3},
        // Few elements per output (8 x 33): one loop kernel is quicker.
        SplitCase{"small", "f32[8,64,33]", "f32[64]", "0,2", 1},
        // A size-1 dimension between reduced ones separates nothing.
        SplitCase{"unit_between", "f32[8,1,9]", "f32[1]", "0,2", 1},
        // One run already: a column and a row reduction.
        SplitCase{"column", "f32[8,9,10]", "f32[8,10]", "1", 1},
        SplitCase{"rows", "f32[8,9,10]", "f32[8]", "1,2", 1}),
    [](const testing::TestParamInfo<SplitCase>& info) {
      return info.param.name;
    });

// An argmax (a variadic reduce of values and linear indices, ties to the
// lower index) over two runs splits into two variadic reduces, exactly.
// (Without NaNs: this reducer lets a NaN win or lose by the order it
// meets it, as jnp.argmax's own reducer does not.)
TEST(ReductionSplitter, VariadicArgmax) {
  const std::string text = absl::StrCat(R"(
HloModule argmax
)",
                                        kArgmaxReducerHlo, R"(
ENTRY e {
  x = f32[64,5,32] parameter(0)
  i0 = s32[64,5,32] iota(), iota_dimension=0
  i1 = s32[64,5,32] iota(), iota_dimension=1
  i2 = s32[64,5,32] iota(), iota_dimension=2
  c160 = s32[] constant(160)
  c32 = s32[] constant(32)
  s160 = s32[64,5,32] broadcast(c160), dimensions={}
  s32s = s32[64,5,32] broadcast(c32), dimensions={}
  a0 = s32[64,5,32] multiply(i0, s160)
  a1 = s32[64,5,32] multiply(i1, s32s)
  a01 = s32[64,5,32] add(a0, a1)
  i = s32[64,5,32] add(a01, i2)
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[5], s32[5]) reduce(x, i, ninf, zero), dimensions={0,2}, to_apply=argmax
}
)");
  ExpectSameAfterSplit(text, 2, /*exact=*/true, /*no_nans=*/true);
}

// An operand in another layout is left alone (the runs are physical).
TEST(ReductionSplitter, OtherLayoutsAreLeftAlone) {
  const std::string text = R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,9,10]{0,1,2} parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[9] reduce(x, zero), dimensions={0,2}, to_apply=add
}
)";
  ExpectSameAfterSplit(text, 1, /*exact=*/true);
}

}  // namespace
}  // namespace hloc

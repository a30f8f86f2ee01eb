// tree-reduction computes what the reduce it splits computes: the
// evaluator's results before and after the pass agree (sums reassociated:
// within f32 rounding; maxima exactly), including extents the split count
// does not divide, which are padded with the init.
#include "passes/tree_reduction.h"

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
  bool split;              // whether the pass splits it
  bool pads;               // whether the split pads the extent
  // The sums' absolute tolerance (their relative one is 1e-5): reassociated
  // f32 sums of 10^5 values in [-1, 1] (magnitudes of hundreds) differ by
  // ~1e-3.
  double atol = 1e-4;
};

class TreeReductionTest : public testing::TestWithParam<SplitCase> {};

TEST_P(TreeReductionTest, SameResults) {
  const SplitCase& c = GetParam();
  for (const char* op : {"add", "maximum"}) {
    const std::string text = absl::StrCat(
        "HloModule m\n\ncombine {\n  a = f32[] parameter(0)\n  b = f32[] "
        "parameter(1)\n  ROOT r = f32[] ",
        op, "(a, b)\n}\n\nENTRY e {\n  x = ", c.input,
        " parameter(0)\n  init = f32[] constant(",
        std::string(op) == "add" ? "0" : "-inf", ")\n  ROOT r = ", c.output,
        " reduce(x, init), dimensions={", c.dimensions,
        "}, to_apply=combine\n}\n");
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
    ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
    std::vector<Literal> inputs;
    inputs.push_back(MakeUniformInput(
        (*module)->entry_computation()->parameter_instruction(0)->shape(),
        11));
    SCOPED_TRACE(absl::StrCat(c.name, " ", op));
    const bool exact = std::string(op) == "maximum";
    TreeReduction pass;
    const std::optional<bool> changed = ExpectSameResultsAfterPass(
        pass, module->get(), inputs,
        exact ? Tolerance{0, 0} : Tolerance{1e-5, c.atol});
    ASSERT_TRUE(changed.has_value());
    EXPECT_EQ(*changed, c.split);
    EXPECT_EQ(CountOpcode(**module, HloOpcode::kReduce), c.split ? 2 : 1)
        << ModuleText(**module);
    EXPECT_EQ(CountOpcode(**module, HloOpcode::kPad), c.pads ? 1 : 0)
        << ModuleText(**module);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, TreeReductionTest,
    testing::Values(
        // A scalar sum of an odd extent: 512 partials of 1954, padded.
        SplitCase{"odd_scalar", "f32[1000003]", "f32[]", "0", true, true},
        // Whole arrays of two dimensions, divisible.
        SplitCase{"matrix_scalar", "f32[1024,1024]", "f32[]", "0,1", true,
                  false},
        // 333 columns of 8193 rows: 3 column tiles, the rows padded.
        SplitCase{"few_columns_odd_rows", "f32[8193,333]", "f32[333]", "0",
                  true, true},
        // A batch of 3 column sums of 5 columns: 3 blocks of 500k
        // elements; 128 partials each, the 100003 rows padded.
        SplitCase{"batched_columns", "f32[3,100003,5]", "f32[3,5]", "1", true,
                  true, 5e-3},
        // Few blocks but little work each: left alone.
        SplitCase{"small_columns", "f32[1000,333]", "f32[333]", "0", false,
                  false},
        // Many outputs: every SM has blocks already.
        SplitCase{"many_rows", "f32[4096,100]", "f32[4096]", "1", false,
                  false}),
    [](const testing::TestParamInfo<SplitCase>& info) {
      return info.param.name;
    });

// Reduces whose partial results are exact split too, with the same
// results bit for bit: an argmax (values and linear indices, ties to the
// lower index; NaN-free inputs) over an odd extent, an s32 sum, a pred
// any-of and a bf16 maximum, each of 1000003 elements into one output (one
// block unsplit).
TEST(TreeReductionTest, VariadicAndExactTypes) {
  const std::string text = absl::StrCat(R"(
HloModule exact
)",
                                        kArgmaxReducerHlo, R"(
add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
or_pred {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT o = pred[] or(a, b)
}
max_bf16 {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT m = bf16[] maximum(a, b)
}
ENTRY e {
  x = f32[1000003] parameter(0)
  n = s32[1000003] parameter(1)
  i = s32[1000003] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  arg = (f32[], s32[]) reduce(x, i, ninf, zero), dimensions={0}, to_apply=argmax
  sum = s32[] reduce(n, zero), dimensions={0}, to_apply=add_s32
  big = f32[] constant(0.999)
  bigs = f32[1000003] broadcast(big), dimensions={}
  over = pred[1000003] compare(x, bigs), direction=GT
  no = pred[] constant(false)
  any = pred[] reduce(over, no), dimensions={0}, to_apply=or_pred
  xb = bf16[1000003] convert(x)
  ninf_bf16 = bf16[] constant(-inf)
  top = bf16[] reduce(xb, ninf_bf16), dimensions={0}, to_apply=max_bf16
  v = f32[] get-tuple-element(arg), index=0
  k = s32[] get-tuple-element(arg), index=1
  ROOT t = (f32[], s32[], s32[], pred[], bf16[]) tuple(v, k, sum, any, top)
}
)");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> inputs;
  // Ties everywhere (the argmax's lowest index must win), no NaN.
  inputs.push_back(MakeUniformInput(Shape::Array(F32, {1000003}), 3));
  for (float& x : inputs.back().data<float>()) x = std::round(x * 4) / 4;
  inputs.push_back(MakeTiedInput(Shape::Array(S32, {1000003}), 5));
  TreeReduction pass;
  const std::optional<bool> changed =
      ExpectSameResultsAfterPass(pass, module->get(), inputs, Tolerance{0, 0});
  ASSERT_TRUE(changed.has_value());
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kReduce), 8)
      << ModuleText(**module);
}

}  // namespace
}  // namespace hloc

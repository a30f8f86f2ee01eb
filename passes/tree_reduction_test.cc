// tree-reduction computes what the reduce it splits computes: the
// evaluator's results before and after the pass agree (sums reassociated:
// within f32 rounding; maxima exactly), including extents the split count
// does not divide, which are padded with the init.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"
#include "passes/tree_reduction.h"
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
  // The sums' absolute tolerance: reassociated f32 sums of 10^5 values
  // in [-1, 1] (magnitudes of hundreds) differ by ~1e-3.
  double atol = 1e-5;
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
    absl::StatusOr<Literal> want = EvaluateModule(**module, inputs);
    ASSERT_TRUE(want.ok()) << want.status();
    TreeReduction pass;
    absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_EQ(*changed, c.split) << op;
    EXPECT_EQ(CountOpcode(**module, HloOpcode::kReduce), c.split ? 2 : 1)
        << ModuleText(**module);
    EXPECT_EQ(CountOpcode(**module, HloOpcode::kPad), c.pads ? 1 : 0)
        << ModuleText(**module);
    absl::StatusOr<Literal> got = EvaluateModule(**module, inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    const bool exact = std::string(op) == "maximum";
    ComparisonResult result = CompareLiterals(
        *got, *want, exact ? Tolerance{0, 0} : Tolerance{c.atol, 1e-4});
    EXPECT_TRUE(result.ok()) << c.name << " " << op << ": max abs error "
                             << result.max_abs_error;
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

}  // namespace
}  // namespace hloc

// ragged-dot: the evaluator's direct computation against hand-computed
// results, and ragged-dot-expander's masks and dot against the evaluator,
// in all three modes, with group sizes per batch ([b, g]), dimensions in
// unusual orders (the ragged dimension last, the rhs group dimension in the
// middle, batch dimensions behind the others), groups that cover fewer or
// more indices than there are, negative sizes (overlapping groups), bf16
// operands with an f32 result and s64 sizes. Inputs are small integers, so
// every sum is exact and the comparisons are bit for bit.
#include "passes/ragged_dot_expander.h"

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/ragged_dot.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

Literal Values(const Shape& shape, const std::vector<double>& values) {
  Literal literal(shape);
  for (size_t i = 0; i < values.size(); ++i)
    literal.SetFromDouble(i, values[i]);
  return literal;
}

// Integers in [-3, 3] (group sizes come from the test).
Literal SmallIntegers(const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(-3, 3);
  Literal literal(shape);
  for (int64_t i = 0; i < shape.ElementCount(); ++i) {
    literal.SetFromDouble(i, value(rng));
  }
  return literal;
}

std::vector<double> AsDoubles(const Literal& literal) {
  std::vector<double> values;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    values.push_back(literal.GetAsDouble(i));
  }
  return values;
}

// The evaluator's result for `text`'s module on `arguments`.
std::vector<double> Evaluate(const std::string& text,
                             const std::vector<Literal>& arguments) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  absl::StatusOr<Literal> result = EvaluateModule(**module, arguments);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return {};
  return AsDoubles(*result);
}

// The module with one ragged-dot, expanded: no ragged-dot left, and the
// evaluator's result on the expansion equals its result on the original.
void ExpectExpansionMatches(const std::string& text,
                            const std::vector<Literal>& arguments) {
  const std::vector<double> expected = Evaluate(text, arguments);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status();
  RaggedDotExpander pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kRaggedDot), 0);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kDot), 1) << ModuleText(**module);
  absl::StatusOr<Literal> result = EvaluateModule(**module, arguments);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(AsDoubles(*result), expected) << ModuleText(**module);
}

std::string Module(const std::string& lhs, const std::string& rhs,
                   const std::string& sizes, const std::string& result,
                   const std::string& dims) {
  return absl::StrCat(
      "HloModule m\nENTRY e {\n  a = ", lhs, " parameter(0)\n  b = ", rhs,
      " parameter(1)\n  g = ", sizes, " parameter(2)\n  ROOT r = ", result,
      " ragged-dot(a, b, g), ", dims, "\n}\n");
}

TEST(RaggedDotTest, EvaluatorRowsByHand) {
  // Row 0 in group 0, rows 1 and 2 in group 1, row 3 in none.
  const std::string text =
      Module("f32[4,2]", "f32[2,2,1]", "s32[2]", "f32[4,1]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
             "lhs_ragged_dims={0}, rhs_group_dims={0}");
  std::vector<Literal> args;
  args.push_back(Values(Shape::Array(F32, {4, 2}), {1, 1, 2, 2, 3, 3, 4, 4}));
  args.push_back(Values(Shape::Array(F32, {2, 2, 1}), {1, 1, 10, 10}));
  args.push_back(Values(Shape::Array(S32, {2}), {1, 2}));
  EXPECT_EQ(Evaluate(text, args), (std::vector<double>{2, 40, 60, 0}));
  // Sizes 3, -2, 2: group 0 is rows 0..2, group 1 none, group 2 rows 1..2,
  // so rows 1 and 2 take both groups' products.
  args[1] = Values(Shape::Array(F32, {3, 2, 1}), {1, 1, 10, 10, 100, 100});
  args[2] = Values(Shape::Array(S32, {3}), {3, -2, 2});
  const std::string overlapping =
      Module("f32[4,2]", "f32[3,2,1]", "s32[3]", "f32[4,1]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
             "lhs_ragged_dims={0}, rhs_group_dims={0}");
  EXPECT_EQ(Evaluate(overlapping, args), (std::vector<double>{2, 404, 606, 0}));
  ExpectExpansionMatches(overlapping, args);
}

TEST(RaggedDotTest, EvaluatorContractionByHand) {
  // Group 0 sums term 0, group 1 terms 1 and 2; term 3 is in no group.
  const std::string text =
      Module("f32[1,4]", "f32[4,1]", "s32[2]", "f32[2,1,1]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
             "lhs_ragged_dims={1}");
  std::vector<Literal> args;
  args.push_back(Values(Shape::Array(F32, {1, 4}), {1, 2, 3, 4}));
  args.push_back(Values(Shape::Array(F32, {4, 1}), {1, 1, 1, 1}));
  args.push_back(Values(Shape::Array(S32, {2}), {1, 2}));
  EXPECT_EQ(Evaluate(text, args), (std::vector<double>{1, 5}));
}

struct Case {
  std::string name;
  std::string lhs, rhs, sizes, result, dims;
  std::vector<int64_t> group_sizes;
};

class RaggedDotExpansionTest : public ::testing::TestWithParam<Case> {};

TEST_P(RaggedDotExpansionTest, MatchesEvaluator) {
  const Case& c = GetParam();
  const std::string text = Module(c.lhs, c.rhs, c.sizes, c.result, c.dims);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<Literal> args;
  args.push_back(SmallIntegers(entry->parameter_instruction(0)->shape(), 1));
  args.push_back(SmallIntegers(entry->parameter_instruction(1)->shape(), 2));
  Literal sizes(entry->parameter_instruction(2)->shape());
  ASSERT_EQ(static_cast<int64_t>(c.group_sizes.size()), sizes.element_count());
  for (size_t i = 0; i < c.group_sizes.size(); ++i) {
    sizes.SetFromInt64(i, c.group_sizes[i]);
  }
  args.push_back(std::move(sizes));
  ExpectExpansionMatches(text, args);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, RaggedDotExpansionTest,
    ::testing::Values(
        // MoE rows: fewer covered than there are, an empty group.
        Case{"rows_partial",
             "f32[9,5]",
             "f32[3,5,4]",
             "s32[3]",
             "f32[9,4]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
             "lhs_ragged_dims={0}, rhs_group_dims={0}",
             {3, 0, 4}},
        // More covered than there are.
        Case{"rows_overfull",
             "f32[6,3]",
             "f32[2,3,2]",
             "s64[2]",
             "f32[6,2]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
             "lhs_ragged_dims={0}, rhs_group_dims={0}",
             {4, 7}},
        // The ragged dimension last, the contraction first, the rhs group
        // dimension between its contracting and free dimensions.
        Case{"rows_transposed",
             "f32[5,7]",
             "f32[5,3,2]",
             "s32[3]",
             "f32[7,2]",
             "lhs_contracting_dims={0}, rhs_contracting_dims={0}, "
             "lhs_ragged_dims={1}, rhs_group_dims={1}",
             {2, 2, 3}},
        // Sizes per batch and per outer row dimension ([b, x, g]), the
        // batch dimension behind the rows.
        Case{"rows_prefixed",
             "f32[2,4,3,5]",
             "f32[3,4,5,2]",
             "s32[4,2,3]",
             "f32[4,2,3,2]",
             "lhs_batch_dims={1}, lhs_contracting_dims={3}, "
             "rhs_batch_dims={1}, rhs_contracting_dims={2}, "
             "lhs_ragged_dims={2}, rhs_group_dims={0}",
             {1, 1, 1, 0, 3, 0, 2, 0, 1,  3, 0, 0,
              0, 0, 3, 1, 2, 0, 2, 2, -1, 0, 0, 2}},
        Case{"rows_bf16_f32",
             "bf16[8,6]",
             "bf16[2,6,3]",
             "s32[2]",
             "f32[8,3]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
             "lhs_ragged_dims={0}, rhs_group_dims={0}",
             {5, 3}},
        // Weight gradients: [g, m, n], the terms split among the groups.
        Case{"contracting",
             "f32[4,10]",
             "f32[10,3]",
             "s32[3]",
             "f32[3,4,3]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
             "lhs_ragged_dims={1}",
             {4, 0, 5}},
        Case{"contracting_two_dims",
             "f64[3,6,2]",
             "f64[2,6,4]",
             "s32[2,3]",
             "f64[3,3,4]",
             "lhs_contracting_dims={2,1}, rhs_contracting_dims={0,1}, "
             "lhs_ragged_dims={1}",
             {2, 4, 6, 0, -1, 3}},
        Case{"contracting_batched",
             "f32[2,5,8]",
             "f32[8,2,3]",
             "s32[2,2]",
             "f32[2,2,5,3]",
             "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
             "rhs_batch_dims={1}, rhs_contracting_dims={0}, "
             "lhs_ragged_dims={2}",
             {3, 5, 8, 0}},
        // A ragged batch dimension: the plain dot.
        Case{"batch",
             "f32[4,3,5]",
             "f32[4,5,2]",
             "s32[2]",
             "f32[4,3,2]",
             "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
             "rhs_batch_dims={0}, rhs_contracting_dims={1}, "
             "lhs_ragged_dims={0}",
             {1, 2}}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(RaggedDotTest, ShapesAndErrors) {
  const Shape lhs = Shape::Array(F32, {8, 4});
  const Shape rhs = Shape::Array(F32, {3, 4, 5});
  RaggedDotDimensionNumbers rows;
  rows.dot_dimension_numbers.lhs_contracting_dimensions = {1};
  rows.dot_dimension_numbers.rhs_contracting_dimensions = {1};
  rows.lhs_ragged_dimensions = {0};
  rows.rhs_group_dimensions = {0};
  absl::StatusOr<Shape> shape =
      InferRaggedDotShape(lhs, rhs, Shape::Array(S32, {3}), rows, std::nullopt);
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->dimensions(), (std::vector<int64_t>{8, 5}));
  // Group counts that differ, float sizes, no group dimension, sizes of
  // the wrong prefix.
  EXPECT_FALSE(
      InferRaggedDotShape(lhs, rhs, Shape::Array(S32, {4}), rows, std::nullopt)
          .ok());
  EXPECT_FALSE(
      InferRaggedDotShape(lhs, rhs, Shape::Array(F32, {3}), rows, std::nullopt)
          .ok());
  RaggedDotDimensionNumbers no_group = rows;
  no_group.rhs_group_dimensions.clear();
  EXPECT_FALSE(InferRaggedDotShape(lhs, rhs, Shape::Array(S32, {3}), no_group,
                                   std::nullopt)
                   .ok());
  EXPECT_FALSE(InferRaggedDotShape(lhs, rhs, Shape::Array(S32, {2, 3}), rows,
                                   std::nullopt)
                   .ok());
  // Dimension numbers out of range (before group_sizes' prefix is read
  // from them), unpaired.
  RaggedDotDimensionNumbers batch_out_of_range = rows;
  batch_out_of_range.dot_dimension_numbers.lhs_batch_dimensions = {7};
  batch_out_of_range.dot_dimension_numbers.rhs_batch_dimensions = {2};
  EXPECT_FALSE(InferRaggedDotShape(lhs, rhs, Shape::Array(S32, {8, 3}),
                                   batch_out_of_range, std::nullopt)
                   .ok());
  RaggedDotDimensionNumbers unpaired = rows;
  unpaired.dot_dimension_numbers.rhs_contracting_dimensions.clear();
  EXPECT_FALSE(InferRaggedDotShape(lhs, rhs, Shape::Array(S32, {3}), unpaired,
                                   std::nullopt)
                   .ok());
  // The verifier rejects a ragged-dot whose declared result is wrong.
  EXPECT_FALSE(
      ParseAndVerify(Module("f32[8,4]", "f32[3,4,5]", "s32[3]", "f32[8,6]",
                            "lhs_contracting_dims={1}, "
                            "rhs_contracting_dims={1}, "
                            "lhs_ragged_dims={0}, rhs_group_dims={0}"))
          .ok());
}

}  // namespace
}  // namespace hloc

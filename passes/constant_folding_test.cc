// Constant folding: folded values, and the limits (size, broadcasts, side
// effects).
#include "passes/constant_folding.h"

#include "gtest/gtest.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

TEST(ConstantFoldingTest, FoldsExpressionsThroughCalledComputations) {
  auto module = ParseAndVerify(R"(
HloModule m

max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

ENTRY main {
  c = f32[2,3]{1,0} constant({ {1, -2, 3}, {-4, 5, -6} })
  n = f32[2,3]{1,0} negate(c)
  ninf = f32[] constant(-inf)
  ROOT r = f32[2]{0} reduce(n, ninf), dimensions={1}, to_apply=max_f32
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  ConstantFolding folding;
  absl::StatusOr<bool> changed = RunAndVerify(folding, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  HloInstruction* root = (*module)->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(root->literal(), Literal::CreateR1<float>(F32, {2, 6}));
  EXPECT_EQ(root->shape(), Shape::Array(F32, {2}));
  EXPECT_EQ((*module)->entry_computation()->instruction_count(), 1);
  EXPECT_EQ(folding.statistics().at("instructions-folded"), 2);
}

TEST(ConstantFoldingTest, RespectsLimits) {
  auto module = ParseAndVerify(R"(
HloModule m

ENTRY main {
  x = f32[8]{0} parameter(0)
  c = f32[8]{0} constant({1, 2, 3, 4, 5, 6, 7, 8})
  big = f32[8]{0} negate(c)
  s = f32[] constant(3)
  b = f32[8]{0} broadcast(s), dimensions={}
  c4 = f32[4]{0} constant({1, 2, 3, 4})
  small = f32[2]{0} slice(c4), slice={[0:2]}
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  random = f32[8]{0} rng(lo, hi), distribution=rng_uniform
  uses_param = f32[8]{0} add(x, c)
  ROOT r = (f32[8]{0}, f32[8]{0}, f32[2]{0}, f32[8]{0}, f32[8]{0}) tuple(big, b, small, random, uses_param)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  ConstantFolding folding(/*max_elements=*/4);
  ASSERT_TRUE(RunAndVerify(folding, module->get()).ok());
  EXPECT_EQ(FindInstruction(**module, "big")->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(FindInstruction(**module, "b")->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(FindInstruction(**module, "small"), nullptr);
  EXPECT_EQ(FindInstruction(**module, "random")->opcode(), HloOpcode::kRng);
  EXPECT_EQ(FindInstruction(**module, "uses_param")->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(folding.statistics().at("instructions-folded"), 1);
  EXPECT_EQ(folding.statistics().at("skipped-size"), 2);
}

TEST(ConstantFoldingTest, DefaultLimitKeepsBroadcastsOfScalars) {
  auto module = ParseAndVerify(R"(
HloModule m

ENTRY main {
  s = f32[] constant(3)
  ROOT b = f32[1000,1000]{1,0} broadcast(s), dimensions={}
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  ConstantFolding folding;
  absl::StatusOr<bool> changed = RunAndVerify(folding, module->get());
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(folding.statistics().at("skipped-broadcast"), 1);
}

}  // namespace
}  // namespace hloc

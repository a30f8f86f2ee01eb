// Call inlining: nested calls, shared callees, and callees other ops use.
#include "passes/call_inliner.h"

#include "gtest/gtest.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

TEST(CallInlinerTest, InlinesNestedAndRepeatedCalls) {
  auto module = ParseAndVerify(R"(
HloModule m

square {
  p = f32[4]{0} parameter(0)
  ROOT s = f32[4]{0} multiply(p, p)
}

twice {
  q = f32[4]{0} parameter(0)
  c1 = f32[4]{0} call(q), to_apply=square
  ROOT c2 = f32[4]{0} call(c1), to_apply=square
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  a = f32[4]{0} call(x), to_apply=twice
  ROOT b = f32[4]{0} call(a), to_apply=square
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  CallInliner inliner;
  absl::StatusOr<bool> changed = RunAndVerify(inliner, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ((*module)->computation_count(), 1);
  // x^2, ^2, ^2: three multiplies in a chain.
  HloInstruction* instr = (*module)->entry_computation()->root_instruction();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(instr->opcode(), HloOpcode::kMultiply);
    EXPECT_EQ(instr->operand(0), instr->operand(1));
    instr = instr->operand(0);
  }
  EXPECT_EQ(instr->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(inliner.statistics().at("calls-inlined"), 4);
  EXPECT_EQ(inliner.statistics().at("computations-removed"), 2);
}

TEST(CallInlinerTest, KeepsCalleesOtherOpsUse) {
  auto module = ParseAndVerify(R"(
HloModule m

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  c = f32[] call(x, y), to_apply=add_f32
  v = f32[4]{0} parameter(2)
  ROOT r = f32[] reduce(v, c), dimensions={0}, to_apply=add_f32
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  CallInliner inliner;
  ASSERT_TRUE(RunAndVerify(inliner, module->get()).ok());
  EXPECT_EQ((*module)->computation_count(), 2);
  HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kAdd);
}

}  // namespace
}  // namespace hloc

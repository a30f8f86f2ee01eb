// Tuple simplification, including what must stay.
#include "passes/tuple_simplifier.h"

#include "gtest/gtest.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

TEST(TupleSimplifierTest, ForwardsElementsAndRemovesRebuiltTuples) {
  auto module = ParseAndVerify(R"(
HloModule m

ENTRY main {
  p = (f32[2]{0}, s32[]) parameter(0)
  a = f32[2]{0} parameter(1)
  t = (f32[2]{0}, f32[2]{0}) tuple(a, a)
  g = f32[2]{0} get-tuple-element(t), index=1
  p0 = f32[2]{0} get-tuple-element(p), index=0
  p1 = s32[] get-tuple-element(p), index=1
  rebuilt = (f32[2]{0}, s32[]) tuple(p0, p1)
  ROOT r = ((f32[2]{0}, s32[]), f32[2]{0}) tuple(rebuilt, g)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  TupleSimplifier simplifier;
  absl::StatusOr<bool> changed = RunAndVerify(simplifier, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0), FindInstruction(**module, "p"));
  EXPECT_EQ(root->operand(1), FindInstruction(**module, "a"));
}

TEST(TupleSimplifierTest, KeepsPartialOrReorderedTuples) {
  auto module = ParseAndVerify(R"(
HloModule m

ENTRY main {
  p = (f32[2]{0}, f32[2]{0}, f32[2]{0}) parameter(0)
  p0 = f32[2]{0} get-tuple-element(p), index=0
  p1 = f32[2]{0} get-tuple-element(p), index=1
  p2 = f32[2]{0} get-tuple-element(p), index=2
  prefix = (f32[2]{0}, f32[2]{0}) tuple(p0, p1)
  swapped = (f32[2]{0}, f32[2]{0}, f32[2]{0}) tuple(p1, p0, p2)
  ROOT r = ((f32[2]{0}, f32[2]{0}), (f32[2]{0}, f32[2]{0}, f32[2]{0})) tuple(prefix, swapped)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  TupleSimplifier simplifier;
  absl::StatusOr<bool> changed = RunAndVerify(simplifier, module->get());
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

}  // namespace
}  // namespace hloc

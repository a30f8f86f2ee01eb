// Common subexpression elimination: what merges and what must not.
#include "passes/cse.h"

#include "gtest/gtest.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

TEST(CseTest, MergesTreesConstantsAndCommutedOperands) {
  auto module = ParseAndVerify(R"(
HloModule m

ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  c1 = f32[] constant(2)
  c2 = f32[] constant(2)
  b1 = f32[4]{0} broadcast(c1), dimensions={}
  b2 = f32[4]{0} broadcast(c2), dimensions={}
  s1 = f32[4]{0} add(x, b1)
  s2 = f32[4]{0} add(b2, x)
  d1 = f32[4]{0} subtract(s1, y)
  d2 = f32[4]{0} subtract(s2, y)
  ROOT r = f32[4]{0} multiply(d1, d2)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  CommonSubexpressionElimination cse;
  absl::StatusOr<bool> changed = RunAndVerify(cse, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(cse.statistics().at("instructions-merged"), 4);
  HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0), root->operand(1));
  EXPECT_EQ((*module)->entry_computation()->instruction_count(), 7);
}

TEST(CseTest, KeepsWhatDiffers) {
  auto module = ParseAndVerify(R"(
HloModule m

ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} parameter(1)
  sub1 = f32[4]{0} subtract(x, y)
  sub2 = f32[4]{0} subtract(y, x)
  c1 = f32[] constant(1)
  c2 = f32[] constant(-1)
  c3 = s32[] constant(1)
  rev1 = f32[4]{0} reverse(x), dimensions={0}
  t1 = f32[4]{0} custom-call(x), custom_call_target="f"
  t2 = f32[4]{0} custom-call(x), custom_call_target="g"
  t3 = f32[4]{0} custom-call(x), custom_call_target="f", backend_config="1"
  t4 = f32[4]{0} custom-call(y), custom_call_target="f"
  e1 = f32[4]{0} custom-call(x), custom_call_target="g", custom_call_has_side_effect=true
  e2 = f32[4]{0} custom-call(x), custom_call_target="g", custom_call_has_side_effect=true
  n1 = f32[4]{0} custom-call(), custom_call_target="h"
  n2 = f32[4]{0} custom-call(), custom_call_target="h"
  ROOT r = (f32[4]{0}, f32[4]{0}, f32[], f32[], s32[], f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(sub1, sub2, c1, c2, c3, rev1, t1, t2, t3, t4, e1, e2, n1, n2)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  CommonSubexpressionElimination cse;
  absl::StatusOr<bool> changed = RunAndVerify(cse, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
}

// Custom calls without side effects are pure (XLA's CSE merges them too):
// JAX's LU of one matrix for solve, inv and slogdet becomes one
// factorization, its results shared through their get-tuple-elements.
TEST(CseTest, MergesPureCustomCalls) {
  auto module = ParseAndVerify(R"(
HloModule m

ENTRY main {
  a = f32[8,8]{1,0} parameter(0)
  lu1 = (f32[8,8]{1,0}, s32[8]{0}, s32[]) custom-call(a), custom_call_target="cusolver_getrf_ffi", api_version=API_VERSION_TYPED_FFI
  lu2 = (f32[8,8]{1,0}, s32[8]{0}, s32[]) custom-call(a), custom_call_target="cusolver_getrf_ffi", api_version=API_VERSION_TYPED_FFI
  f1 = f32[8,8]{1,0} get-tuple-element(lu1), index=0
  f2 = f32[8,8]{1,0} get-tuple-element(lu2), index=0
  p2 = s32[8]{0} get-tuple-element(lu2), index=1
  ROOT r = (f32[8,8]{1,0}, f32[8,8]{1,0}, s32[8]{0}) tuple(f1, f2, p2)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  CommonSubexpressionElimination cse;
  absl::StatusOr<bool> changed = RunAndVerify(cse, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  // lu2, then f2 (now the same get-tuple-element as f1).
  EXPECT_EQ(cse.statistics().at("instructions-merged"), 2);
  const HloInstruction* root =
      (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0), root->operand(1));
  EXPECT_EQ(root->operand(2)->operand(0), root->operand(0)->operand(0));
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kCustomCall), 1);
}

// An exp that may be approximated and one that may not compute different
// values on a GPU (backends/common/elemental_emitter.cc): never merged.
// Two with the same result_accuracy are.
TEST(CseTest, ResultAccuracyTellsExpsApart) {
  auto module = ParseAndVerify(R"(
HloModule m

ENTRY main {
  x = f32[4]{0} parameter(0)
  plain = f32[4]{0} exponential(x)
  loose1 = f32[4]{0} exponential(x), result_accuracy={tolerance={atol=0,rtol=0.001,ulps=0}}
  loose2 = f32[4]{0} exponential(x), result_accuracy={tolerance={atol=0,rtol=0.001,ulps=0}}
  highest = f32[4]{0} exponential(x), result_accuracy={mode=highest}
  ROOT r = (f32[4]{0}, f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(plain, loose1, loose2, highest)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  CommonSubexpressionElimination cse;
  absl::StatusOr<bool> changed = RunAndVerify(cse, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(cse.statistics().at("instructions-merged"), 1);
  const HloInstruction* root =
      (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(1), root->operand(2));
  EXPECT_NE(root->operand(0), root->operand(1));
  EXPECT_NE(root->operand(0), root->operand(3));
  EXPECT_NE(root->operand(1), root->operand(3));
}

TEST(CseTest, MergesReducesWithEqualReducers) {
  auto module = ParseAndVerify(R"(
HloModule m

add_a {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

add_b {
  c = f32[] parameter(0)
  d = f32[] parameter(1)
  ROOT t = f32[] add(c, d)
}

max_c {
  e = f32[] parameter(0)
  f = f32[] parameter(1)
  ROOT m = f32[] maximum(e, f)
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  zero = f32[] constant(0)
  r1 = f32[] reduce(x, zero), dimensions={0}, to_apply=add_a
  r2 = f32[] reduce(x, zero), dimensions={0}, to_apply=add_b
  r3 = f32[] reduce(x, zero), dimensions={0}, to_apply=max_c
  ROOT out = (f32[], f32[], f32[]) tuple(r1, r2, r3)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  CommonSubexpressionElimination cse;
  ASSERT_TRUE(RunAndVerify(cse, module->get()).ok());
  HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0), root->operand(1));
  EXPECT_NE(root->operand(0), root->operand(2));
}

}  // namespace
}  // namespace hloc

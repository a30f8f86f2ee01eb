// Dead code elimination beyond what tests/lit/passes/dce.hlo shows: counters,
// the no-change case, control edges through removed instructions, and dead
// code inside called computations.
#include "passes/dce.h"

#include "gtest/gtest.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

TEST(DceTest, RemovesDeadChainsAndCountsThem) {
  auto module = ParseAndVerify(R"(
HloModule m

unused {
  a = f32[] parameter(0)
  ROOT b = f32[] negate(a)
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  d1 = f32[4]{0} negate(x)
  d2 = f32[4]{0} exponential(d1)
  d3 = f32[4]{0} add(d2, d1)
  ROOT r = f32[4]{0} abs(x)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  DeadCodeElimination dce;
  absl::StatusOr<bool> changed = RunAndVerify(dce, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ((*module)->entry_computation()->instruction_count(), 2);
  EXPECT_EQ((*module)->computation_count(), 1);
  EXPECT_EQ(dce.statistics().at("instructions-removed"), 3);
  EXPECT_EQ(dce.statistics().at("computations-removed"), 1);

  changed = RunAndVerify(dce, module->get());
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

TEST(DceTest, KeepsControlOrderThroughARemovedInstruction) {
  auto module = ParseAndVerify(R"(
HloModule m

ENTRY main {
  x = f32[4]{0} parameter(0)
  first = f32[4]{0} custom-call(x), custom_call_target="a", custom_call_has_side_effect=true
  dead = f32[4]{0} negate(x), control-predecessors={first}
  ROOT last = f32[4]{0} custom-call(x), custom_call_target="b", custom_call_has_side_effect=true, control-predecessors={dead}
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  DeadCodeElimination dce;
  ASSERT_TRUE(RunAndVerify(dce, module->get()).ok());
  EXPECT_EQ(FindInstruction(**module, "dead"), nullptr);
  HloInstruction* first = FindInstruction(**module, "first");
  HloInstruction* last = FindInstruction(**module, "last");
  ASSERT_NE(first, nullptr);
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->control_predecessors(), std::vector<HloInstruction*>{first});
}

TEST(DceTest, CleansCalledComputations) {
  auto module = ParseAndVerify(R"(
HloModule m

body {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  unused = f32[] multiply(a, b)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(x, zero), dimensions={0}, to_apply=body
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  DeadCodeElimination dce;
  ASSERT_TRUE(RunAndVerify(dce, module->get()).ok());
  EXPECT_EQ(FindInstruction(**module, "unused"), nullptr);
  // Parameters of a computation stay even when unused.
  EXPECT_NE(FindInstruction(**module, "b"), nullptr);
}

}  // namespace
}  // namespace hloc

// control-flow-layout gives a while's loop state, a conditional's operands
// and results and a get-tuple-element's value one layout across each
// boundary, with copies only where they differ, and keeps the module's
// results.
#include "passes/control_flow_layout.h"

#include <string>
#include <memory>

#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

// Every boundary the pass fixes agrees.
void ExpectBoundariesAgree(const HloModule& module) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kWhile) {
        const Shape& state =
            instr->while_body()->parameter_instruction(0)->shape();
        EXPECT_EQ(instr->operand(0)->shape(), state) << instr->name();
        EXPECT_EQ(instr->shape(), state) << instr->name();
        EXPECT_EQ(instr->while_body()->root_instruction()->shape(), state);
        EXPECT_EQ(instr->while_condition()->parameter_instruction(0)->shape(),
                  state);
      } else if (instr->opcode() == HloOpcode::kConditional) {
        for (size_t b = 0; b < instr->called_computations().size(); ++b) {
          const HloComputation* branch = instr->called_computations()[b];
          EXPECT_EQ(instr->operand(b + 1)->shape(),
                    branch->parameter_instruction(0)->shape());
          EXPECT_EQ(branch->root_instruction()->shape(), instr->shape());
        }
      } else if (instr->opcode() == HloOpcode::kGetTupleElement) {
        EXPECT_EQ(instr->shape(), instr->operand(0)->shape().tuple_shapes(
                                      instr->tuple_index()))
            << instr->name();
      }
    }
  }
}

void CheckPass(const std::string& text, int64_t copies, bool changes) {
  ControlFlowLayout pass;
  std::unique_ptr<HloModule> module =
      CheckCopyingPass(pass, text, copies, changes);
  if (module != nullptr) ExpectBoundariesAgree(*module);
}

// jax.vmap of a lax.scan over x: JAX transposes the batch behind the
// scanned axis with a layout that makes the transpose a view of x, and the
// loop state holds it in that layout while the body reads it row-major.
// The cpu backend read the wrong rows at every step (an equinox GRU under
// vmap). The operand is copied into the body's layout; the while's result,
// the condition's parameter and their get-tuple-elements are re-declared
// in it (the transpose after the loop reads any layout).
TEST(ControlFlowLayoutTest, VmapOfScanLoopState) {
  CheckPass(R"(
HloModule m
body {
  s = (s32[], f32[7,2,3]{2,1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[7,2,3]{2,1,0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  zero = s32[] constant(0)
  row = f32[1,2,3] dynamic-slice(x, i, zero, zero), dynamic_slice_sizes={1,2,3}
  two = f32[1,2,3] add(row, row)
  y = f32[7,2,3]{2,1,0} dynamic-update-slice(x, two, i, zero, zero)
  ROOT r = (s32[], f32[7,2,3]{2,1,0}) tuple(next, y)
}
cond {
  s = (s32[], f32[7,2,3]{2,0,1}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  seven = s32[] constant(7)
  ROOT lt = pred[] compare(i, seven), direction=LT
}
ENTRY main {
  zero = s32[] constant(0)
  x = f32[2,7,3] parameter(0)
  t = f32[7,2,3]{2,0,1} transpose(x), dimensions={1,0,2}
  init = (s32[], f32[7,2,3]{2,0,1}) tuple(zero, t)
  w = (s32[], f32[7,2,3]{2,0,1}) while(init), condition=cond, body=body
  out = f32[7,2,3]{2,0,1} get-tuple-element(w), index=1
  ROOT back = f32[2,7,3] transpose(out), dimensions={1,0,2}
}
)",
            1, true);
}

TEST(ControlFlowLayoutTest, LeavesAgreeingLoopsAlone) {
  CheckPass(R"(
HloModule m
body {
  s = (s32[], f32[2,2]{0,1}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2,2]{0,1} get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  y = f32[2,2]{0,1} add(x, x)
  ROOT r = (s32[], f32[2,2]{0,1}) tuple(next, y)
}
cond {
  s = (s32[], f32[2,2]{0,1}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY main {
  zero = s32[] constant(0)
  x = f32[2,2]{0,1} parameter(0)
  init = (s32[], f32[2,2]{0,1}) tuple(zero, x)
  ROOT w = (s32[], f32[2,2]{0,1}) while(init), condition=cond, body=body
}
)",
            0, false);
}

// A branch reads its operand column-major and returns it row-major while
// the conditional promises column-major.
TEST(ControlFlowLayoutTest, ConditionalOperandsAndResults) {
  CheckPass(R"(
HloModule m
negate_branch {
  p = f32[3,2]{0,1} parameter(0)
  ROOT n = f32[3,2]{1,0} negate(p)
}
copy_branch {
  p = f32[3,2]{1,0} parameter(0)
  ROOT c = f32[3,2]{1,0} copy(p)
}
ENTRY main {
  k = s32[] parameter(0)
  x = f32[3,2]{1,0} parameter(1)
  ROOT c = f32[3,2]{0,1} conditional(k, x, x), branch_computations={negate_branch, copy_branch}
}
)",
            // negate_branch's operand; both branches' roots.
            3, true);
}

// A get-tuple-element declared in another layout than its element's: the
// negate reads it as it is; the root tuple is given a copy in the layout
// it was written for.
TEST(ControlFlowLayoutTest, GetTupleElementReadsItsElementsLayout) {
  CheckPass(R"(
HloModule m
ENTRY main {
  x = f32[4,3]{0,1} parameter(0)
  y = s32[2] parameter(1)
  t = (f32[4,3]{0,1}, s32[2]) tuple(x, y)
  g = f32[4,3]{1,0} get-tuple-element(t), index=0
  n = f32[4,3]{1,0} negate(g)
  ROOT r = (f32[4,3]{1,0}, f32[4,3]{1,0}) tuple(g, n)
}
)",
            1, true);
}

}  // namespace
}  // namespace hloc

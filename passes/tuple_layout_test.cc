// tuple-layout gives every tuple element its tuple's layout with a copy
// where the operand's differs (also inside a nested tuple element), leaves
// agreeing elements alone, and keeps the module's results.
#include "passes/tuple_layout.h"

#include <string>
#include <memory>

#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

// Every tuple's elements have exactly the layouts its shape names.
void ExpectTuplesAgree(const HloModule& module) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kTuple) continue;
      for (int64_t i = 0; i < instr->operand_count(); ++i) {
        EXPECT_EQ(instr->operand(i)->shape(), instr->shape().tuple_shapes(i))
            << instr->name() << " element " << i << "\n"
            << ModuleText(module);
      }
    }
  }
}

void CheckPass(const std::string& text, int64_t copies) {
  TupleLayout pass;
  std::unique_ptr<HloModule> module =
      CheckCopyingPass(pass, text, copies, /*changes=*/copies > 0);
  if (module != nullptr) ExpectTuplesAgree(*module);
}

// The differential fuzzer's case: a root tuple element in row-major
// layout whose operand, a parameter, is column-major.
TEST(TupleLayoutTest, CopiesAnElementInAnotherLayout) {
  CheckPass(R"(
HloModule m
ENTRY main {
  a = f32[3] parameter(0)
  p = s32[4,1]{0,1} parameter(1)
  ROOT t = (f32[3], s32[4,1]{1,0}) tuple(a, p)
}
)",
            1);
}

TEST(TupleLayoutTest, LeavesAgreeingTuplesAlone) {
  CheckPass(R"(
HloModule m
ENTRY main {
  p = s32[4,3]{0,1} parameter(0)
  q = f32[2,5] parameter(1)
  ROOT t = (s32[4,3]{0,1}, f32[2,5]{1,0}) tuple(p, q)
}
)",
            0);
}

// A nested element: only its leaf in another layout is copied.
TEST(TupleLayoutTest, RebuildsANestedElementLeafByLeaf) {
  CheckPass(R"(
HloModule m
ENTRY main {
  p = f32[2,3]{0,1} parameter(0)
  q = s32[5] parameter(1)
  inner = (f32[2,3]{0,1}, s32[5]) tuple(p, q)
  ROOT t = ((f32[2,3]{1,0}, s32[5]), s32[5]) tuple(inner, q)
}
)",
            1);
}

// A tuple inside a loop body is fixed too (its copies run every
// iteration, as XLA's would).
TEST(TupleLayoutTest, FixesTuplesInCalledComputations) {
  CheckPass(R"(
HloModule m
body {
  s = (s32[], f32[2,2]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2,2]{1,0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  y = f32[2,2]{0,1} transpose(x), dimensions={1,0}
  ROOT r = (s32[], f32[2,2]{1,0}) tuple(next, y)
}
cond {
  s = (s32[], f32[2,2]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY main {
  zero = s32[] constant(0)
  x = f32[2,2]{1,0} parameter(0)
  init = (s32[], f32[2,2]{1,0}) tuple(zero, x)
  ROOT w = (s32[], f32[2,2]{1,0}) while(init), condition=cond, body=body
}
)",
            1);
}

}  // namespace
}  // namespace hloc

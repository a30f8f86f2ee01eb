// Wide concatenates split into trees of narrow ones, values unchanged.
#include "passes/concatenate_splitter.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

// A concatenate of 300 operands (jnp.stack of 300 separately computed
// values) is one kernel reading 300 pointers on a GPU; with at most 128 a
// kernel it becomes concat(concat(128), concat(128), concat(44)), and with
// at most 16, two levels below the top.
TEST(ConcatenateSplitterTest, WideConcatenatesBecomeTrees) {
  std::string hlo =
      "HloModule m\n\nENTRY main {\n  p = f32[300,2]{1,0} parameter(0)\n";
  std::string operands;
  for (int i = 0; i < 300; ++i) {
    hlo += "  s" + std::to_string(i) + " = f32[1,2]{1,0} slice(p), slice={[" +
           std::to_string(299 - i) + ":" + std::to_string(300 - i) +
           "], [0:2]}\n";
    operands += (i ? ", s" : "s") + std::to_string(i);
  }
  hlo += "  ROOT c = f32[300,2]{1,0} concatenate(" + operands +
         "), dimensions={0}\n}\n";
  for (int64_t max : {128, 16}) {
    auto module = ParseAndVerify(hlo);
    ASSERT_TRUE(module.ok()) << module.status();
    ConcatenateSplitter splitter(max);
    Literal input = MakeTiedInput(
        (*module)->entry_computation()->parameter_instruction(0)->shape(), 7);
    std::vector<Literal> inputs;
    inputs.push_back(std::move(input));
    std::optional<bool> changed =
        ExpectSameResultsAfterPass(splitter, module->get(), inputs, {});
    ASSERT_TRUE(changed.has_value());
    EXPECT_TRUE(*changed);
    int64_t levels = 0;
    for (HloInstruction* instr :
         (*module)->entry_computation()->instructions()) {
      if (instr->opcode() != HloOpcode::kConcatenate) continue;
      EXPECT_LE(instr->operand_count(), max) << instr->name();
    }
    const HloInstruction* top =
        (*module)->entry_computation()->root_instruction();
    for (const HloInstruction* c = top; c->opcode() == HloOpcode::kConcatenate;
         c = c->operand(0)) {
      ++levels;
    }
    EXPECT_EQ(levels, max == 128 ? 2 : 3);
    EXPECT_EQ(top->operand_count(), max == 128 ? 3 : 2);
  }
}

TEST(ConcatenateSplitterTest, NarrowConcatenatesStay) {
  auto module = ParseAndVerify(R"(
HloModule m

ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[2,5]{1,0} parameter(1)
  ROOT c = f32[2,8]{1,0} concatenate(a, b), dimensions={1}
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  ConcatenateSplitter splitter(2);
  absl::StatusOr<bool> changed = RunAndVerify(splitter, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
}

}  // namespace
}  // namespace hloc

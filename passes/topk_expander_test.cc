// topk-expander keeps results bit for bit: the reference evaluator's topk
// and the stable sort of (values, iota) sliced to k give the same values
// and indices on rows with many ties, both zeros, infinities and NaNs of
// both signs, for largest and smallest, several k (the whole row too),
// ranks 1 to 3, f32, bf16, s32 and u8. No topk is left.
#include "passes/topk_expander.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

TEST(TopKExpanderTest, SameValuesAndIndicesAsTheTopK) {
  for (const std::string type : {"f32", "bf16", "s32", "u8"}) {
    for (const std::vector<int64_t>& dims :
         std::vector<std::vector<int64_t>>{{3, 1000}, {2, 3, 33}, {17}}) {
      for (int64_t k : {int64_t{1}, int64_t{5}, dims.back()}) {
        for (bool largest : {true, false}) {
          std::vector<int64_t> out = dims;
          out.back() = k;
          const std::string text = absl::StrCat(
              "HloModule topk\n\nENTRY main {\n  x = ", type, "[",
              absl::StrJoin(dims, ","), "] parameter(0)\n  ROOT t = (", type,
              "[", absl::StrJoin(out, ","), "], s32[", absl::StrJoin(out, ","),
              "]) topk(x), k=", k, ", largest=", largest ? "true" : "false",
              "\n}\n");
          SCOPED_TRACE(text);
          absl::StatusOr<std::unique_ptr<HloModule>> module =
              ParseAndVerify(text);
          ASSERT_TRUE(module.ok()) << module.status();
          std::vector<Literal> inputs;
          inputs.push_back(MakeTiedInput(
              (*module)->entry_computation()->parameter_instruction(0)->shape(),
              5));
          absl::StatusOr<Literal> before = EvaluateModule(**module, inputs);
          ASSERT_TRUE(before.ok()) << before.status();
          TopKExpander pass;
          absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
          ASSERT_TRUE(changed.ok()) << changed.status();
          ASSERT_TRUE(*changed);
          for (const HloInstruction* instr :
               (*module)->entry_computation()->instructions()) {
            EXPECT_NE(instr->opcode(), HloOpcode::kTopK);
          }
          absl::StatusOr<Literal> after = EvaluateModule(**module, inputs);
          ASSERT_TRUE(after.ok()) << after.status();
          EXPECT_TRUE(*after == *before) << ModuleText(**module);
        }
      }
    }
  }
}

}  // namespace
}  // namespace hloc

// collective-layout leaves every all-gather, reduce-scatter and all-to-all
// moving along its most major dimension, and keeps every device's results
// exactly (it only moves data), checked on the replicated evaluator.
#include "passes/collective_layout.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/collectives.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

struct Case {
  std::string name;
  std::string body;  // the entry's instructions; parameters are f32
  int64_t transposes;  // how many the pass adds
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string ModuleFor(const Case& c) {
  return absl::StrCat(
      "HloModule ", c.name,
      ", replica_count=4\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] "
      "parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n\nENTRY main {\n",
      c.body, "\n}\n");
}

class CollectiveLayoutTest : public testing::TestWithParam<Case> {};

TEST_P(CollectiveLayoutTest, MajorDimensionSameResults) {
  const Case& c = GetParam();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(ModuleFor(c));
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << ModuleFor(c);
  std::vector<std::vector<Literal>> inputs(4);
  for (int64_t d = 0; d < 4; ++d) {
    for (const HloInstruction* p :
         (*module)->entry_computation()->parameter_instructions()) {
      inputs[d].push_back(MakeUniformInput(
          p->shape(), static_cast<uint32_t>(17 * d + p->parameter_number())));
    }
  }
  absl::StatusOr<std::vector<Literal>> want =
      EvaluateReplicated(**module, inputs);
  ASSERT_TRUE(want.ok()) << want.status();

  const int64_t before = CountOpcode(**module, HloOpcode::kTranspose);
  CollectiveLayout pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(*changed, c.transposes > 0) << ModuleText(**module);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kTranspose) - before,
            c.transposes)
      << ModuleText(**module);
  for (const HloInstruction* instr :
       (*module)->entry_computation()->instructions()) {
    if (instr->opcode() == HloOpcode::kAllGather ||
        instr->opcode() == HloOpcode::kReduceScatter ||
        instr->opcode() == HloOpcode::kAllToAll) {
      EXPECT_TRUE(CollectiveDimensionIsMajor(*instr)) << instr->name();
    }
  }

  absl::StatusOr<std::vector<Literal>> got =
      EvaluateReplicated(**module, inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  for (int64_t d = 0; d < 4; ++d) {
    EXPECT_TRUE((*got)[d] == (*want)[d]) << "device " << d;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Collectives, CollectiveLayoutTest,
    testing::Values(
        Case{"gather_major",
             "p = f32[3,5] parameter(0)\n"
             "ROOT r = f32[12,5] all-gather(p), dimensions={0}",
             0},
        Case{"gather_minor",
             "p = f32[3,5] parameter(0)\n"
             "ROOT r = f32[3,20] all-gather(p), dimensions={1}",
             2},
        // Dimension 1 is major in effect: dimension 0 has size 1.
        Case{"gather_behind_unit",
             "p = f32[1,2,5] parameter(0)\n"
             "ROOT r = f32[1,8,5] all-gather(p), dimensions={1}",
             0},
        Case{"gather_middle_tuple",
             "p = f32[2,3,4] parameter(0)\n q = f32[2,1,3] parameter(1)\n"
             "ROOT r = (f32[2,12,4], f32[2,4,3]) all-gather(p, q), "
             "dimensions={1}",
             4},
        Case{"scatter_minor",
             "p = f32[3,8] parameter(0)\n"
             "ROOT r = f32[3,2] reduce-scatter(p), dimensions={1}, "
             "to_apply=add",
             2},
        Case{"all_to_all_minor",
             "p = f32[3,8] parameter(0)\n"
             "ROOT r = f32[3,8] all-to-all(p), dimensions={1}",
             2},
        // A column-major operand: dimension 1 is its most major already.
        Case{"gather_column_major",
             "p = f32[3,5]{0,1} parameter(0)\n"
             "ROOT r = f32[3,20]{0,1} all-gather(p), dimensions={1}",
             0},
        Case{"all_to_all_tuple_form",
             "p = f32[3] parameter(0)\n q = f32[3] parameter(1)\n"
             "s = f32[3] parameter(2)\n t = f32[3] parameter(3)\n"
             "ROOT r = (f32[3], f32[3], f32[3], f32[3]) all-to-all(p, q, s, "
             "t)",
             0}),
    [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace hloc

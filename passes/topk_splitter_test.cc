// topk-splitter keeps results bit for bit: the reference evaluator gives
// the same values and indices before and after the pass, on rows with many
// ties, both signed zeros, infinities and NaNs of both signs (topk orders
// them by the total order, equal values by index), for row lengths that
// divide into chunks and ones that must be padded (50257 is 29 * 1733, no
// chunk count divides it evenly near the limit), several k, largest and
// smallest, f32, bf16 and integers. Small limits force the candidates to
// be merged over several levels. After the pass no topk or sort row is
// longer than the limit.
#include "passes/topk_splitter.h"

#include <cstdint>
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

struct Case {
  std::string name;
  std::string type;  // f32, bf16, s32, u8
  std::vector<int64_t> dims;
  int64_t k;
  bool largest;
  int64_t limit = TopKSplitter::kGpuMaxRowLength;
};

std::string ModuleFor(const Case& c) {
  std::vector<int64_t> out = c.dims;
  out.back() = c.k;
  const std::string in_dims = absl::StrJoin(c.dims, ",");
  const std::string out_dims = absl::StrJoin(out, ",");
  return absl::StrCat("HloModule ", c.name, "\n\nENTRY main {\n  x = ", c.type,
                      "[", in_dims, "] parameter(0)\n  ROOT t = (", c.type, "[",
                      out_dims, "], s32[", out_dims, "]) topk(x), k=", c.k,
                      ", largest=", c.largest ? "true" : "false", "\n}\n");
}

// The longest row any topk or sort of the entry computation sorts.
int64_t LongestSortedRow(const HloModule& module) {
  int64_t longest = 0;
  for (const HloInstruction* instr :
       module.entry_computation()->instructions()) {
    if (instr->opcode() != HloOpcode::kTopK &&
        instr->opcode() != HloOpcode::kSort) {
      continue;
    }
    longest = std::max(longest, instr->operand(0)->shape().dimensions().back());
  }
  return longest;
}

class TopKSplitterTest : public testing::TestWithParam<Case> {};

TEST_P(TopKSplitterTest, SameValuesAndIndicesAsTheTopK) {
  const Case& c = GetParam();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(ModuleFor(c));
  ASSERT_TRUE(module.ok()) << module.status();
  const Shape& shape =
      (*module)->entry_computation()->parameter_instruction(0)->shape();
  for (uint32_t seed : {1u, 2u}) {
    std::vector<Literal> inputs;
    inputs.push_back(MakeTiedInput(shape, seed));
    absl::StatusOr<Literal> before = EvaluateModule(**module, inputs);
    ASSERT_TRUE(before.ok()) << before.status();

    absl::StatusOr<std::unique_ptr<HloModule>> split =
        ParseAndVerify(ModuleFor(c));
    ASSERT_TRUE(split.ok()) << split.status();
    TopKSplitter pass(c.limit);
    absl::StatusOr<bool> changed = RunAndVerify(pass, split->get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    ASSERT_TRUE(*changed) << ModuleText(**split);
    EXPECT_LE(LongestSortedRow(**split), c.limit) << ModuleText(**split);

    absl::StatusOr<Literal> after = EvaluateModule(**split, inputs);
    ASSERT_TRUE(after.ok()) << after.status() << "\n" << ModuleText(**split);
    EXPECT_TRUE(*after == *before) << "seed " << seed;
  }
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  const std::vector<std::vector<int64_t>> shapes = {
      {3, 50257}, {2, 32000}, {1, 131072}};
  for (const std::string type : {"f32", "bf16"}) {
    for (const std::vector<int64_t>& dims : shapes) {
      for (int64_t k : {1, 5, 64}) {
        for (bool largest : {true, false}) {
          cases.push_back(
              Case{absl::StrCat(type, "_", absl::StrJoin(dims, "x"), "_k", k,
                                largest ? "_largest" : "_smallest"),
                   type, dims, k, largest});
        }
      }
    }
  }
  // Small limits: chunks of 63 and 64, candidates merged in levels.
  cases.push_back(Case{"levels_f32", "f32", {2, 3, 1000}, 5, true, 64});
  cases.push_back(Case{"levels_f32_k32", "f32", {2, 1000}, 32, false, 64});
  cases.push_back(Case{"levels_bf16_k8", "bf16", {3, 1001}, 8, true, 16});
  cases.push_back(Case{"levels_k1", "f32", {4099}, 1, false, 2});
  cases.push_back(Case{"s32", "s32", {2, 20000}, 7, true});
  cases.push_back(Case{"s32_smallest", "s32", {2, 20000}, 7, false});
  cases.push_back(Case{"u8", "u8", {2, 9000}, 3, true, 100});
  cases.push_back(Case{"u8_smallest", "u8", {2, 9000}, 3, false, 100});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Split, TopKSplitterTest, testing::ValuesIn(Cases()),
                         [](const testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

// Rows within the limit, and k too large for two chunks' candidates to fit
// one merge, are left alone.
TEST(TopKSplitterTest, ShortRowsAndLargeKUntouched) {
  for (const Case& c : {Case{"short", "f32", {4, 8192}, 8, true},
                        Case{"large_k", "f32", {2, 20000}, 4097, true}}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseAndVerify(ModuleFor(c));
    ASSERT_TRUE(module.ok()) << module.status();
    TopKSplitter pass;
    absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_FALSE(*changed) << c.name;
  }
}

}  // namespace
}  // namespace hloc

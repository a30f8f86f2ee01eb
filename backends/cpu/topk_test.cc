// topk compiled on the CPU (the cpu pipeline's topk-expander: a stable
// sort of (values, iota) and a slice, then the sort kernel) gives the
// evaluator's values and indices exactly, on rows with many ties, both
// zeros, infinities and NaNs of both signs: largest and smallest, k of 1,
// 5 and 64 (and the whole row), f32, bf16 and s32, rank 1 to 3, long rows.
// Compiled strictly: nothing may run in the evaluator.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

void CheckTopK(const std::string& type, std::vector<int64_t> dims, int64_t k,
               bool largest) {
  std::vector<int64_t> out = dims;
  out.back() = k;
  const std::string text = absl::StrCat(
      "HloModule topk\n\nENTRY main {\n  x = ", type, "[",
      absl::StrJoin(dims, ","), "] parameter(0)\n  ROOT t = (", type, "[",
      absl::StrJoin(out, ","), "], s32[", absl::StrJoin(out, ","),
      "]) topk(x), k=", k, ", largest=", largest ? "true" : "false", "\n}\n");
  SCOPED_TRACE(text);
  auto module = ParseHloModule(text, "test");
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  args.push_back(MakeTiedInput(
      (*module)->entry_computation()->parameter_instruction(0)->shape(), 3));
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<Literal> actual = testing_util::RunOptimizedStrict(text, args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_TRUE(*actual == *expected);
}

TEST(TopKTest, CompiledMatchesTheEvaluator) {
  for (const std::string type : {"f32", "bf16", "s32"}) {
    for (bool largest : {true, false}) {
      for (int64_t k : {1, 5, 64}) {
        CheckTopK(type, {3, 1000}, k, largest);
      }
      CheckTopK(type, {2, 3, 70}, 70, largest);
      CheckTopK(type, {65}, 5, largest);
    }
  }
  CheckTopK("f32", {2, 50257}, 8, true);
  CheckTopK("bf16", {1, 131072}, 8, false);
}

}  // namespace
}  // namespace hloc

// topk compiled on the CPU (a library call step, runtime/cpu_topk.h; the
// cpu pipeline leaves topk to it) gives the evaluator's values and indices
// exactly, on rows with many ties, both zeros, infinities and NaNs of both
// signs: largest and smallest, k of 1, 5 and 64 (and the whole row), rows
// of 1, 7, 1000 and 32768, f32, bf16, s32 and other widths, rank 1 to 3,
// and in a non-row-major layout. Compiled strictly: nothing may run in the
// evaluator. (runtime/cpu_topk_test.cc checks every element type against
// the evaluator on special values; this checks the compiled path.)
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

std::string TopKText(const std::string& type, std::vector<int64_t> dims,
                     int64_t k, bool largest, const std::string& layout = "") {
  std::vector<int64_t> out = dims;
  out.back() = k;
  return absl::StrCat("HloModule topk\n\nENTRY main {\n  x = ", type, "[",
                      absl::StrJoin(dims, ","), "]", layout,
                      " parameter(0)\n  ROOT t = (", type, "[",
                      absl::StrJoin(out, ","), "]", layout, ", s32[",
                      absl::StrJoin(out, ","), "]", layout, ") topk(x), k=", k,
                      ", largest=", largest ? "true" : "false", "\n}\n");
}

void CheckText(const std::string& text) {
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

void CheckTopK(const std::string& type, std::vector<int64_t> dims, int64_t k,
               bool largest) {
  CheckText(TopKText(type, dims, k, largest));
}

TEST(TopKTest, CompiledMatchesTheEvaluator) {
  for (const std::string type : {"f32", "bf16", "s32"}) {
    for (bool largest : {true, false}) {
      for (int64_t k : {1, 5, 64}) {
        CheckTopK(type, {3, 1000}, k, largest);
      }
      CheckTopK(type, {2, 3, 70}, 70, largest);
      CheckTopK(type, {65}, 5, largest);
      CheckTopK(type, {4, 1}, 1, largest);
      CheckTopK(type, {3, 7}, 5, largest);
      CheckTopK(type, {3, 7}, 7, largest);
      CheckTopK(type, {2, 32768}, 64, largest);
    }
  }
  // Other widths (MakeTiedInput gives them bytes 0..6: ties everywhere).
  for (const std::string type : {"f16", "f64", "s8", "u16", "u32", "s64"}) {
    CheckTopK(type, {3, 1000}, 5, true);
    CheckTopK(type, {3, 1000}, 64, false);
  }
  CheckTopK("f32", {2, 50257}, 8, true);
  CheckTopK("bf16", {1, 131072}, 8, false);
}

// A column-major operand and results: the step reads and writes them
// through row-major copies.
TEST(TopKTest, ColumnMajorLayoutMatchesTheEvaluator) {
  CheckText(TopKText("f32", {6, 300}, 5, true, "{0,1}"));
}

// The compiled module has one topk library step and no sort kernel.
TEST(TopKTest, IsOneLibraryStep) {
  auto module = ParseHloModule(TopKText("f32", {32, 4096}, 8, true), "test");
  ASSERT_TRUE(module.ok()) << module.status();
  auto pipeline = MakePipeline("cpu", PipelineOptions{});
  ASSERT_TRUE(pipeline.ok());
  ASSERT_TRUE(pipeline->Run(module->get()).ok());
  CpuCompileOptions options;
  options.allow_fallback = false;
  auto executable = CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  int library_steps = 0;
  for (const ExecutableStep& step : (*executable)->executable().steps) {
    EXPECT_NE(step.kind, ExecutableStep::Kind::kKernel) << step.kernel_name;
    if (step.kind == ExecutableStep::Kind::kLibraryCall) {
      EXPECT_EQ(step.library, "topk.largest");
      ++library_steps;
    }
  }
  EXPECT_EQ(library_steps, 1);
}

}  // namespace
}  // namespace hloc

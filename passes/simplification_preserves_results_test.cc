// The semantic check for the simplification passes: on every corpus
// module (shared/corpus/jax/<case>/module.hlo with its in*.npy inputs), the
// reference evaluator gives the same outputs before and after the whole
// simplification pipeline (call-inliner, then algebraic-simplifier,
// tuple-simplifier, constant-folding, cse and dce to a fixed point) with
// the verifier after every pass.
//
// None of these passes reassociates floating point arithmetic, so the
// comparison is exact (NaN matching NaN, and -0 matching +0, which
// add(x, 0) -> x may turn one into the other). power(x, 2) -> x * x and
// a / sqrt(b) -> a * rsqrt(b) are the rules that may move a result by an
// ulp or a few; where one fired, the module's default float tolerance
// applies instead.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/simplification.h"
#include "passes/test_util.h"
#include "runtime/compare.h"
#include "runtime/npy.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

bool FileExists(const std::string& path) { return std::ifstream(path).good(); }

int64_t InstructionCount(const HloModule& module) {
  int64_t count = 0;
  for (const HloComputation* c : module.computations()) {
    count += c->instruction_count();
  }
  return count;
}

// Whether a report has a non-zero counter `name` ("   3 pass - name").
bool RuleFired(const std::string& report, const std::string& name) {
  return report.find(absl::StrCat(" - ", name, "\n")) != std::string::npos;
}

class SimplificationPreservesResults
    : public testing::TestWithParam<std::string> {};

TEST_P(SimplificationPreservesResults, SameOutputsBeforeAndAfter) {
  const std::string dir = absl::StrCat(CorpusDir(), "/", GetParam());
  std::string text = ReadFile(dir + "/module.hlo");
  ASSERT_FALSE(text.empty()) << "cannot read " << dir << "/module.hlo";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status();

  std::vector<Literal> inputs;
  for (int i = 0; FileExists(absl::StrCat(dir, "/in", i, ".npy")); ++i) {
    NpyReadOptions options;
    options.expected_type = (*module)
                                ->entry_computation()
                                ->parameter_instruction(i)
                                ->shape()
                                .element_type();
    absl::StatusOr<Literal> input =
        ReadNpy(absl::StrCat(dir, "/in", i, ".npy"), options);
    ASSERT_TRUE(input.ok()) << input.status();
    inputs.push_back(std::move(*input));
  }
  ASSERT_EQ(static_cast<int64_t>(inputs.size()),
            (*module)->entry_computation()->num_parameters());

  absl::StatusOr<Literal> before = EvaluateModule(**module, inputs);
  ASSERT_TRUE(before.ok()) << before.status();
  int64_t instructions_before = InstructionCount(**module);

  std::unique_ptr<HloPassPipeline> pipeline = MakeSimplificationPipeline();
  PipelineOptions options;
  options.verify = true;
  pipeline->set_options(options);
  absl::StatusOr<bool> changed = pipeline->Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  std::string report = pipeline->StatisticsReport();
  EXPECT_FALSE(RuleFired(report, "iteration-cap-reached")) << report;

  std::cout << GetParam() << ": " << instructions_before << " -> "
            << InstructionCount(**module) << " instructions\n"
            << report;

  absl::StatusOr<Literal> after = EvaluateModule(**module, inputs);
  ASSERT_TRUE(after.ok()) << after.status() << "\n" << ModuleText(**module);

  Tolerance tolerance;  // Exact.
  if (RuleFired(report, "power-two") || RuleFired(report, "divide-by-sqrt")) {
    tolerance = DefaultTolerance(F32, HasAccumulatingOps(**module));
  }
  ComparisonResult result = CompareLiterals(*after, *before, tolerance);
  EXPECT_TRUE(result.ok()) << GetParam() << ": " << result.mismatch_count
                           << " of " << result.element_count
                           << " elements differ, max abs error "
                           << result.max_abs_error << "; first: "
                           << (result.first_mismatches.empty()
                                   ? result.shape_message
                                   : result.first_mismatches[0].ToString())
                           << "\nstatistics:\n"
                           << report << "\nafter:\n"
                           << ModuleText(**module);
}

INSTANTIATE_TEST_SUITE_P(Corpus, SimplificationPreservesResults,
                         testing::ValuesIn(CorpusCases()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace hloc

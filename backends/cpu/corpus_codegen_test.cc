// Every module of the shared JAX corpus compiles for the CPU with no
// evaluator fallback -- as JAX wrote it (calls and all), after the CPU pass
// pipeline, and after the CPU pipeline with dot-epilogue (kOutput) fusion
// on -- and the last runs on the corpus inputs and matches the evaluator.
// (cpu_corpus_test compares the first two with the evaluator.)
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "passes/registry.h"
#include "runtime/npy.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

class CorpusCodegenTest : public ::testing::TestWithParam<std::string> {};

std::unique_ptr<CpuExecutable> CompileWithoutFallback(const HloModule& module,
                                                      const std::string& what) {
  CpuCompileOptions options;
  options.log_fallbacks = false;
  auto executable = CompileForCpu(module, options);
  EXPECT_TRUE(executable.ok()) << what << ": " << executable.status();
  if (!executable.ok()) return nullptr;
  std::vector<std::string> fallbacks = (*executable)->fallback_instructions();
  std::vector<std::string> reasons;
  for (const CpuStep& step : (*executable)->steps()) {
    if (step.kind == CpuStep::Kind::kEvaluator) {
      reasons.push_back(step.fallback_reason);
    }
  }
  EXPECT_TRUE(fallbacks.empty())
      << what << " falls back to the evaluator for "
      << absl::StrJoin(fallbacks, ", ") << ": " << absl::StrJoin(reasons, "; ");
  return std::move(*executable);
}

absl::Status RunPasses(HloModule* module, absl::string_view list) {
  absl::StatusOr<HloPassPipeline> pipeline = PipelineFromPassList(list);
  if (!pipeline.ok()) return pipeline.status();
  absl::StatusOr<bool> changed = pipeline->Run(module);
  if (!changed.ok()) return changed.status();
  for (HloComputation* computation : module->computations()) {
    computation->SortInstructionsInPostOrder();
  }
  return absl::OkStatus();
}

TEST_P(CorpusCodegenTest, NoEvaluatorFallback) {
  const std::string name = GetParam();
  std::string text;
  ASSERT_TRUE(ReadFileToString(CorpusFile(name, "module.hlo"), &text));
  auto module = ParseHloModule(text, CorpusFile(name, "module.hlo"));
  ASSERT_TRUE(module.ok()) << module.status();

  CompileWithoutFallback(**module, name + " (unfused)");

  std::unique_ptr<HloModule> fused = (*module)->Clone();
  auto pipeline = MakePipeline("cpu", PipelineOptions{});
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  ASSERT_TRUE(pipeline->Run(fused.get()).ok());
  for (HloComputation* computation : fused->computations()) {
    computation->SortInstructionsInPostOrder();
  }
  CompileWithoutFallback(*fused, name + " (cpu pipeline)");

  std::unique_ptr<HloModule> epilogues = (*module)->Clone();
  ASSERT_TRUE(RunPasses(epilogues.get(),
                        "simplify,instruction-fusion,multi-output-fusion,dce")
                  .ok());
  std::unique_ptr<CpuExecutable> executable =
      CompileWithoutFallback(*epilogues, name + " (dot epilogues)");
  ASSERT_NE(executable, nullptr);
  std::vector<Literal> args;
  for (int64_t i = 0; i < (*module)->entry_computation()->num_parameters();
       ++i) {
    auto arg = ReadNpy(CorpusFile(name, absl::StrCat("in", i, ".npy")));
    ASSERT_TRUE(arg.ok()) << arg.status();
    args.push_back(std::move(*arg));
  }
  auto expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  auto actual = executable->Run(args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  testing_util::CompareLeaves(*expected, *actual, name + " (dot epilogues)");
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusCodegenTest,
                         ::testing::ValuesIn(CorpusCases()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(CorpusCodegenTest, CorpusIsThere) { EXPECT_GE(CorpusCases().size(), 30u); }

}  // namespace
}  // namespace hloc

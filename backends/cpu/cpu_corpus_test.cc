// Every module of the shared JAX corpus, run by the CPU backend on the
// corpus inputs, against the evaluator: once as JAX wrote it (every
// instruction its own kernel) and once after the CPU pass pipeline (fused).
// Evaluator fallbacks are allowed (dot, convolution, sort, scatter, ...) but
// listed in the test log, and counted.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_compiler.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"
#include "runtime/npy.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

void Leaves(const Literal& literal, std::vector<const Literal*>* out) {
  if (literal.shape().IsTuple()) {
    for (const Literal& e : literal.tuple_elements()) Leaves(e, out);
  } else {
    out->push_back(&literal);
  }
}

class CpuCorpusTest : public ::testing::TestWithParam<std::string> {};

// Runs `module` and compares with the evaluator's `expected` outputs of
// `original` (whose types and ops decide the tolerances: the pipeline may
// have kept excess precision).
void RunAndCompare(const HloModule& module, const HloModule& original,
                   const std::vector<Literal>& args, const Literal& expected,
                   const std::string& what) {
  auto executable = CompileForCpu(module);
  ASSERT_TRUE(executable.ok()) << what << ": " << executable.status();
  auto actual = (*executable)->Run(args);
  ASSERT_TRUE(actual.ok()) << what << ": " << actual.status();
  std::vector<const Literal*> want, got;
  Leaves(expected, &want);
  Leaves(*actual, &got);
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    const Tolerance tol = DefaultToleranceFor(original, *want[i]);
    ComparisonResult c = CompareLiterals(*got[i], *want[i], tol);
    std::string mismatches;
    for (const ElementMismatch& m : c.first_mismatches) {
      absl::StrAppend(&mismatches, "\n  ", m.ToString());
    }
    EXPECT_TRUE(c.ok()) << what << " output " << i << ": " << c.shape_message
                        << c.mismatch_count << " of " << c.element_count
                        << " mismatch (" << tol.ToString() << ")" << mismatches;
  }
  std::string fallbacks;
  for (const std::string& name : (*executable)->fallback_instructions()) {
    absl::StrAppend(&fallbacks, " ", name);
  }
  std::printf("%s: %lld kernels, %zu evaluator fallbacks%s\n", what.c_str(),
              static_cast<long long>((*executable)->kernel_count()),
              (*executable)->fallback_instructions().size(), fallbacks.c_str());
}

TEST_P(CpuCorpusTest, MatchesEvaluator) {
  const std::string name = GetParam();
  std::string text;
  ASSERT_TRUE(ReadFileToString(CorpusFile(name, "module.hlo"), &text));
  auto module = ParseHloModule(text, CorpusFile(name, "module.hlo"));
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  for (int64_t i = 0; i < (*module)->entry_computation()->num_parameters();
       ++i) {
    auto arg = ReadNpy(CorpusFile(name, absl::StrCat("in", i, ".npy")));
    ASSERT_TRUE(arg.ok()) << arg.status();
    args.push_back(std::move(*arg));
  }
  auto expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  RunAndCompare(**module, **module, args, *expected, name + " (unfused)");

  std::unique_ptr<HloModule> fused = (*module)->Clone();
  auto pipeline = MakePipeline("cpu", PipelineOptions{});
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto changed = pipeline->Run(fused.get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  // The fusion passes may leave a computation's stored order not
  // def-before-use, which HloModule::Clone (used by CompileForCpu) needs.
  for (HloComputation* computation : fused->computations()) {
    computation->SortInstructionsInPostOrder();
  }
  RunAndCompare(*fused, **module, args, *expected, name + " (fused)");
}

INSTANTIATE_TEST_SUITE_P(Corpus, CpuCorpusTest,
                         ::testing::ValuesIn(CorpusCases()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace hloc

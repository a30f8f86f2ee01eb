// Fusion must not change what a module computes: on every corpus module
// (shared/corpus/jax/<case>/module.hlo with its in*.npy inputs), the
// reference evaluator gives the same outputs before and after the whole
// cpu and cuda pipelines (simplification, fusion, dce; verifier after every
// pass), within the module's default float tolerance. Every fusion left
// must also satisfy its shape's invariant (fusion_kinds.h).
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/fusion/fusion_kinds.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"
#include "runtime/npy.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

PrimitiveType FirstLeafType(const Shape& shape) {
  if (shape.IsTuple()) {
    return shape.tuple_shapes_size() > 0 ? FirstLeafType(shape.tuple_shapes(0))
                                         : PRED;
  }
  return shape.element_type();
}

class FusionPreservesResults
    : public testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(FusionPreservesResults, SameOutputsBeforeAndAfter) {
  const auto& [name, platform] = GetParam();
  const std::string dir = CorpusFile(name, "");
  std::string text;
  ASSERT_TRUE(ReadFileToString(dir + "/module.hlo", &text)) << dir;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, dir + "/module.hlo");
  ASSERT_TRUE(module.ok()) << module.status();

  std::vector<Literal> inputs;
  for (int i = 0; std::filesystem::exists(absl::StrCat(dir, "/in", i, ".npy"));
       ++i) {
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
  absl::StatusOr<Literal> before = EvaluateModule(**module, inputs);
  ASSERT_TRUE(before.ok()) << before.status();
  const bool accumulating = HasAccumulatingOps(**module);
  const Tolerance tolerance = DefaultTolerance(
      FirstLeafType(
          (*module)->entry_computation()->root_instruction()->shape()),
      accumulating);

  PipelineOptions options;
  options.verify = true;
  absl::StatusOr<HloPassPipeline> pipeline = MakePipeline(platform, options);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  absl::StatusOr<bool> ran = pipeline->Run(module->get());
  ASSERT_TRUE(ran.ok()) << ran.status();

  for (const HloComputation* computation : (*module)->computations()) {
    for (const HloInstruction* instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kFusion) continue;
      absl::Status shape = VerifyFusionShape(*instr);
      EXPECT_TRUE(shape.ok()) << shape;
    }
  }

  absl::StatusOr<Literal> after = EvaluateModule(**module, inputs);
  ASSERT_TRUE(after.ok()) << after.status();
  ComparisonResult result = CompareLiterals(*after, *before, tolerance);
  std::string mismatches;
  for (const ElementMismatch& m : result.first_mismatches) {
    absl::StrAppend(&mismatches, "\n  ", m.ToString());
  }
  EXPECT_TRUE(result.ok()) << result.shape_message << " "
                           << result.mismatch_count << " of "
                           << result.element_count << " elements differ ("
                           << tolerance.ToString() << ")" << mismatches;
}

std::string CaseName(
    const testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
  return absl::StrCat(std::get<0>(info.param), "_", std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Corpus, FusionPreservesResults,
                         testing::Combine(testing::ValuesIn(CorpusCases()),
                                          testing::Values("cpu", "cuda")),
                         CaseName);

TEST(FusionPreservesResults, CorpusIsThere) {
  EXPECT_GE(CorpusCases().size(), 30u) << "corpus dir: '" << CorpusDir() << "'";
}

}  // namespace
}  // namespace hloc

// The evaluator against real XLA: every case of the shared JAX corpus
// (module.hlo as JAX hands it to XLA, and xla_gpu_opt.hlo after XLA:GPU's
// pipeline, with its fusions) evaluates on in*.npy to what XLA:GPU computed
// (out*.npy, the leaves of the result in order), within runtime/compare.h's
// default tolerances.
//
// Two allowances for how XLA:GPU computed the references: f32 dot and
// convolution at default precision ran in TF32 on the H200 (10 mantissa
// bits per operand), which the comparison is told
// (ToleranceOptions::expected_used_tf32); and modules XLA rewrote into
// cuDNN/cuBLAS custom-calls are skipped (custom-call is not evaluable by
// design).
#include "tests/corpus.h"

#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "runtime/compare.h"
#include "runtime/npy.h"

namespace hloc {
namespace {

void Flatten(const Literal& literal, std::vector<const Literal*>* leaves) {
  if (literal.shape().IsTuple()) {
    for (const Literal& e : literal.tuple_elements()) Flatten(e, leaves);
  } else {
    leaves->push_back(&literal);
  }
}

bool HasOpcode(const HloModule& module, HloOpcode opcode) {
  for (const HloComputation* c : module.computations()) {
    for (const HloInstruction* i : c->instructions()) {
      if (i->opcode() == opcode) return true;
    }
  }
  return false;
}

void CheckCase(const std::string& name, const std::string& file) {
  SCOPED_TRACE(name + "/" + file);
  std::string text;
  ASSERT_TRUE(ReadFileToString(CorpusFile(name, file), &text));
  auto module = ParseHloModule(text, file);
  ASSERT_TRUE(module.ok()) << module.status();
  if (HasOpcode(**module, HloOpcode::kCustomCall)) return;
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<Literal> args;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    NpyReadOptions options;
    options.expected_type =
        entry->parameter_instruction(i)->shape().element_type();
    auto arg =
        ReadNpy(CorpusFile(name, "in" + std::to_string(i) + ".npy"), options);
    ASSERT_TRUE(arg.ok()) << arg.status();
    args.push_back(std::move(*arg));
  }
  auto result = EvaluateModule(**module, args);
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<const Literal*> leaves;
  Flatten(*result, &leaves);
  // XLA:GPU computed the expected outputs, with TF32 dots.
  ToleranceOptions tolerance_options;
  tolerance_options.expected_used_tf32 = true;
  for (size_t i = 0; i < leaves.size(); ++i) {
    NpyReadOptions options;
    options.expected_type = leaves[i]->element_type();
    auto expected =
        ReadNpy(CorpusFile(name, "out" + std::to_string(i) + ".npy"), options);
    ASSERT_TRUE(expected.ok()) << expected.status();
    const Tolerance tolerance =
        DefaultToleranceFor(**module, *expected, tolerance_options);
    ComparisonResult cmp = CompareLiterals(*leaves[i], *expected, tolerance);
    std::string detail = cmp.shape_message;
    for (const ElementMismatch& m : cmp.first_mismatches) {
      detail += "\n  " + m.ToString();
    }
    EXPECT_TRUE(cmp.ok()) << "output " << i << " (" << tolerance.ToString()
                          << "): " << cmp.mismatch_count << " of "
                          << cmp.element_count << " differ, max abs "
                          << cmp.max_abs_error << ", max rel "
                          << cmp.max_rel_error << detail;
  }
}

TEST(EvaluatorCorpusTest, CorpusIsFound) {
  ASSERT_FALSE(CorpusDir().empty())
      << "shared/corpus/jax not found (set HLOC_CORPUS_DIR)";
  EXPECT_GE(CorpusCases().size(), 30u);
}

TEST(EvaluatorCorpusTest, JaxModulesMatchXla) {
  for (const std::string& name : CorpusCases()) CheckCase(name, "module.hlo");
}

TEST(EvaluatorCorpusTest, XlaGpuOptimizedModulesMatchXla) {
  for (const std::string& name : CorpusCases()) {
    CheckCase(name, "xla_gpu_opt.hlo");
  }
}

}  // namespace
}  // namespace hloc

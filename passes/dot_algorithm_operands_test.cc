// dot-algorithm-operands gives an f32 dot whose algorithm reads bf16 or
// f16 operands (dot_bf16_bf16_f32, dot_f16_f16_f32) those operands: after
// the pass the reference evaluator's result equals that of the same dot
// written with the converts (bit for bit) and differs from the f32 dot's
// (the inputs are not bf16 values). Other algorithms, and dots it cannot
// rewrite, stay as they are; TF32_TF32_F32 lets the cuda gemm use TF32.
#include "passes/dot_algorithm_operands.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

std::string DotModule(const std::string& algorithm) {
  return absl::StrCat(R"(HloModule m
ENTRY e {
  x = f32[6,40] parameter(0)
  y = f32[40,5] parameter(1)
  ROOT d = f32[6,5] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0})",
                      algorithm.empty() ? "" : ", algorithm=", algorithm,
                      "\n}\n");
}

std::string ConvertedDotModule(const std::string& type) {
  return absl::StrCat(R"(HloModule m
ENTRY e {
  x = f32[6,40] parameter(0)
  y = f32[40,5] parameter(1)
  xn = )",
                      type, R"([6,40] convert(x)
  yn = )",
                      type, R"([40,5] convert(y)
  ROOT d = f32[6,5] dot(xn, yn), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
}

std::vector<Literal> Inputs() {
  std::vector<Literal> inputs;
  inputs.push_back(MakeUniformInput(Shape::Array(F32, {6, 40}), 3));
  inputs.push_back(MakeUniformInput(Shape::Array(F32, {40, 5}), 4));
  return inputs;
}

Literal Evaluate(const HloModule& module) {
  absl::StatusOr<Literal> result = EvaluateModule(module, Inputs());
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? std::move(*result) : Literal();
}

TEST(DotAlgorithmOperandsTest, RoundsTheOperandsTheAlgorithmReads) {
  for (const auto& [algorithm, type] :
       std::vector<std::pair<std::string, std::string>>{
           {"dot_bf16_bf16_f32", "bf16"}, {"dot_f16_f16_f32", "f16"}}) {
    SCOPED_TRACE(algorithm);
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseAndVerify(DotModule(algorithm));
    ASSERT_TRUE(module.ok()) << module.status();
    const Literal f32 = Evaluate(**module);
    DotAlgorithmOperands pass;
    absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_TRUE(*changed);
    const HloInstruction* dot =
        (*module)->entry_computation()->root_instruction();
    ASSERT_EQ(dot->opcode(), HloOpcode::kDot);
    EXPECT_EQ(
        dot->attrs().precision_config.value_or(PrecisionConfig{}).algorithm, 0);
    const Literal rounded = Evaluate(**module);

    absl::StatusOr<std::unique_ptr<HloModule>> explicit_module =
        ParseAndVerify(ConvertedDotModule(type));
    ASSERT_TRUE(explicit_module.ok()) << explicit_module.status();
    const Literal expected = Evaluate(**explicit_module);
    EXPECT_EQ(rounded, expected) << ModuleText(**module);
    EXPECT_NE(rounded, f32) << "the inputs were meant not to be " << type;
  }
}

TEST(DotAlgorithmOperandsTest, KeepsOtherAlgorithms) {
  for (const std::string algorithm :
       {"", "dot_f32_f32_f32", "dot_tf32_tf32_f32", "dot_bf16_bf16_f32_x3",
        "dot_bf16_bf16_f32_x6", "dot_bf16_bf16_f32_x9",
        "dot_tf32_tf32_f32_x3"}) {
    SCOPED_TRACE(algorithm);
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseAndVerify(DotModule(algorithm));
    ASSERT_TRUE(module.ok()) << module.status();
    DotAlgorithmOperands pass;
    absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_FALSE(*changed);
  }
}

TEST(DotAlgorithmOperandsTest, Tf32AlgorithmAllowsTf32) {
  PrecisionConfig precision;
  precision.operand_precision = {Precision::kDefault, Precision::kDefault};
  precision.algorithm = PrecisionConfig::kDotTf32Tf32F32;
  EXPECT_TRUE(AllowsTf32(F32, precision));
  precision.algorithm = 11;  // dot_f32_f32_f32
  EXPECT_FALSE(AllowsTf32(F32, precision));
  precision.algorithm = 0;
  EXPECT_TRUE(AllowsTf32(F32, precision));
  precision.operand_precision = {Precision::kHighest, Precision::kHighest};
  EXPECT_FALSE(AllowsTf32(F32, precision));
}

}  // namespace
}  // namespace hloc

// cudnn-convolution-calls: XLA:GPU's plain forward cuDNN calls become the
// convolution they compute (the evaluator, which has no cuDNN, then gives
// the same result as the written convolution); calls that fuse more stay.
#include "passes/cudnn_convolution_calls.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

constexpr char kCall[] = R"(
HloModule call

ENTRY main {
  x = f32[2,9,9,3] parameter(0)
  w = f32[8,3,3,3] parameter(1)
  c = (f32[2,4,4,8], u8[16]) custom-call(x, w), window={size=3x3 stride=2x2}, dim_labels=b01f_o01i->b01f, custom_call_target="__cudnn$convForward", backend_config={CONFIG}
  ROOT r = f32[2,4,4,8] get-tuple-element(c), index=0
}
)";

constexpr char kConvolution[] = R"(
HloModule convolution

ENTRY main {
  x = f32[2,9,9,3] parameter(0)
  w = f32[8,3,3,3] parameter(1)
  ROOT r = f32[2,4,4,8] convolution(x, w), window={size=3x3 stride=2x2}, dim_labels=b01f_o01i->b01f
}
)";

std::string CallWith(const std::string& config) {
  std::string text = kCall;
  text.replace(text.find("{CONFIG}"), 8, config);
  return text;
}

TEST(CudnnConvolutionCallsTest, PlainForwardBecomesTheConvolution) {
  auto module = ParseAndVerify(CallWith(
      R"({"cudnn_conv_backend_config":{"activation_mode":"kNone","conv_result_scale":1,"side_input_scale":0}})"));
  ASSERT_TRUE(module.ok()) << module.status();
  CudnnConvolutionCalls pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kCustomCall), 0);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kConvolution), 1);

  auto reference = ParseAndVerify(kConvolution);
  ASSERT_TRUE(reference.ok()) << reference.status();
  const HloComputation* entry = (*reference)->entry_computation();
  std::vector<Literal> inputs;
  inputs.push_back(
      MakeUniformInput(entry->parameter_instruction(0)->shape(), 3));
  inputs.push_back(
      MakeUniformInput(entry->parameter_instruction(1)->shape(), 4));
  absl::StatusOr<Literal> expected = EvaluateModule(**reference, inputs);
  absl::StatusOr<Literal> got = EvaluateModule(**module, inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(CompareLiterals(*got, *expected, Tolerance{0, 0}).ok());
}

TEST(CudnnConvolutionCallsTest, FusedActivationOrScaleStays) {
  for (const std::string config :
       {R"({"cudnn_conv_backend_config":{"activation_mode":"kRelu","conv_result_scale":1}})",
        R"({"cudnn_conv_backend_config":{"activation_mode":"kNone","conv_result_scale":0.5}})"}) {
    SCOPED_TRACE(config);
    auto module = ParseAndVerify(CallWith(config));
    ASSERT_TRUE(module.ok()) << module.status();
    CudnnConvolutionCalls pass;
    absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_FALSE(*changed);
    EXPECT_EQ(CountOpcode(**module, HloOpcode::kCustomCall), 1);
  }
}

// A call whose window is not its kernel's size (found by
// fuzz/cpu_pipeline_fuzzer, which mutated JAX's 3x3 into 6x3) is an error
// naming the call, not an invalid convolution after the pass; so is one
// whose declared result is not the convolution's.
TEST(CudnnConvolutionCallsTest, CallsThatAreNoValidConvolutionAreErrors) {
  const std::string plain =
      R"({"cudnn_conv_backend_config":{"activation_mode":"kNone","conv_result_scale":1}})";
  struct Case {
    std::string from, to, message;
  };
  for (const Case& c : std::vector<Case>{
           {"size=3x3 stride=2x2", "size=6x3 stride=2x2",
            "window size 6 in spatial dimension 0 differs from the kernel "
            "size 3"},
           {"(f32[2,4,4,8], u8[16])", "(f32[2,5,4,8], u8[16])",
            "is not the convolution's f32[2,4,4,8]"}}) {
    SCOPED_TRACE(c.to);
    std::string text = CallWith(plain);
    text.replace(text.find(c.from), c.from.size(), c.to);
    if (c.to[0] == '(') {
      const std::string root = "ROOT r = f32[2,4,4,8]";
      text.replace(text.find(root), root.size(), "ROOT r = f32[2,5,4,8]");
    }
    auto module = ParseAndVerify(text);
    ASSERT_TRUE(module.ok()) << module.status();
    CudnnConvolutionCalls pass;
    absl::StatusOr<bool> changed = pass.Run(module->get());
    ASSERT_FALSE(changed.ok());
    EXPECT_TRUE(absl::IsInvalidArgument(changed.status()));
    const std::string message(changed.status().message());
    EXPECT_NE(message.find("custom-call c (__cudnn$convForward)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(c.message), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace hloc

// convolution-to-gemm keeps results: the reference evaluator gives the same
// outputs (within f32 summation-order rounding) before and after the pass,
// on random inputs for convolutions of every kind the pass rewrites and on
// the corpus modules with a convolution (their recorded inputs). The size
// threshold is off here (min_flops 0) so that small, fast cases exercise
// the rewrite; the lit test checks the thresholded pass.
#include "passes/convolution_to_gemm.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"
#include "passes/testing/convolution_cases.h"
#include "runtime/compare.h"
#include "runtime/npy.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

ConvolutionToGemmOptions NoSizeThreshold() {
  ConvolutionToGemmOptions options = DefaultConvolutionToGemmOptions();
  options.min_flops = 0;
  return options;
}

// The tolerance for a conv's output: f32 sums of up to a few hundred
// products of numbers in [-1, 1] reordered (the gemm sums over kernel
// positions and channels in another order than the direct loop).
// Relative 1e-4, and absolute 1e-5 of the largest output, for outputs
// whose terms cancel to near zero.
Tolerance ConvTolerance(const Literal& expected, PrimitiveType type) {
  const double largest = std::max(1.0, MaxFiniteMagnitude(expected));
  if (type == F32) return Tolerance{1e-4, 1e-5 * largest};
  // bf16 / f16 results round the (identical) f32 sums to 8 or 11 bits:
  // the two orders may land one ulp apart.
  return DefaultTolerance(type, /*accumulating=*/true);
}

// Runs the pass on `module`, expecting it to replace every convolution by
// a dot, and compares the evaluator's outputs before and after.
void ExpectRewrittenWithSameResults(HloModule* module,
                                    const std::vector<Literal>& inputs) {
  absl::StatusOr<Literal> before = EvaluateModule(*module, inputs);
  ASSERT_TRUE(before.ok()) << before.status();
  const int64_t convs = CountOpcode(*module, HloOpcode::kConvolution);
  ASSERT_GT(convs, 0);

  ConvolutionToGemm pass(NoSizeThreshold());
  absl::StatusOr<bool> changed = RunAndVerify(pass, module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  ASSERT_TRUE(*changed) << ModuleText(*module);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kConvolution), 0)
      << ModuleText(*module);
  EXPECT_EQ(CountOpcode(*module, HloOpcode::kDot), convs)
      << ModuleText(*module);

  absl::StatusOr<Literal> after = EvaluateModule(*module, inputs);
  ASSERT_TRUE(after.ok()) << after.status() << "\n" << ModuleText(*module);
  const Shape& out = module->entry_computation()->root_instruction()->shape();
  ComparisonResult result = CompareLiterals(
      *after, *before, ConvTolerance(*before, out.element_type()));
  EXPECT_TRUE(result.ok()) << result.mismatch_count << " of "
                           << result.element_count
                           << " elements differ, max abs error "
                           << result.max_abs_error << "; first: "
                           << (result.first_mismatches.empty()
                                   ? result.shape_message
                                   : result.first_mismatches[0].ToString())
                           << "\n"
                           << ModuleText(*module);
}

using Case = ConvolutionCase;

class ConvolutionToGemmTest : public testing::TestWithParam<Case> {};

TEST_P(ConvolutionToGemmTest, SameResultsAsTheConvolution) {
  const Case& c = GetParam();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(ConvolutionModule(c));
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << ConvolutionModule(c);
  ExpectRewrittenWithSameResults(module->get(), ConvolutionInputs(**module));
}

INSTANTIATE_TEST_SUITE_P(
    Convolutions, ConvolutionToGemmTest,
    testing::Values(
        Case{"nhwc_3x3_same", "2,6,6,4", "3,3,4,5", "f32", "f32[2,6,6,5]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
        Case{"nchw_oihw", "2,4,6,7", "5,4,3,3", "f32", "f32[2,5,6,7]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"},
        Case{"stride_2", "2,7,8,3", "3,3,3,4", "f32", "f32[2,4,4,4]",
             "window={size=3x3 stride=2x2 pad=1_1x0_1}, "
             "dim_labels=b01f_01io->b01f"},
        Case{"rhs_dilation_2", "1,9,9,3", "3,3,3,2", "f32", "f32[1,9,9,2]",
             "window={size=3x3 pad=2_2x2_2 rhs_dilate=2x2}, "
             "dim_labels=b01f_01io->b01f"},
        Case{"kernel_1x1", "2,5,5,4", "1,1,4,6", "f32", "f32[2,5,5,6]",
             "window={size=1x1}, dim_labels=b01f_01io->b01f"},
        Case{"kernel_1x1_stride_2", "2,5,5,4", "1,1,4,6", "f32", "f32[2,3,3,6]",
             "window={size=1x1 stride=2x2}, dim_labels=b01f_01io->b01f"},
        Case{"conv_1d", "2,10,3", "3,3,4", "f32", "f32[2,10,4]",
             "window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f"},
        Case{"negative_padding", "1,8,8,2", "3,3,2,3", "f32", "f32[1,6,5,3]",
             "window={size=3x3 pad=-1_1x1_-2}, dim_labels=b01f_01io->b01f"},
        Case{"conv_3d", "1,5,4,6,2", "2,3,2,2,3", "f32", "f32[1,5,2,5,3]",
             "window={size=2x3x2 stride=1x2x1 pad=0_1x1_1x0_0}, "
             "dim_labels=b012f_012io->b012f"},
        Case{"non_square_batch_1", "1,6,9,3", "1,5,3,4", "f32", "f32[1,6,9,4]",
             "window={size=1x5 pad=0_0x2_2}, dim_labels=b01f_01io->b01f"},
        Case{"unusual_dimension_numbers", "3,5,7,4", "3,3,3,6", "f32",
             "f32[5,3,4,6]",
             "window={size=3x3 pad=1_1x0_1 stride=1x2}, "
             "dim_labels=f01b_i01o->01bf"},
        Case{"bf16", "2,6,6,4", "3,3,4,5", "bf16", "bf16[2,6,6,5]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
        Case{"bf16_to_f32", "2,6,6,4", "3,3,4,5", "bf16", "f32[2,6,6,5]",
             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
        Case{"f16", "1,5,5,3", "2,2,3,2", "f16", "f16[1,4,4,2]",
             "window={size=2x2}, dim_labels=b01f_01io->b01f"},
        // Fewer output positions than kernel positions: the im2col matrix
        // gathered by output position. A weight gradient as JAX writes it
        // (the activations' batch as the contracted feature, the window
        // the size of the input, the output the kernel's 3x3).
        Case{"weight_gradient", "3,10,10,4", "8,8,4,5", "f32", "f32[3,3,3,5]",
             "window={size=8x8}, dim_labels=b01f_01io->b01f"},
        // A strided conv's weight gradient: rhs dilation 2, padding.
        Case{"weight_gradient_dilated", "2,8,8,3", "4,4,3,2", "f32",
             "f32[2,3,3,2]",
             "window={size=4x4 pad=1_0x0_1 rhs_dilate=2x2}, "
             "dim_labels=b01f_01io->b01f"},
        // Window strides, negative padding, channels first.
        Case{"few_outputs_strided", "2,3,9,8", "4,3,5,5", "f32", "f32[2,4,4,2]",
             "window={size=5x5 stride=2x1 pad=1_1x-1_-1}, "
             "dim_labels=bf01_oi01->bf01"},
        Case{"few_outputs_1d", "2,20,3", "16,3,4", "f32", "f32[2,5,4]",
             "window={size=16}, dim_labels=b0f_0io->b0f"},
        // One output position: the whole input is its window.
        Case{"one_output_position", "2,4,4,3", "4,4,3,5", "f32", "f32[2,1,1,5]",
             "window={size=4x4}, dim_labels=b01f_01io->b01f"},
        Case{"weight_gradient_bf16", "3,10,10,4", "8,8,4,5", "bf16",
             "bf16[3,3,3,5]", "window={size=8x8}, dim_labels=b01f_01io->b01f"},
        // Base (lhs) dilation, as interior zeros of the padded input: a
        // transposed convolution forward (stride-2 upsampling, "SAME"),
        // one with negative padding, and the weight gradient of a
        // transposed convolution as JAX writes it (the activation dilated
        // as the input, the output gradient as the window).
        Case{"lhs_dilated", "2,5,5,3", "3,3,3,4", "f32", "f32[2,10,10,4]",
             "window={size=3x3 pad=2_1x2_1 lhs_dilate=2x2}, "
             "dim_labels=b01f_01io->b01f"},
        Case{"lhs_dilated_negative_padding", "1,6,7,2", "3,2,2,3", "f32",
             "f32[1,15,10,3]",
             "window={size=3x2 pad=3_-2x-1_-1 lhs_dilate=3x2 stride=1x1}, "
             "dim_labels=b01f_01io->b01f"},
        Case{"transposed_conv_weight_gradient", "2,6,6,5", "2,12,12,4", "f32",
             "f32[3,3,5,4]",
             "window={size=12x12 pad=2_1x2_1 lhs_dilate=2x2}, "
             "dim_labels=f01b_i01o->01bf"}),
    [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

// What the pass must leave alone: convolutions it does not lower.
TEST(ConvolutionToGemmTest, LeavesUnsupportedConvolutions) {
  const char* kText = R"(
HloModule unsupported

ENTRY main {
  x = f32[2,8,8,4] parameter(0)
  w = f32[3,3,2,4] parameter(1)
  w1 = f32[3,3,4,4] parameter(2)
  grouped = f32[2,8,8,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2
  batch_grouped = f32[1,8,8,4] convolution(x, w1), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, batch_group_count=2
  reversed = f32[2,8,8,4] convolution(x, w1), window={size=3x3 pad=1_1x1_1 rhs_reversal=1x1}, dim_labels=b01f_01io->b01f
  ROOT t = (f32[2,8,8,4], f32[1,8,8,4], f32[2,8,8,4]) tuple(grouped, batch_grouped, reversed)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(kText);
  ASSERT_TRUE(module.ok()) << module.status();
  ConvolutionToGemm pass(NoSizeThreshold());
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed) << ModuleText(**module);
  EXPECT_EQ(pass.statistics().at("convolutions-kept-unsupported"), 3);
}

// With the default options a tiny conv (2 * 2*6*6 * 5 * 36 = 26 KFLOP)
// stays a direct kernel, and so does one whose im2col matrix exceeds the
// byte bound (here set to 1 KiB).
TEST(ConvolutionToGemmTest, SizeThresholds) {
  Case tiny{"tiny",
            "2,6,6,4",
            "3,3,4,5",
            "f32",
            "f32[2,6,6,5]",
            "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"};
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(ConvolutionModule(tiny));
  ASSERT_TRUE(module.ok()) << module.status();
  ConvolutionToGemm with_defaults;
  absl::StatusOr<bool> changed = RunAndVerify(with_defaults, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(with_defaults.statistics().at("convolutions-kept-too-small"), 1);

  ConvolutionToGemmOptions small_buffer = NoSizeThreshold();
  small_buffer.max_im2col_bytes = 1024;
  ConvolutionToGemm bounded(small_buffer);
  changed = RunAndVerify(bounded, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(bounded.statistics().at("convolutions-kept-im2col-too-large"), 1);
}

// The cuda pipeline's options rewrite only weight-gradient shapes (fewer
// output positions than kernel positions, at most 64), whatever their
// size, except large ones cuDNN's backward-filter convolution computes
// (an im2col matrix over 16 MiB). A forward 3x3 conv stays for cuDNN; so
// do a 71x71-window gradient with 100 output positions, and a 54x54-window
// one whose im2col matrix would be 27 MB. One whose stride (the forward
// convolution's dilation) skips the last row, so that its window is no
// forward output cuDNN describes, is a gemm.
TEST(ConvolutionToGemmTest, CudaRewritesOnlyWeightGradients) {
  const char* kText = R"(
HloModule cuda_convs

ENTRY main {
  x = f32[2,12,12,4] parameter(0)
  w = f32[3,3,4,5] parameter(1)
  g = f32[10,10,4,5] parameter(2)
  x2 = f32[2,80,80,4] parameter(3)
  g2 = f32[71,71,4,5] parameter(4)
  x3 = f32[2,13,13,4] parameter(5)
  x4 = f32[16,56,56,16] parameter(6)
  g4 = f32[54,54,16,8] parameter(7)
  forward = f32[2,12,12,5] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  gradient = f32[2,3,3,5] convolution(x, g), window={size=10x10}, dim_labels=b01f_01io->b01f
  many = f32[2,10,10,5] convolution(x2, g2), window={size=71x71}, dim_labels=b01f_01io->b01f
  skipping = f32[2,2,2,5] convolution(x3, g), window={size=10x10 stride=2x2}, dim_labels=b01f_01io->b01f
  large = f32[16,3,3,8] convolution(x4, g4), window={size=54x54}, dim_labels=b01f_01io->b01f
  ROOT t = (f32[2,12,12,5], f32[2,3,3,5], f32[2,10,10,5], f32[2,2,2,5], f32[16,3,3,8]) tuple(forward, gradient, many, skipping, large)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(kText);
  ASSERT_TRUE(module.ok()) << module.status();
  ConvolutionToGemm pass(CudaConvolutionToGemmOptions());
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(pass.statistics().at("convolutions-rewritten"), 2);
  EXPECT_EQ(pass.statistics().at("convolutions-kept-many-output-positions"), 2);
  EXPECT_EQ(pass.statistics().at("convolutions-kept-for-cudnn-filter-gradient"),
            1);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kConvolution), 3);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kDot), 2);
  // Nine windows of the input for gradient, four for skipping.
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kSlice), 13);
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

bool FileExists(const std::string& path) { return std::ifstream(path).good(); }

// Every corpus module with a convolution, on its recorded inputs.
TEST(ConvolutionToGemmCorpusTest, SameResultsOnCorpusConvolutions) {
  if (CorpusDir().empty()) GTEST_SKIP() << "shared/corpus/jax not found";
  int convolution_modules = 0;
  for (const std::string& name : CorpusCases()) {
    const std::string dir = absl::StrCat(CorpusDir(), "/", name);
    const std::string text = ReadFile(dir + "/module.hlo");
    if (text.find(" convolution(") == std::string::npos) continue;
    SCOPED_TRACE(name);
    ++convolution_modules;
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
    ExpectRewrittenWithSameResults(module->get(), inputs);
  }
  EXPECT_GT(convolution_modules, 0) << "no corpus module has a convolution";
}

}  // namespace
}  // namespace hloc

// convolution-layout keeps results exactly (it only moves data: transposes
// and a pad, the convolution summing the same products in the same order)
// and leaves every convolution in a form the cuDNN lowering accepts:
// channels-last or channels-first numbers with symmetric padding.
#include "passes/convolution_layout.h"

#include <ostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"
#include "passes/testing/convolution_cases.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

struct Case {
  ConvolutionCase conv;
  // The layout the convolution ends in, and whether the pass changes it.
  ConvLayout layout;
  bool changed;
};

void PrintTo(const Case& c, std::ostream* os) { PrintTo(c.conv, os); }

const HloInstruction* TheConvolution(const HloModule& module) {
  for (const HloInstruction* instr :
       module.entry_computation()->instructions()) {
    if (instr->opcode() == HloOpcode::kConvolution) return instr;
  }
  return nullptr;
}

class ConvolutionLayoutTest : public testing::TestWithParam<Case> {};

TEST_P(ConvolutionLayoutTest, LibraryFormWithTheSameResults) {
  const Case& c = GetParam();
  const std::string text = ConvolutionModule(c.conv);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
  const std::vector<Literal> inputs = ConvolutionInputs(**module);
  absl::StatusOr<Literal> before = EvaluateModule(**module, inputs);
  ASSERT_TRUE(before.ok()) << before.status();

  ConvolutionLayout pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(*changed, c.changed) << ModuleText(**module);
  const HloInstruction* conv = TheConvolution(**module);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(GetConvLayout(*conv), c.layout) << ModuleText(**module);
  for (const WindowDimension& wd : conv->attrs().window->dimensions) {
    EXPECT_EQ(wd.padding_low, wd.padding_high) << ModuleText(**module);
    EXPECT_GE(wd.padding_low, 0) << ModuleText(**module);
  }
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kConvolution), 1);

  absl::StatusOr<Literal> after = EvaluateModule(**module, inputs);
  ASSERT_TRUE(after.ok()) << after.status() << "\n" << ModuleText(**module);
  ComparisonResult result = CompareLiterals(*after, *before, Tolerance{0, 0});
  EXPECT_TRUE(result.ok()) << result.mismatch_count << " of "
                           << result.element_count << " elements differ\n"
                           << ModuleText(**module);
}

constexpr ConvLayout kLast = ConvLayout::kChannelsLast;
constexpr ConvLayout kFirst = ConvLayout::kChannelsFirst;
constexpr ConvLayout kFilterGradient = ConvLayout::kFilterGradient;
constexpr ConvLayout kFilterGradientFirst =
    ConvLayout::kFilterGradientChannelsFirst;

INSTANTIATE_TEST_SUITE_P(
    Convolutions, ConvolutionLayoutTest,
    testing::Values(
        // JAX's default NHWC / HWIO: the kernel becomes [K, H, W, C].
        Case{{"nhwc_hwio", "2,6,6,4", "3,3,4,5", "f32", "f32[2,6,6,5]",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
             kLast,
             true},
        // Already what cuDNN reads: left alone.
        Case{{"nhwc_ohwi", "2,6,6,4", "5,3,3,4", "f32", "f32[2,6,6,5]",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_o01i->b01f"},
             kLast,
             false},
        Case{{"nchw_oihw", "2,4,6,7", "5,4,3,3", "f32", "f32[2,5,6,7]",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"},
             kFirst,
             false},
        // A channels-first input keeps its order; the kernel follows it.
        Case{{"nchw_hwio", "2,4,6,7", "3,3,4,5", "f32", "f32[2,5,6,7]",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_01io->bf01"},
             kFirst,
             true},
        // "SAME" with stride 2: 0 before, 1 after, padded explicitly.
        Case{{"asymmetric_same_stride_2", "2,8,8,3", "5,3,3,3", "f32",
              "f32[2,4,4,5]",
              "window={size=3x3 stride=2x2 pad=0_1x0_1}, "
              "dim_labels=b01f_o01i->b01f"},
             kLast,
             true},
        Case{{"negative_padding", "1,8,8,2", "3,3,2,3", "f32", "f32[1,6,5,3]",
              "window={size=3x3 pad=-1_1x1_-2}, dim_labels=b01f_01io->b01f"},
             kLast,
             true},
        Case{{"rhs_dilation", "1,9,9,3", "3,3,3,2", "f32", "f32[1,9,9,2]",
              "window={size=3x3 pad=2_2x2_2 rhs_dilate=2x2}, "
              "dim_labels=b01f_01io->b01f"},
             kLast,
             true},
        // Depthwise f32 convolutions with several output channels a group
        // go channels first (cuDNN's fast order for them); groups of
        // several channels, 16-bit ones and depthwise ones of one output
        // channel a group (the GPU's own depthwise kernel's order) go
        // channels last, from channels first too.
        Case{{"grouped", "2,6,6,4", "3,3,2,6", "f32", "f32[2,6,6,6]",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
              "feature_group_count=2"},
             kLast,
             true},
        Case{{"depthwise_multiplier", "2,6,6,4", "3,3,1,8", "f32",
              "f32[2,6,6,8]",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
              "feature_group_count=4"},
             kFirst,
             true},
        Case{{"depthwise", "2,6,6,4", "3,3,1,4", "f32", "f32[2,6,6,4]",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
              "feature_group_count=4"},
             kLast,
             true},
        Case{{"depthwise_asymmetric", "2,7,7,4", "2,2,1,4", "f32",
              "f32[2,7,7,4]",
              "window={size=2x2 pad=0_1x1_0}, dim_labels=b01f_01io->b01f, "
              "feature_group_count=4"},
             kLast,
             true},
        Case{{"depthwise_nchw_in_order", "2,4,6,6", "4,1,3,3", "f32",
              "f32[2,4,6,6]",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, "
              "feature_group_count=4"},
             kLast,
             true},
        Case{{"depthwise_bf16", "2,6,6,4", "3,3,1,4", "bf16", "bf16[2,6,6,4]",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
              "feature_group_count=4"},
             kLast,
             true},
        // 16-bit convolutions go channels last even from channels first,
        // the order XLA:GPU gives its 16-bit cuDNN calls.
        Case{{"depthwise_nchw_bf16", "2,4,6,6", "4,1,3,3", "bf16",
              "bf16[2,4,6,6]",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, "
              "feature_group_count=4"},
             kLast,
             true},
        Case{{"nchw_f16", "2,4,6,6", "5,4,3,3", "f16", "f16[2,5,6,6]",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"},
             kLast,
             true},
        Case{{"conv_1d", "2,10,3", "3,3,4", "f32", "f32[2,10,4]",
              "window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f"},
             kLast,
             true},
        Case{{"conv_3d", "1,5,4,6,2", "2,3,2,2,3", "f32", "f32[1,5,2,5,3]",
              "window={size=2x3x2 stride=1x2x1 pad=0_1x1_1x0_0}, "
              "dim_labels=b012f_012io->b012f"},
             kLast,
             true},
        // A gradient's orders: every tensor transposed.
        Case{{"unusual_dimension_numbers", "3,5,7,4", "3,3,3,6", "f32",
              "f32[5,3,4,6]",
              "window={size=3x3 pad=1_1x0_1 stride=1x2}, "
              "dim_labels=f01b_i01o->01bf"},
             kLast,
             true},
        Case{{"bf16", "2,6,6,4", "3,3,4,5", "bf16", "bf16[2,6,6,5]",
              "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
             kLast,
             true},
        Case{{"f16", "1,5,5,3", "2,2,3,2", "f16", "f16[1,4,4,2]",
              "window={size=2x2}, dim_labels=b01f_01io->b01f"},
             kLast,
             true},
        Case{{"f64", "1,5,5,3", "2,2,3,2", "f64", "f64[1,4,4,2]",
              "window={size=2x2}, dim_labels=b01f_01io->b01f"},
             kLast,
             true},
        // Filter gradients as JAX writes them (batch groups): a depthwise
        // 3x3 convolution's on 2x6x6x4, whose input and output gradient
        // become [2,4,6,6] and whose [3,3,1,4] result is transposed from
        // [4,1,3,3]; a 2-group stride-2 "SAME" one's (channels last: two
        // channels a group), whose padding of 0 before and 1 after is made
        // explicit, and a depthwise one's with that stride; in bf16,
        // channels last, the input and output gradient as they are.
        Case{{"depthwise_filter_gradient", "2,6,6,4", "2,6,6,4", "f32",
              "f32[3,3,1,4]",
              "window={size=6x6 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, "
              "batch_group_count=4"},
             kFilterGradientFirst,
             true},
        Case{{"grouped_strided_filter_gradient", "2,8,8,4", "2,4,4,6", "f32",
              "f32[3,3,2,6]",
              "window={size=4x4 pad=0_1x0_1 rhs_dilate=2x2}, "
              "dim_labels=f01b_i01o->01bf, batch_group_count=2"},
             kFilterGradient,
             true},
        Case{{"depthwise_strided_filter_gradient", "2,8,8,4", "2,4,4,4", "f32",
              "f32[3,3,1,4]",
              "window={size=4x4 pad=0_1x0_1 rhs_dilate=2x2}, "
              "dim_labels=f01b_i01o->01bf, batch_group_count=4"},
             kFilterGradientFirst,
             true},
        Case{{"bf16_filter_gradient", "2,8,8,4", "2,4,4,6", "bf16",
              "bf16[3,3,2,6]",
              "window={size=4x4 pad=0_1x0_1 rhs_dilate=2x2}, "
              "dim_labels=f01b_i01o->01bf, batch_group_count=2"},
             kFilterGradient,
             true},
        // A dense convolution's filter gradient as JAX writes it (no batch
        // groups; NCHW activations, labels fb01_io01->01bf): channels last
        // in bf16, channels first in f32 (the input's order); and a
        // stride-2 one's (the window dilated by 2, padding 0 before and 1
        // after).
        Case{{"dense_filter_gradient_bf16", "2,4,6,6", "2,5,6,6", "bf16",
              "bf16[3,3,4,5]",
              "window={size=6x6 pad=1_1x1_1}, dim_labels=fb01_io01->01bf"},
             kFilterGradient,
             true},
        Case{{"dense_filter_gradient_f32", "2,4,6,6", "2,5,6,6", "f32",
              "f32[3,3,4,5]",
              "window={size=6x6 pad=1_1x1_1}, dim_labels=fb01_io01->01bf"},
             kFilterGradientFirst,
             true},
        Case{{"dense_strided_filter_gradient", "2,8,8,4", "2,4,4,6", "f32",
              "f32[3,3,4,6]",
              "window={size=4x4 pad=0_1x0_1 rhs_dilate=2x2}, "
              "dim_labels=f01b_i01o->01bf"},
             kFilterGradient,
             true},
        // Not a filter gradient: the result as large as the window.
        Case{{"dense_result_as_large_as_window", "2,6,6,4", "2,3,3,5", "f32",
              "f32[4,4,4,5]",
              "window={size=3x3 pad=0_0x0_0}, dim_labels=f01b_i01o->01bf"},
             kLast,
             true},
        // Already in an order: left alone.
        Case{{"filter_gradient_in_order", "2,6,6,4", "2,6,6,4", "bf16",
              "bf16[4,3,3,1]",
              "window={size=6x6 pad=1_1x1_1}, dim_labels=f01b_i01o->f01b, "
              "batch_group_count=4"},
             kFilterGradient,
             false},
        Case{{"filter_gradient_channels_first_in_order", "2,4,6,6", "2,4,6,6",
              "f32", "f32[4,1,3,3]",
              "window={size=6x6 pad=1_1x1_1}, dim_labels=fb01_io01->fb01, "
              "batch_group_count=4"},
             kFilterGradientFirst,
             false},
        // ... but not a 16-bit one: channels last.
        Case{{"bf16_filter_gradient_channels_first", "2,4,6,6", "2,4,6,6",
              "bf16", "bf16[4,1,3,3]",
              "window={size=6x6 pad=1_1x1_1}, dim_labels=fb01_io01->fb01, "
              "batch_group_count=4"},
             kFilterGradient,
             true}),
    [](const testing::TestParamInfo<Case>& info) {
      return info.param.conv.name;
    });

// Convolutions cuDNN cannot compute stay as they are, each counted.
TEST(ConvolutionLayoutTest, LeavesWhatNoLibraryComputes) {
  const char* kText = R"(
HloModule unsupported

ENTRY main {
  x = f32[2,8,8,4] parameter(0)
  w = f32[3,3,4,4] parameter(1)
  xi = s32[2,8,8,4] parameter(2)
  wi = s32[3,3,4,4] parameter(3)
  lhs_dilated = f32[2,15,15,4] convolution(x, w), window={size=3x3 pad=1_1x1_1 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f
  reversed = f32[2,8,8,4] convolution(x, w), window={size=3x3 pad=1_1x1_1 rhs_reversal=1x1}, dim_labels=b01f_01io->b01f
  integer = s32[2,8,8,4] convolution(xi, wi), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT t = (f32[2,15,15,4], f32[2,8,8,4], s32[2,8,8,4]) tuple(lhs_dilated, reversed, integer)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(kText);
  ASSERT_TRUE(module.ok()) << module.status();
  ConvolutionLayout pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed) << ModuleText(**module);
  const std::map<std::string, int64_t>& stats = pass.statistics();
  EXPECT_EQ(stats.at("convolutions-kept-base-dilation"), 1);
  EXPECT_EQ(stats.at("convolutions-kept-window-reversal"), 1);
  EXPECT_EQ(stats.at("convolutions-kept-element-type"), 1);
}

}  // namespace
}  // namespace hloc

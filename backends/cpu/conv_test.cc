// Convolution kernels (implicit GEMM) against the evaluator: layouts (NCHW,
// NHWC, odd dimension orders), strides, padding (also negative), lhs and
// rhs dilation, window reversal, feature groups (grouped and depthwise),
// batch groups, 1-D and 3-D, element types. None may fall back.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"

namespace hloc {
namespace {

using testing_util::CheckAgainstEvaluator;

struct Conv2D {
  std::string type = "f32";
  std::string out_type = "";
  int64_t batch = 2, in_features = 3, out_features = 4;
  int64_t h = 9, w = 7, kh = 3, kw = 2;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_lo_h = 0, pad_hi_h = 0, pad_lo_w = 0, pad_hi_w = 0;
  int64_t lhs_dil = 1, rhs_dil = 1;
  bool reverse_h = false;
  int64_t feature_groups = 1, batch_groups = 1;
  bool nhwc = false;
};

int64_t OutSize(int64_t in, int64_t k, int64_t stride, int64_t lo, int64_t hi,
                int64_t lhs_dil, int64_t rhs_dil) {
  const int64_t in_d = (in - 1) * lhs_dil + 1;
  const int64_t k_d = (k - 1) * rhs_dil + 1;
  return (in_d + lo + hi - k_d) / stride + 1;
}

std::string Shape4(const std::string& type, std::vector<int64_t> dims) {
  return absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]");
}

std::string Module(const Conv2D& c) {
  const int64_t oh = OutSize(c.h, c.kh, c.stride_h, c.pad_lo_h, c.pad_hi_h,
                             c.lhs_dil, c.rhs_dil);
  const int64_t ow = OutSize(c.w, c.kw, c.stride_w, c.pad_lo_w, c.pad_hi_w,
                             c.lhs_dil, c.rhs_dil);
  const int64_t in_batch = c.batch * c.batch_groups;
  const int64_t group_in = c.in_features / c.feature_groups;
  const std::string out_type = c.out_type.empty() ? c.type : c.out_type;
  std::string x, w, y, labels;
  if (c.nhwc) {
    x = Shape4(c.type, {in_batch, c.h, c.w, c.in_features});
    w = Shape4(c.type, {c.kh, c.kw, group_in, c.out_features});
    y = Shape4(out_type, {c.batch, oh, ow, c.out_features});
    labels = "b01f_01io->b01f";
  } else {
    x = Shape4(c.type, {in_batch, c.in_features, c.h, c.w});
    w = Shape4(c.type, {c.out_features, group_in, c.kh, c.kw});
    y = Shape4(out_type, {c.batch, c.out_features, oh, ow});
    labels = "bf01_oi01->bf01";
  }
  std::string window = absl::StrCat(
      "size=", c.kh, "x", c.kw, " stride=", c.stride_h, "x", c.stride_w,
      " pad=", c.pad_lo_h, "_", c.pad_hi_h, "x", c.pad_lo_w, "_", c.pad_hi_w,
      " lhs_dilate=", c.lhs_dil, "x", c.lhs_dil, " rhs_dilate=", c.rhs_dil, "x",
      c.rhs_dil, " rhs_reversal=", c.reverse_h ? 1 : 0, "x0");
  return absl::StrCat(
      "HloModule conv\nENTRY main {\n  x = ", x, " parameter(0)\n  w = ", w,
      " parameter(1)\n  ROOT y = ", y, " convolution(x, w), window={", window,
      "}, dim_labels=", labels, ", feature_group_count=", c.feature_groups,
      ", batch_group_count=", c.batch_groups, "\n}\n");
}

void Check(const Conv2D& c) {
  const std::string text = Module(c);
  SCOPED_TRACE(text);
  EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
}

TEST(ConvTest, Plain) {
  Check({});
  Conv2D c;
  c.nhwc = true;
  Check(c);
}

TEST(ConvTest, CorpusShape) {
  // conv_stride2: f32[2,3,16,16] x f32[8,3,3,3], stride 2, pad 0_1.
  Conv2D c;
  c.in_features = 3;
  c.out_features = 8;
  c.h = c.w = 16;
  c.kh = c.kw = 3;
  c.stride_h = c.stride_w = 2;
  c.pad_hi_h = c.pad_hi_w = 1;
  Check(c);
}

TEST(ConvTest, StridesAndPadding) {
  for (bool nhwc : {false, true}) {
    Conv2D c;
    c.nhwc = nhwc;
    c.stride_h = 2;
    c.stride_w = 3;
    c.pad_lo_h = 1;
    c.pad_hi_h = 2;
    c.pad_lo_w = 2;
    c.pad_hi_w = 0;
    Check(c);
    // Negative padding crops the input.
    Conv2D n;
    n.nhwc = nhwc;
    n.pad_lo_h = -1;
    n.pad_hi_w = -2;
    Check(n);
  }
}

TEST(ConvTest, Dilations) {
  Conv2D rhs;  // atrous
  rhs.rhs_dil = 2;
  rhs.pad_lo_h = rhs.pad_hi_h = 1;
  Check(rhs);
  Conv2D lhs;  // transposed convolution
  lhs.lhs_dil = 2;
  lhs.pad_lo_h = lhs.pad_hi_h = lhs.pad_lo_w = lhs.pad_hi_w = 1;
  lhs.nhwc = true;
  Check(lhs);
  Conv2D both;
  both.lhs_dil = 3;
  both.rhs_dil = 2;
  both.stride_h = 2;
  both.pad_lo_w = 2;
  Check(both);
}

TEST(ConvTest, WindowReversal) {
  Conv2D c;
  c.reverse_h = true;
  c.pad_lo_h = 2;
  Check(c);
}

TEST(ConvTest, FeatureGroups) {
  Conv2D grouped;
  grouped.in_features = 6;
  grouped.out_features = 9;
  grouped.feature_groups = 3;
  Check(grouped);
  Conv2D depthwise;
  depthwise.nhwc = true;
  depthwise.in_features = 8;
  depthwise.out_features = 16;
  depthwise.feature_groups = 8;
  depthwise.pad_lo_h = depthwise.pad_hi_h = 1;
  Check(depthwise);
  // Depth multiplier 1, strided and dilated, in both layouts (direct loop
  // for NHWC, a GEMM per feature for NCHW); f16.
  for (bool nhwc : {true, false}) {
    Conv2D dw;
    dw.nhwc = nhwc;
    dw.in_features = dw.out_features = dw.feature_groups = 12;
    dw.h = 11;
    dw.w = 10;
    dw.stride_h = 2;
    dw.rhs_dil = 2;
    dw.pad_lo_w = dw.pad_hi_w = 2;
    Check(dw);
    dw.type = "f16";
    Check(dw);
  }
}

TEST(ConvTest, BatchGroups) {
  // The filter-gradient form: batch_group_count splits the input batch.
  Conv2D c;
  c.batch = 1;
  c.batch_groups = 4;
  c.out_features = 8;
  Check(c);
  c.nhwc = true;
  Check(c);
}

TEST(ConvTest, ElementTypes) {
  for (const auto& [in, out] : std::vector<std::pair<std::string, std::string>>{
           {"f64", "f64"}, {"f16", "f16"}, {"bf16", "f32"}, {"s8", "s32"}}) {
    Conv2D c;
    c.type = in;
    c.out_type = out;
    c.pad_lo_w = 1;
    Check(c);
  }
}

TEST(ConvTest, LargerAndBlocked) {
  // K = 3*3*64 = 576 > one K block; many output positions.
  Conv2D c;
  c.nhwc = true;
  c.batch = 2;
  c.in_features = 64;
  c.out_features = 48;
  c.h = c.w = 20;
  c.kh = c.kw = 3;
  c.pad_lo_h = c.pad_hi_h = c.pad_lo_w = c.pad_hi_w = 1;
  Check(c);
}

TEST(ConvTest, OneAndThreeSpatialDimensions) {
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule conv1d
ENTRY main {
  x = f32[3,50,6] parameter(0)
  w = f32[5,6,7] parameter(1)
  ROOT y = f32[3,25,7] convolution(x, w), window={size=5 stride=2 pad=2_1}, dim_labels=b0f_0io->b0f
}
)")
                  .empty());
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule conv3d
ENTRY main {
  x = f32[2,4,6,5,7] parameter(0)
  w = f32[3,2,3,4,5] parameter(1)
  ROOT y = f32[2,5,6,4,5] convolution(x, w), window={size=3x2x3 pad=1_1x0_0x0_0}, dim_labels=bf012_012io->bf012
}
)")
                  .empty());
  // Unusual dimension orders everywhere.
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule odd_labels
ENTRY main {
  x = f32[7,3,2,9] parameter(0)
  w = f32[4,2,5,3] parameter(1)
  ROOT y = f32[2,3,2,6] convolution(x, w), window={size=5x4}, dim_labels=0fb1_1o0i->f0b1
}
)")
                  .empty());
}

}  // namespace
}  // namespace hloc

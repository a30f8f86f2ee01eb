// MapDotToGemm on many dimension numbers and layouts: the column-major BLAS
// view of row-major HLO (operands swapped), transposes, leading dimensions,
// batch strides (majormost or not), collapsed groups, and what is refused.
#include "backends/gpu/gemm_config.h"

#include <string>

#include "gtest/gtest.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace {

Shape S(const std::string& text) {
  absl::StatusOr<Shape> shape = ParseShape(text);
  EXPECT_TRUE(shape.ok()) << text << ": " << shape.status();
  return shape.ok() ? *shape : Shape();
}

DotDimensionNumbers Dims(std::vector<int64_t> lc, std::vector<int64_t> rc,
                         std::vector<int64_t> lb = {},
                         std::vector<int64_t> rb = {}) {
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = lc;
  d.rhs_contracting_dimensions = rc;
  d.lhs_batch_dimensions = lb;
  d.rhs_batch_dimensions = rb;
  return d;
}

GemmMapping Map(const std::string& lhs, const std::string& rhs,
                const std::string& out, const DotDimensionNumbers& dims,
                std::optional<PrecisionConfig> precision = std::nullopt) {
  absl::StatusOr<GemmMapping> m =
      MapDotToGemm(S(lhs), S(rhs), S(out), dims, precision);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : GemmMapping();
}

TEST(GemmConfigTest, RowMajorMatmulSwapsOperands) {
  GemmMapping g = Map("f32[128,256]{1,0}", "f32[256,64]{1,0}",
                      "f32[128,64]{1,0}", Dims({1}, {0}));
  EXPECT_TRUE(g.swap_operands);
  const GemmConfig& c = g.config;
  EXPECT_EQ(c.m, 64);
  EXPECT_EQ(c.n, 128);
  EXPECT_EQ(c.k, 256);
  EXPECT_EQ(c.batch, 1);
  EXPECT_FALSE(c.transpose_lhs);
  EXPECT_FALSE(c.transpose_rhs);
  EXPECT_EQ(c.lda, 64);
  EXPECT_EQ(c.ldb, 256);
  EXPECT_EQ(c.ldc, 64);
  EXPECT_TRUE(c.allow_tf32);
  EXPECT_EQ(c.lhs_type, F32);
  EXPECT_EQ(c.out_type, F32);
}

TEST(GemmConfigTest, LhsContractingMajorIsTransposedB) {
  // x^T @ w: lhs [K, M].
  GemmMapping g = Map("f32[256,128]{1,0}", "f32[256,64]{1,0}",
                      "f32[128,64]{1,0}", Dims({0}, {0}));
  EXPECT_FALSE(g.config.transpose_lhs);
  EXPECT_TRUE(g.config.transpose_rhs);
  EXPECT_EQ(g.config.ldb, 128);
  EXPECT_EQ(g.config.k, 256);
}

TEST(GemmConfigTest, RhsContractingMinorIsTransposedA) {
  // x @ w^T: rhs [N, K].
  GemmMapping g = Map("f32[128,256]{1,0}", "f32[64,256]{1,0}",
                      "f32[128,64]{1,0}", Dims({1}, {1}));
  EXPECT_TRUE(g.config.transpose_lhs);
  EXPECT_FALSE(g.config.transpose_rhs);
  EXPECT_EQ(g.config.lda, 256);
  EXPECT_EQ(g.config.m, 64);
}

TEST(GemmConfigTest, ColumnMajorLayoutsNeedNoSwap) {
  GemmMapping g = Map("f32[128,256]{0,1}", "f32[256,64]{0,1}",
                      "f32[128,64]{0,1}", Dims({1}, {0}));
  EXPECT_FALSE(g.swap_operands);
  EXPECT_EQ(g.config.m, 128);
  EXPECT_EQ(g.config.n, 64);
  EXPECT_FALSE(g.config.transpose_lhs);
  EXPECT_FALSE(g.config.transpose_rhs);
  EXPECT_EQ(g.config.lda, 128);
  EXPECT_EQ(g.config.ldb, 256);
  EXPECT_EQ(g.config.ldc, 128);
}

TEST(GemmConfigTest, BatchedStrides) {
  GemmMapping g = Map("f32[4,32,48]{2,1,0}", "f32[4,48,16]{2,1,0}",
                      "f32[4,32,16]{2,1,0}", Dims({2}, {1}, {0}, {0}));
  const GemmConfig& c = g.config;
  EXPECT_EQ(c.batch, 4);
  EXPECT_EQ(c.m, 16);
  EXPECT_EQ(c.n, 32);
  EXPECT_EQ(c.k, 48);
  EXPECT_EQ(c.stride_lhs, 48 * 16);  // BLAS A is the dot's rhs.
  EXPECT_EQ(c.stride_rhs, 32 * 48);
  EXPECT_EQ(c.stride_out, 32 * 16);
}

TEST(GemmConfigTest, BatchDimensionNotMajormost) {
  // XLA's split-K rewrite: lhs [M, B, K] batched over its middle dimension.
  GemmMapping g = Map("f32[128,8,32]{2,1,0}", "f32[8,32,64]{2,1,0}",
                      "f32[8,128,64]{2,1,0}", Dims({2}, {1}, {1}, {0}));
  const GemmConfig& c = g.config;
  EXPECT_EQ(c.batch, 8);
  EXPECT_EQ(c.k, 32);
  EXPECT_FALSE(c.transpose_rhs);
  EXPECT_EQ(c.ldb, 256);
  EXPECT_EQ(c.stride_rhs, 32);
  EXPECT_EQ(c.stride_lhs, 32 * 64);
  EXPECT_EQ(c.stride_out, 128 * 64);
}

TEST(GemmConfigTest, SeveralContractingAndFreeDimensionsCollapse) {
  GemmMapping g = Map("f32[2,3,4,5]{3,2,1,0}", "f32[4,5,6]{2,1,0}",
                      "f32[2,3,6]{2,1,0}", Dims({2, 3}, {0, 1}));
  EXPECT_EQ(g.config.k, 20);
  EXPECT_EQ(g.config.n, 6);  // M = 2*3 after the swap.
  EXPECT_EQ(g.config.m, 6);
  EXPECT_EQ(g.config.ldb, 20);
}

TEST(GemmConfigTest, VectorTimesMatrix) {
  GemmMapping g =
      Map("f32[256]{0}", "f32[256,64]{1,0}", "f32[64]{0}", Dims({0}, {0}));
  EXPECT_EQ(g.config.m, 64);
  EXPECT_EQ(g.config.n, 1);
  EXPECT_EQ(g.config.lda, 64);
  EXPECT_EQ(g.config.ldb, 256);
  EXPECT_EQ(g.config.ldc, 64);
}

TEST(GemmConfigTest, SizeOneDimensionsAreIgnored) {
  GemmMapping g = Map("f32[1,128,1,256]{3,2,1,0}", "f32[256,64]{1,0}",
                      "f32[1,128,1,64]{3,2,1,0}", Dims({3}, {0}));
  EXPECT_EQ(g.config.n, 128);
  EXPECT_EQ(g.config.ldb, 256);
}

TEST(GemmConfigTest, Types) {
  EXPECT_EQ(
      Map("bf16[8,16]{1,0}", "bf16[16,4]{1,0}", "f32[8,4]{1,0}", Dims({1}, {0}))
          .config.out_type,
      F32);
  GemmMapping f16 =
      Map("f16[8,16]{1,0}", "f16[16,4]{1,0}", "f16[8,4]{1,0}", Dims({1}, {0}));
  EXPECT_FALSE(f16.config.allow_tf32);
  EXPECT_FALSE(
      Map("f64[8,16]{1,0}", "f64[16,4]{1,0}", "f64[8,4]{1,0}", Dims({1}, {0}))
          .config.allow_tf32);
  absl::StatusOr<GemmMapping> s8 =
      MapDotToGemm(S("s8[8,16]{1,0}"), S("s8[16,4]{1,0}"), S("s32[8,4]{1,0}"),
                   Dims({1}, {0}), std::nullopt);
  ASSERT_FALSE(s8.ok());
  EXPECT_TRUE(absl::IsUnimplemented(s8.status()));
  EXPECT_NE(s8.status().message().find("s8 x s8 -> s32"), std::string::npos)
      << s8.status();
}

TEST(GemmConfigTest, HighestPrecisionIsNotTf32) {
  PrecisionConfig highest;
  highest.operand_precision = {Precision::kHighest, Precision::kHighest};
  EXPECT_FALSE(Map("f32[8,16]{1,0}", "f32[16,4]{1,0}", "f32[8,4]{1,0}",
                   Dims({1}, {0}), highest)
                   .config.allow_tf32);
  PrecisionConfig defaults;
  defaults.operand_precision = {Precision::kDefault, Precision::kDefault};
  EXPECT_TRUE(Map("f32[8,64]{1,0}", "f32[64,16]{1,0}", "f32[8,16]{1,0}",
                  Dims({1}, {0}), defaults)
                  .config.allow_tf32);
}

TEST(GemmConfigTest, TinyProductsAreFullF32) {
  // 8 x 4 x 16 = 512 multiply-adds: below the 4096 where TF32 starts.
  EXPECT_FALSE(Map("f32[8,16]{1,0}", "f32[16,4]{1,0}", "f32[8,4]{1,0}",
                   Dims({1}, {0}))
                   .config.allow_tf32);
  EXPECT_TRUE(Map("f32[16,16]{1,0}", "f32[16,16]{1,0}", "f32[16,16]{1,0}",
                  Dims({1}, {0}))
                  .config.allow_tf32);
}

TEST(GemmConfigTest, ContractingDimensionsOutOfMemoryOrder) {
  absl::StatusOr<GemmMapping> m =
      MapDotToGemm(S("f32[2,3,4]{2,1,0}"), S("f32[4,3,5]{2,1,0}"),
                   S("f32[2,5]{1,0}"), Dims({2, 1}, {0, 1}), std::nullopt);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::IsUnimplemented(m.status()));
  EXPECT_NE(m.status().message().find("lhs contracting dimensions {2,1}"),
            std::string::npos)
      << m.status();
}

TEST(GemmConfigTest, MatrixWithoutContiguousDimension) {
  // Batch minor-most: neither M nor K has unit stride.
  absl::StatusOr<GemmMapping> m = MapDotToGemm(
      S("f32[4,8,16]{0,2,1}"), S("f32[4,16,2]{2,1,0}"), S("f32[4,8,2]{2,1,0}"),
      Dims({2}, {1}, {0}, {0}), std::nullopt);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("lhs f32[4,8,16]{0,2,1}"),
            std::string::npos)
      << m.status();
}

}  // namespace
}  // namespace hloc

// dot and dot-epilogue kernels against the evaluator: matrix shapes around
// the register tile and cache blocks, transposed and batched dimension
// numbers, several contracting and free dimensions, layouts, element types
// (mixed, f16/bf16 accumulated in f32, integers, pred), K = 0, and kOutput
// fusions with an epilogue or a prologue of views and converts. None may
// fall back to the evaluator.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"

namespace hloc {
namespace {

using testing_util::CheckAgainstEvaluator;

std::string DotModule(const std::string& lhs, const std::string& rhs,
                      const std::string& out, const std::string& dims) {
  return absl::StrReplaceAll(R"(
HloModule dot
ENTRY main {
  a = $LHS parameter(0)
  b = $RHS parameter(1)
  ROOT d = $OUT dot(a, b)$DIMS
}
)",
                             {{"$LHS", lhs},
                              {"$RHS", rhs},
                              {"$OUT", out},
                              {"$DIMS", dims.empty() ? "" : ", " + dims}});
}

const char kMatmul[] = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";

std::string Matrix(const std::string& type, int64_t r, int64_t c) {
  return absl::StrCat(type, "[", r, ",", c, "]");
}

struct MatmulCase {
  int64_t m, k, n;
};

class MatmulShapes : public ::testing::TestWithParam<MatmulCase> {};

TEST_P(MatmulShapes, F32MatchesEvaluator) {
  const MatmulCase c = GetParam();
  std::vector<std::string> fallbacks = CheckAgainstEvaluator(
      DotModule(Matrix("f32", c.m, c.k), Matrix("f32", c.k, c.n),
                Matrix("f32", c.m, c.n), kMatmul));
  EXPECT_TRUE(fallbacks.empty());
}

TEST_P(MatmulShapes, SerialMatchesEvaluator) {
  const MatmulCase c = GetParam();
  CpuCompileOptions options;
  options.codegen.parallel = false;
  EXPECT_TRUE(CheckAgainstEvaluator(
                  DotModule(Matrix("f32", c.m, c.k), Matrix("f32", c.k, c.n),
                            Matrix("f32", c.m, c.n), kMatmul),
                  {}, options)
                  .empty());
}

INSTANTIATE_TEST_SUITE_P(
    Dot, MatmulShapes,
    ::testing::Values(MatmulCase{1, 1, 1}, MatmulCase{1, 7, 1},
                      MatmulCase{3, 5, 7}, MatmulCase{12, 4, 32},
                      MatmulCase{13, 17, 33}, MatmulCase{64, 64, 64},
                      MatmulCase{100, 300, 70}, MatmulCase{127, 513, 129},
                      MatmulCase{1, 1000, 1}, MatmulCase{1000, 64, 1},
                      MatmulCase{1, 64, 1000}, MatmulCase{5, 3, 1100},
                      MatmulCase{260, 600, 520}),
    [](const ::testing::TestParamInfo<MatmulCase>& info) {
      return absl::StrCat(info.param.m, "x", info.param.k, "x", info.param.n);
    });

TEST(DotTest, TransposedOperands) {
  // A^T B, A B^T, A^T B^T.
  EXPECT_TRUE(
      CheckAgainstEvaluator(DotModule("f32[40,30]", "f32[40,50]", "f32[30,50]",
                                      "lhs_contracting_dims={0}, "
                                      "rhs_contracting_dims={0}"))
          .empty());
  EXPECT_TRUE(
      CheckAgainstEvaluator(DotModule("f32[30,40]", "f32[50,40]", "f32[30,50]",
                                      "lhs_contracting_dims={1}, "
                                      "rhs_contracting_dims={1}"))
          .empty());
  EXPECT_TRUE(
      CheckAgainstEvaluator(DotModule("f32[40,30]", "f32[50,40]", "f32[30,50]",
                                      "lhs_contracting_dims={0}, "
                                      "rhs_contracting_dims={1}"))
          .empty());
}

TEST(DotTest, ColumnMajorLayouts) {
  EXPECT_TRUE(
      CheckAgainstEvaluator(DotModule("f32[37,29]{0,1}", "f32[29,45]{0,1}",
                                      "f32[37,45]{0,1}", kMatmul))
          .empty());
}

TEST(DotTest, BatchDimensions) {
  EXPECT_TRUE(CheckAgainstEvaluator(
                  DotModule("f32[4,32,48]", "f32[4,48,16]", "f32[4,32,16]",
                            "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                            "rhs_batch_dims={0}, rhs_contracting_dims={1}"))
                  .empty());
  // Batch dimensions in the middle and at the end, two of them.
  EXPECT_TRUE(CheckAgainstEvaluator(
                  DotModule("f32[20,3,16,2]", "f32[16,2,3,9]", "f32[3,2,20,9]",
                            "lhs_batch_dims={1,3}, lhs_contracting_dims={2}, "
                            "rhs_batch_dims={2,1}, rhs_contracting_dims={0}"))
                  .empty());
}

TEST(DotTest, SeveralContractingAndFreeDimensions) {
  EXPECT_TRUE(
      CheckAgainstEvaluator(DotModule("f32[6,5,7]", "f32[5,7,9]", "f32[6,9]",
                                      "lhs_contracting_dims={1,2}, "
                                      "rhs_contracting_dims={0,1}"))
          .empty());
  // Contracting order differs from the layout order; free dims split.
  EXPECT_TRUE(CheckAgainstEvaluator(DotModule("f32[2,3,10,4]", "f32[4,11,10,5]",
                                              "f32[2,3,11,5]",
                                              "lhs_contracting_dims={3,2}, "
                                              "rhs_contracting_dims={0,2}"))
                  .empty());
}

TEST(DotTest, VectorsAndScalars) {
  EXPECT_TRUE(CheckAgainstEvaluator(DotModule("f32[300]", "f32[300]", "f32[]",
                                              "lhs_contracting_dims={0}, "
                                              "rhs_contracting_dims={0}"))
                  .empty());
  EXPECT_TRUE(
      CheckAgainstEvaluator(DotModule("f32[70,300]", "f32[300]", "f32[70]",
                                      "lhs_contracting_dims={1}, "
                                      "rhs_contracting_dims={0}"))
          .empty());
  // Outer product (no contracting dimension).
  EXPECT_TRUE(CheckAgainstEvaluator(
                  DotModule("f32[13]", "f32[40]", "f32[13,40]",
                            "lhs_contracting_dims={}, rhs_contracting_dims={}"))
                  .empty());
}

TEST(DotTest, EmptyContraction) {
  EXPECT_TRUE(CheckAgainstEvaluator(
                  DotModule("f32[3,0]", "f32[0,4]", "f32[3,4]", kMatmul))
                  .empty());
  EXPECT_TRUE(CheckAgainstEvaluator(
                  DotModule("f32[0,5]", "f32[5,4]", "f32[0,4]", kMatmul))
                  .empty());
}

TEST(DotTest, ElementTypes) {
  struct TypeCase {
    const char* lhs;
    const char* rhs;
    const char* out;
  };
  for (const TypeCase& t : std::vector<TypeCase>{{"f64", "f64", "f64"},
                                                 {"f16", "f16", "f16"},
                                                 {"bf16", "bf16", "bf16"},
                                                 {"bf16", "bf16", "f32"},
                                                 {"f32", "bf16", "f32"},
                                                 {"s8", "s8", "s32"},
                                                 {"s32", "s32", "s32"},
                                                 {"u8", "u8", "u32"},
                                                 {"s64", "s64", "s64"},
                                                 {"s16", "f32", "f32"},
                                                 {"f32", "f64", "f64"},
                                                 {"pred", "pred", "pred"}}) {
    SCOPED_TRACE(absl::StrCat(t.lhs, " x ", t.rhs, " -> ", t.out));
    EXPECT_TRUE(CheckAgainstEvaluator(DotModule(Matrix(t.lhs, 19, 70),
                                                Matrix(t.rhs, 70, 37),
                                                Matrix(t.out, 19, 37), kMatmul))
                    .empty());
  }
}

// Checks a dot fusion written with $M, $K, $N against the evaluator at
// wide and tall (computed transposed) results and several k blocks.
void CheckFusionAtSizes(const std::string& text) {
  for (auto [m, k, n] : std::vector<std::tuple<int, int, int>>{
           {128, 256, 64}, {300, 40, 3}, {17, 600, 45}}) {
    SCOPED_TRACE(absl::StrCat(m, "x", k, "x", n));
    EXPECT_TRUE(CheckAgainstEvaluator(
                    absl::StrReplaceAll(text, {{"$M", absl::StrCat(m)},
                                               {"$K", absl::StrCat(k)},
                                               {"$N", absl::StrCat(n)}}))
                    .empty());
  }
}

// kOutput fusions: the epilogue runs on the register tile.
TEST(DotTest, EpilogueFusion) {
  const std::string text = R"(
HloModule dot_bias_relu
epilogue {
  a = f32[$M,$K] parameter(0)
  w = f32[$K,$N] parameter(1)
  bias = f32[$N] parameter(2)
  d = f32[$M,$N] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[$M,$N] broadcast(bias), dimensions={1}
  s = f32[$M,$N] add(d, bb)
  zero = f32[] constant(0)
  zeros = f32[$M,$N] broadcast(zero), dimensions={}
  ROOT r = f32[$M,$N] maximum(s, zeros)
}
ENTRY main {
  a = f32[$M,$K] parameter(0)
  w = f32[$K,$N] parameter(1)
  bias = f32[$N] parameter(2)
  ROOT f = f32[$M,$N] fusion(a, w, bias), kind=kOutput, calls=epilogue
}
)";
  CheckFusionAtSizes(text);
}

TEST(DotTest, EpilogueWithBatchConvertAndOperandOrder) {
  // The dot reads fusion parameters 2 and 0; the epilogue reads parameter
  // 1 at each element and converts to bf16; batched, tanh.
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule batched_epilogue
epilogue {
  w = f32[3,20,30] parameter(0)
  scale = f32[3,10,30] parameter(1)
  a = bf16[3,10,20] parameter(2)
  d = f32[3,10,30] dot(a, w), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  m = f32[3,10,30] multiply(d, scale)
  t = f32[3,10,30] tanh(m)
  ROOT c = bf16[3,10,30] convert(t)
}
ENTRY main {
  w = f32[3,20,30] parameter(0)
  scale = f32[3,10,30] parameter(1)
  a = bf16[3,10,20] parameter(2)
  ROOT f = bf16[3,10,30] fusion(w, scale, a), kind=kOutput, calls=epilogue
}
)")
                  .empty());
}

TEST(DotTest, PrologueOfViewsAndConverts) {
  // dot-prologue-fusion's CPU form: the packing reads a broadcast (stride
  // 0), a transpose (swapped strides) and rounding converts of the fusion
  // parameters instead of materialising them; with an epilogue.
  const std::string text = R"(
HloModule dot_prologue
fused {
  a = f32[$K,$M] parameter(0)
  v = f32[$K] parameter(1)
  bias = f32[$N] parameter(2)
  at = f32[$M,$K] transpose(a), dimensions={1,0}
  ra = bf16[$M,$K] convert(at)
  bv = f32[$K,$N] broadcast(v), dimensions={0}
  rb = bf16[$K,$N] convert(bv)
  d = f32[$M,$N] dot(ra, rb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[$M,$N] broadcast(bias), dimensions={1}
  ROOT s = f32[$M,$N] add(d, bb)
}
ENTRY main {
  a = f32[$K,$M] parameter(0)
  v = f32[$K] parameter(1)
  bias = f32[$N] parameter(2)
  ROOT f = f32[$M,$N] fusion(a, v, bias), kind=kOutput, calls=fused
}
)";
  CheckFusionAtSizes(text);
}

TEST(DotTest, PrologueWithBatchBroadcastAndLayoutCopy) {
  // A weight shared by every batch (a broadcast along the batch dimension)
  // and an lhs copied into another layout.
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule batched_prologue
fused {
  x = f32[4,9,20]{1,2,0} parameter(0)
  w = f32[20,7] parameter(1)
  xc = f32[4,9,20] copy(x)
  wb = f32[4,20,7] broadcast(w), dimensions={1,2}
  ROOT d = f32[4,9,7] dot(xc, wb), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}
ENTRY main {
  x = f32[4,9,20]{1,2,0} parameter(0)
  w = f32[20,7] parameter(1)
  ROOT f = f32[4,9,7] fusion(x, w), kind=kOutput, calls=fused
}
)")
                  .empty());
}

}  // namespace
}  // namespace hloc

// Matrix-vector dots (the GEMV engine, gemv_emitter.h) against the
// evaluator: a row vector times a matrix (M = 1) and a matrix times a
// column vector (N = 1), with the matrix contiguous along N or along K,
// batched, odd sizes around the vector width and the blocks (K = 0, 1, 3;
// N = 1, 17, 1000), f64 and widened f32/f16/bf16 matrices, large enough to
// run on several threads, and kOutput fusions with an epilogue. None may
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
  return absl::StrReplaceAll(
      R"(
HloModule gemv
ENTRY main {
  a = $LHS parameter(0)
  b = $RHS parameter(1)
  ROOT d = $OUT dot(a, b), $DIMS
}
)",
      {{"$LHS", lhs}, {"$RHS", rhs}, {"$OUT", out}, {"$DIMS", dims}});
}

std::string Dims(const std::string& type, int64_t r, int64_t c) {
  return absl::StrCat(type, "[", r, ",", c, "]");
}

const char kMatmul[] = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
// The rhs stored [N, K]: contiguous along K.
const char kRhsTransposed[] =
    "lhs_contracting_dims={1}, rhs_contracting_dims={1}";
// The lhs stored [K, M]: contiguous along M (the output).
const char kLhsTransposed[] =
    "lhs_contracting_dims={0}, rhs_contracting_dims={0}";

void ExpectMatches(const std::string& text,
                   const CpuCompileOptions& options = {}) {
  std::vector<std::string> fallbacks = CheckAgainstEvaluator(text, {}, options);
  EXPECT_TRUE(fallbacks.empty()) << text;
}

struct Size {
  int64_t k, n;
};

class GemvSizes : public ::testing::TestWithParam<Size> {};

// x[1,K] @ W[K,N]: along N.
TEST_P(GemvSizes, RowVectorTimesMatrix) {
  const Size s = GetParam();
  ExpectMatches(DotModule(Dims("f32", 1, s.k), Dims("f32", s.k, s.n),
                          Dims("f32", 1, s.n), kMatmul));
}

// x[1,K] @ W[N,K]^T: along K.
TEST_P(GemvSizes, RowVectorTimesTransposedMatrix) {
  const Size s = GetParam();
  ExpectMatches(DotModule(Dims("f32", 1, s.k), Dims("f32", s.n, s.k),
                          Dims("f32", 1, s.n), kRhsTransposed));
}

// W[N,K] @ v[K,1]: the vector on the right, along K.
TEST_P(GemvSizes, MatrixTimesColumnVector) {
  const Size s = GetParam();
  ExpectMatches(DotModule(Dims("f32", s.n, s.k), Dims("f32", s.k, 1),
                          Dims("f32", s.n, 1), kMatmul));
}

// W[K,N]^T @ v[K]: the vector on the right, along N (column-major matrix).
TEST_P(GemvSizes, TransposedMatrixTimesVector) {
  const Size s = GetParam();
  ExpectMatches(DotModule(Dims("f32", s.k, s.n), absl::StrCat("f32[", s.k, "]"),
                          absl::StrCat("f32[", s.n, "]"), kLhsTransposed));
}

TEST_P(GemvSizes, F64Serial) {
  const Size s = GetParam();
  CpuCompileOptions serial;
  serial.codegen.parallel = false;
  ExpectMatches(DotModule(Dims("f64", 1, s.k), Dims("f64", s.k, s.n),
                          Dims("f64", 1, s.n), kMatmul),
                serial);
  ExpectMatches(DotModule(Dims("f64", s.n, s.k), Dims("f64", s.k, 1),
                          Dims("f64", s.n, 1), kMatmul),
                serial);
}

INSTANTIATE_TEST_SUITE_P(
    Gemv, GemvSizes,
    ::testing::Values(Size{1, 1}, Size{3, 1}, Size{1, 17}, Size{3, 17},
                      Size{7, 5}, Size{16, 16}, Size{33, 40}, Size{256, 256},
                      Size{300, 1000}, Size{1000, 3}, Size{0, 9}),
    [](const ::testing::TestParamInfo<Size>& info) {
      return absl::StrCat("k", info.param.k, "_n", info.param.n);
    });

TEST(GemvTest, Batched) {
  // [B,1,K] x [B,K,N], both layouts of the matrix.
  ExpectMatches(DotModule("f32[5,1,37]", "f32[5,37,70]", "f32[5,1,70]",
                          "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                          "rhs_batch_dims={0}, rhs_contracting_dims={1}"));
  ExpectMatches(DotModule("f32[5,1,37]", "f32[5,70,37]", "f32[5,1,70]",
                          "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                          "rhs_batch_dims={0}, rhs_contracting_dims={2}"));
  // [B,M,K] x [B,K,1], and the matrix in a column-major layout.
  ExpectMatches(DotModule("f32[3,19,45]", "f32[3,45,1]", "f32[3,19,1]",
                          "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                          "rhs_batch_dims={0}, rhs_contracting_dims={1}"));
  ExpectMatches(DotModule("f32[3,19,45]{1,2,0}", "f32[3,45]", "f32[3,19]",
                          "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                          "rhs_batch_dims={0}, rhs_contracting_dims={1}"));
  // The batch dimension last in the matrix's layout (a strided batch).
  ExpectMatches(DotModule("f32[4,1,20]", "f32[4,20,33]{0,2,1}", "f32[4,1,33]",
                          "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                          "rhs_batch_dims={0}, rhs_contracting_dims={1}"));
}

TEST(GemvTest, DotProductAndOuterProduct) {
  ExpectMatches(
      DotModule("f32[1000]", "f32[1000]", "f32[]",
                "lhs_contracting_dims={0}, rhs_contracting_dims={0}"));
  ExpectMatches(DotModule("f32[1,3]", "f32[3,1]", "f32[1,1]", kMatmul));
  ExpectMatches(DotModule("f32[1,1]", "f32[1,50]", "f32[1,50]", kMatmul));
}

TEST(GemvTest, WidenedAndMixedTypes) {
  struct TypeCase {
    const char* vec;
    const char* mat;
    const char* out;
  };
  for (const TypeCase& t : std::vector<TypeCase>{{"f64", "f64", "f64"},
                                                 {"f32", "bf16", "f32"},
                                                 {"bf16", "bf16", "bf16"},
                                                 {"f16", "f16", "f16"},
                                                 {"f32", "f16", "f32"},
                                                 {"f64", "f32", "f64"},
                                                 {"f32", "f64", "f64"},
                                                 {"s8", "f32", "f32"},
                                                 {"s32", "s32", "s32"}}) {
    SCOPED_TRACE(absl::StrCat(t.vec, " x ", t.mat, " -> ", t.out));
    ExpectMatches(DotModule(Dims(t.vec, 1, 70), Dims(t.mat, 70, 37),
                            Dims(t.out, 1, 37), kMatmul));
    ExpectMatches(DotModule(Dims(t.mat, 37, 70), Dims(t.vec, 70, 1),
                            Dims(t.out, 37, 1), kMatmul));
  }
}

TEST(GemvTest, LargeMatricesOnSeveralThreads) {
  // 2 MB and 4 MB matrices: split over the OpenMP threads; and serially.
  CpuCompileOptions serial;
  serial.codegen.parallel = false;
  for (const CpuCompileOptions& options : {CpuCompileOptions{}, serial}) {
    ExpectMatches(
        DotModule("f32[1,1024]", "f32[1024,520]", "f32[1,520]", kMatmul),
        options);
    ExpectMatches(
        DotModule("f32[1030,1024]", "f32[1024,1]", "f32[1030,1]", kMatmul),
        options);
    ExpectMatches(
        DotModule("f32[1,16384]", "f32[16384,60]", "f32[1,60]", kMatmul),
        options);
  }
}

// The scan step of an RNN, h = tanh(h @ W + x), as a kOutput fusion: the
// epilogue runs on the GEMV's outputs. And a bias + relu after W @ v.
TEST(GemvTest, EpilogueFusion) {
  ExpectMatches(R"(
HloModule rnn_step
fused {
  h = f32[1,256] parameter(0)
  w = f32[256,256] parameter(1)
  x = f32[1,256] parameter(2)
  d = f32[1,256] dot(h, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[1,256] add(d, x)
  ROOT t = f32[1,256] tanh(s)
}
ENTRY main {
  h = f32[1,256] parameter(0)
  w = f32[256,256] parameter(1)
  x = f32[1,256] parameter(2)
  ROOT f = f32[1,256] fusion(h, w, x), kind=kOutput, calls=fused
}
)");
  ExpectMatches(R"(
HloModule matvec_bias_relu
fused {
  w = f32[77,130] parameter(0)
  v = f32[130,1] parameter(1)
  bias = f32[77] parameter(2)
  d = f32[77,1] dot(w, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[77,1] broadcast(bias), dimensions={0}
  s = f32[77,1] add(d, bb)
  zero = f32[] constant(0)
  zeros = f32[77,1] broadcast(zero), dimensions={}
  r = f32[77,1] maximum(s, zeros)
  ROOT c = bf16[77,1] convert(r)
}
ENTRY main {
  w = f32[77,130] parameter(0)
  v = f32[130,1] parameter(1)
  bias = f32[77] parameter(2)
  ROOT f = bf16[77,1] fusion(w, v, bias), kind=kOutput, calls=fused
}
)");
  // Batched, with a prologue converting the vector (read through it) and a
  // transposed matrix.
  ExpectMatches(R"(
HloModule batched_prologue
fused {
  x = bf16[6,1,40] parameter(0)
  w = f32[6,23,40] parameter(1)
  xc = f32[6,1,40] convert(x)
  d = f32[6,1,23] dot(xc, w), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  ROOT e = f32[6,1,23] exponential(d)
}
ENTRY main {
  x = bf16[6,1,40] parameter(0)
  w = f32[6,23,40] parameter(1)
  ROOT f = f32[6,1,23] fusion(x, w), kind=kOutput, calls=fused
}
)");
}

}  // namespace
}  // namespace hloc

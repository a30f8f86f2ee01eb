// fft, cholesky, triangular-solve and the LAPACK custom calls in the
// evaluator, on values worked out by hand.
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/test_util.h"

namespace hloc {
namespace eval_test {
namespace {

using C = complex64;

void ExpectComplex(const Literal& literal, const std::vector<C>& expected) {
  std::vector<C> got = Values<C>(literal);
  ASSERT_EQ(got.size(), expected.size()) << literal.ToString();
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i].real(), expected[i].real(), 1e-5) << "element " << i;
    EXPECT_NEAR(got[i].imag(), expected[i].imag(), 1e-5) << "element " << i;
  }
}

TEST(FftTest, ForwardInverseRealAndTwoDimensional) {
  const Literal x = Vec<C>(C64, {1, 2, 3, 4});
  ExpectComplex(MustRun(R"(
HloModule m
ENTRY e {
  x = c64[4] parameter(0)
  ROOT f = c64[4] fft(x), fft_type=FFT, fft_length={4}
})",
                        {x}),
                {10, C(-2, 2), -2, C(-2, -2)});
  ExpectComplex(MustRun(R"(
HloModule m
ENTRY e {
  x = c64[4] parameter(0)
  ROOT f = c64[4] fft(x), fft_type=IFFT, fft_length={4}
})",
                        {Vec<C>(C64, {10, C(-2, 2), -2, C(-2, -2)})}),
                {1, 2, 3, 4});
  ExpectComplex(MustRun(R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ROOT f = c64[3] fft(x), fft_type=RFFT, fft_length={4}
})",
                        {Vec<float>(F32, {1, 2, 3, 4})}),
                {10, C(-2, 2), -2});
  // The imaginary parts at frequencies 0 and n/2 are not read.
  ExpectNear(MustRun(R"(
HloModule m
ENTRY e {
  x = c64[3] parameter(0)
  ROOT f = f32[4] fft(x), fft_type=IRFFT, fft_length={4}
})",
                     {Vec<C>(C64, {C(10, 7), C(-2, 2), C(-2, 5)})}),
             {1, 2, 3, 4}, 1e-6);
  ExpectComplex(MustRun(R"(
HloModule m
ENTRY e {
  x = c64[2,2] parameter(0)
  ROOT f = c64[2,2] fft(x), fft_type=FFT, fft_length={2,2}
})",
                        {Make<C>(C64, {2, 2}, {1, 2, 3, 4})}),
                {10, -2, -4, 0});
}

// Lines of every kind of length (prime, prime powers, mixed, with a large
// prime factor) against the definition summed here in long double.
TEST(FftTest, MixedRadixLinesMatchTheDefinition) {
  using Z = complex128;
  for (int64_t n :
       {1, 2, 3, 4, 6, 9, 12, 15, 16, 30, 49, 60, 97, 128, 194, 210, 1000}) {
    SCOPED_TRACE(n);
    std::vector<Z> x(n);
    for (int64_t j = 0; j < n; ++j) {
      x[j] = Z(std::sin(0.7 * j + 0.1), std::cos(1.3 * j) - 0.2);
    }
    const std::string text =
        absl::StrCat("HloModule m\nENTRY e {\n  x = c128[", n,
                     "] parameter(0)\n  ROOT f = c128[", n,
                     "] fft(x), fft_type=FFT, ", "fft_length={", n, "}\n}\n");
    const std::vector<Z> got = Values<Z>(MustRun(text, {Vec<Z>(C128, x)}));
    ASSERT_EQ(static_cast<int64_t>(got.size()), n);
    for (int64_t k = 0; k < n; ++k) {
      std::complex<long double> sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        const long double angle =
            -2 * 3.14159265358979323846264338327950288L * ((j * k) % n) / n;
        sum += std::complex<long double>(x[j].real(), x[j].imag()) *
               std::complex<long double>(std::cos(angle), std::sin(angle));
      }
      EXPECT_NEAR(got[k].real(), static_cast<double>(sum.real()), 1e-11 * n)
          << "frequency " << k;
      EXPECT_NEAR(got[k].imag(), static_cast<double>(sum.imag()), 1e-11 * n)
          << "frequency " << k;
    }
  }
}

// A million points (10^12 products from the definition) take the evaluator
// well under a second: a pure tone is one spike.
TEST(FftTest, MillionPointTransformIsFast) {
  using Z = complex128;
  const int64_t n = 1 << 20;
  std::vector<Z> x(n);
  for (int64_t j = 0; j < n; ++j) {
    const double angle = 2 * M_PI * ((5 * j) % n) / n;
    x[j] = Z(std::cos(angle), std::sin(angle));
  }
  const std::vector<Z> got = Values<Z>(MustRun(R"(
HloModule m
ENTRY e {
  x = c128[1048576] parameter(0)
  ROOT f = c128[1048576] fft(x), fft_type=FFT, fft_length={1048576}
})",
                                               {Vec<Z>(C128, x)}));
  ASSERT_EQ(static_cast<int64_t>(got.size()), n);
  for (int64_t k = 0; k < n; ++k) {
    const double expected = k == 5 ? static_cast<double>(n) : 0.0;
    ASSERT_NEAR(got[k].real(), expected, 1e-6) << "frequency " << k;
    ASSERT_NEAR(got[k].imag(), 0.0, 1e-6) << "frequency " << k;
  }
}

TEST(FftTest, BatchedTwoDimensionalRealRoundTrip) {
  const char* kRoundTrip = R"(
HloModule m
ENTRY e {
  x = f64[2,3,6] parameter(0)
  r = c128[2,3,4] fft(x), fft_type=RFFT, fft_length={3,6}
  ROOT i = f64[2,3,6] fft(r), fft_type=IRFFT, fft_length={3,6}
})";
  std::vector<double> values;
  for (int i = 0; i < 36; ++i) values.push_back(0.25 * i - 3 + (i % 5));
  ExpectNear(MustRun(kRoundTrip, {Make<double>(F64, {2, 3, 6}, values)}),
             values, 1e-12);
}

TEST(LinalgTest, CholeskyLowerAndUpperZeroTheOtherTriangle) {
  const Literal a = Make<float>(F32, {2, 2}, {4, 2, 2, 5});
  ExpectFloats(MustRun(R"(
HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  ROOT c = f32[2,2] cholesky(a), lower=true
})",
                       {a}),
               {2, 0, 1, 2});
  ExpectFloats(MustRun(R"(
HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  ROOT c = f32[2,2] cholesky(a), lower=false
})",
                       {a}),
               {2, 1, 0, 2});
}

TEST(LinalgTest, TriangularSolveSidesAndTranspose) {
  const Literal a = Make<float>(F32, {2, 2}, {2, 99, 1, 1});
  const Literal b = Make<float>(F32, {2, 1}, {2, 3});
  ExpectFloats(MustRun(R"(
HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[2,1] parameter(1)
  ROOT x = f32[2,1] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=false, transpose_a=NO_TRANSPOSE
})",
                       {a, b}),
               {1, 2});
  ExpectFloats(MustRun(R"(
HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[2,1] parameter(1)
  ROOT x = f32[2,1] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=false, transpose_a=TRANSPOSE
})",
                       {a, b}),
               {-0.5, 3});
  // x a = b with a's unit upper triangle [[1, 99], [0, 1]].
  ExpectFloats(MustRun(R"(
HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[1,2] parameter(1)
  ROOT x = f32[1,2] triangular-solve(a, b), left_side=false, lower=false, unit_diagonal=true, transpose_a=NO_TRANSPOSE
})",
                       {a, Make<float>(F32, {1, 2}, {1, 100})}),
               {1, 1});
}

TEST(LinalgTest, LapackPotrfKeepsTheOtherTriangleAndReportsFailure) {
  const char* kPotrf = R"(
HloModule m
ENTRY e {
  a = f32[2,2,2]{1,2,0} parameter(0)
  ROOT c = (f32[2,2,2]{1,2,0}, s32[2]) custom-call(a), custom_call_target="lapack_spotrf_ffi", operand_layout_constraints={f32[2,2,2]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}
})";
  Literal r =
      MustRun(kPotrf, {Make<float>(F32, {2, 2, 2}, {4, 7, 2, 5, 1, 2, 2, 1})});
  ASSERT_TRUE(r.shape().IsTuple());
  ExpectFloats(r.tuple_elements()[0], {2, 7, 1, 2, 1, 2, 2, -3});
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[1]),
            (std::vector<int32_t>{0, 2}));
}

TEST(LinalgTest, LapackTrsmGetrfGeqrfOrgqr) {
  Literal x = MustRun(R"(
HloModule m
ENTRY e {
  a = f64[2,2]{0,1} parameter(0)
  b = f64[2,1]{0,1} parameter(1)
  ROOT x = f64[2,1]{0,1} custom-call(a, b), custom_call_target="lapack_dtrsm_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}
})",
                      {Make<double>(F64, {2, 2}, {2, 99, 1, 1}),
                       Make<double>(F64, {2, 1}, {2, 3})});
  ExpectFloats(x, {-0.5, 3});

  Literal lu = MustRun(R"(
HloModule m
ENTRY e {
  a = f64[2,2]{0,1} parameter(0)
  ROOT lu = (f64[2,2]{0,1}, s32[2], s32[]) custom-call(a), custom_call_target="lapack_dgetrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={}
})",
                       {Make<double>(F64, {2, 2}, {1, 2, 3, 4})});
  ExpectNear(lu.tuple_elements()[0], {3, 4, 1.0 / 3, 2 - 4.0 / 3}, 1e-15);
  EXPECT_EQ(Values<int32_t>(lu.tuple_elements()[1]),
            (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(Values<int32_t>(lu.tuple_elements()[2]), (std::vector<int32_t>{0}));

  Literal q = MustRun(R"(
HloModule m
ENTRY e {
  a = f32[2,1]{0,1} parameter(0)
  qr = (f32[2,1]{0,1}, f32[1]) custom-call(a), custom_call_target="lapack_sgeqrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={}
  r = f32[2,1]{0,1} get-tuple-element(qr), index=0
  tau = f32[1] get-tuple-element(qr), index=1
  q = f32[2,1]{0,1} custom-call(r, tau), custom_call_target="lapack_sorgqr_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={}
  ROOT t = (f32[2,1]{0,1}, f32[1], f32[2,1]{0,1}) tuple(r, tau, q)
})",
                      {Make<float>(F32, {2, 1}, {3, 4})});
  ExpectNear(q.tuple_elements()[0], {-5, 0.5}, 1e-6);
  ExpectNear(q.tuple_elements()[1], {1.6}, 1e-6);
  ExpectNear(q.tuple_elements()[2], {-0.6, -0.8}, 1e-6);
}

// gesdd without vectors (jnp.linalg.svd(compute_uv=False), norm(ord=2),
// matrix_rank, cond): singular values in descending order, tall, wide and
// complex; a matrix with a NaN is LAPACK's info -4 and NaN values.
TEST(LinalgTest, LapackGesddSingularValues) {
  Literal tall = MustRun(R"(
HloModule m
ENTRY e {
  a = f64[2,3,2]{1,2,0} parameter(0)
  ROOT svd = (f64[2,3,2]{1,2,0}, f64[2,2], f64[2,3,3]{1,2,0}, f64[2,2,2]{1,2,0}, s32[2]) custom-call(a), custom_call_target="lapack_dgesdd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 78 : ui8}
})",
                         {Make<double>(F64, {2, 3, 2},
                                       {1, 2, 3, 4, 5, 6, 0, 0, NAN, 1, 2, 3})});
  std::vector<double> s = Values<double>(tall.tuple_elements()[1]);
  EXPECT_NEAR(s[0], 9.52551809, 1e-8);
  EXPECT_NEAR(s[1], 0.51430058, 1e-8);
  EXPECT_TRUE(std::isnan(s[2]) && std::isnan(s[3]));
  EXPECT_EQ(Values<int32_t>(tall.tuple_elements()[4]),
            (std::vector<int32_t>{0, -4}));

  Literal wide = MustRun(R"(
HloModule m
ENTRY e {
  a = c64[2,3]{0,1} parameter(0)
  ROOT svd = (c64[2,3]{0,1}, f32[2], c64[2,2]{0,1}, c64[3,3]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_cgesdd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 78 : ui8}
})",
                         {Make<C>(C64, {2, 3},
                                  {C(1, 1), C(2, 0), C(0, 0), C(0, 0), C(0, 3),
                                   C(-1, 0)})});
  ExpectNear(wide.tuple_elements()[1], {3.78477943, 1.29438969}, 1e-6);

  // jnp.linalg.matrix_rank of a wide matrix sizes vt thin (k x n) and u
  // m x m, which is full and thin alike; the call was rejected ("result 3
  // is f32[2,3], expected f32[3,3]") on the evaluator and the cpu.
  Literal thin = MustRun(R"(
HloModule m
ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  ROOT svd = (f32[2,3]{0,1}, f32[2], f32[2,2]{0,1}, f32[2,3]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_sgesdd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 78 : ui8}
})",
                         {Make<float>(F32, {2, 3}, {3, 0, 0, 0, 0, -2})});
  ExpectNear(thin.tuple_elements()[1], {3, 2}, 1e-6);
}

TEST(LinalgTest, MalformedLapackCallsAreErrorsNamingTheCall) {
  absl::StatusOr<Literal> r =
      RunHlo(R"(
HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  ROOT c = (f32[2,3], s32[]) custom-call(a), custom_call_target="lapack_spotrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}
})",
             {Make<float>(F32, {2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("custom-call c (lapack_spotrf_ffi)"),
            absl::string_view::npos)
      << r.status();
  EXPECT_NE(r.status().message().find("not square"), absl::string_view::npos);
  r = RunHlo(R"(
HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  ROOT c = (f32[2,2], s32[]) custom-call(a), custom_call_target="lapack_spotrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 81 : ui8}
})",
             {Make<float>(F32, {2, 2}, {1, 0, 0, 1})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("attribute uplo = 81"),
            absl::string_view::npos)
      << r.status();
}

}  // namespace
}  // namespace eval_test
}  // namespace hloc

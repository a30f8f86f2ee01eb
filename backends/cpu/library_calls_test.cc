// fft, cholesky, triangular-solve and JAX's LAPACK custom calls on the CPU
// backend as host library calls (FFTW, LAPACK), against the evaluator's
// own implementations; the calls survive saving and loading; malformed
// ones are refused when compiling or loading.
#include "backends/cpu/library_calls.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"
#include "runtime/cpu_executor.h"
#include "runtime/executable.h"

namespace hloc {
namespace {

using testing_util::CheckAgainstEvaluator;
using testing_util::MakeOpInput;

// A batch of well-conditioned Hermitian positive definite matrices
// (x x^H + n I), or with `indefinite`, the first one's last pivot made
// negative.
Literal PositiveDefinite(PrimitiveType type, std::vector<int64_t> dims,
                         bool indefinite = false) {
  Literal literal(Shape::Array(type, dims));
  const int64_t n = dims.back();
  const int64_t batch = literal.element_count() / (n * n);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<complex128> x(n * n), a(n * n);
  for (int64_t b = 0; b < batch; ++b) {
    for (complex128& v : x) {
      v = IsComplexType(type) ? complex128(uniform(rng), uniform(rng))
                              : complex128(uniform(rng), 0);
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        complex128 s = i == j ? complex128(n, 0) : 0.0;
        for (int64_t k = 0; k < n; ++k)
          s += x[i * n + k] * std::conj(x[j * n + k]);
        a[i * n + j] = s;
      }
    }
    if (indefinite && b == 0) a[n * n - 1] = -1000.0;
    for (int64_t i = 0; i < n * n; ++i) {
      const int64_t at = b * n * n + i;
      if (type == C64) {
        literal.data<complex64>()[at] = complex64(a[i]);
      } else if (type == C128) {
        literal.data<complex128>()[at] = a[i];
      } else {
        literal.SetFromDouble(at, a[i].real());
      }
    }
  }
  return literal;
}

// Complex inputs (MakeOpInput makes real ones only).
Literal ComplexInput(PrimitiveType type, std::vector<int64_t> dims,
                     uint32_t seed) {
  Literal literal(Shape::Array(type, dims));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-2, 2);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const complex128 v(uniform(rng), uniform(rng));
    if (type == C64) {
      literal.data<complex64>()[i] = complex64(v);
    } else {
      literal.data<complex128>()[i] = v;
    }
  }
  return literal;
}

TEST(CpuLibraryCallTest, FftOfEveryTypeAndRank) {
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule fft
ENTRY e {
  x = c64[3,20] parameter(0)
  f = c64[3,20] fft(x), fft_type=FFT, fft_length={20}
  i = c64[3,20] fft(x), fft_type=IFFT, fft_length={20}
  ROOT t = (c64[3,20], c64[3,20]) tuple(f, i)
})",
                                    {ComplexInput(C64, {3, 20}, 1)})
                  .empty());
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule fft3
ENTRY e {
  x = c128[2,3,4,5]{0,1,2,3} parameter(0)
  ROOT f = c128[2,3,4,5]{3,1,2,0} fft(x), fft_type=IFFT, fft_length={3,4,5}
})",
                                    {ComplexInput(C128, {2, 3, 4, 5}, 2)})
                  .empty());
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule rfft
ENTRY e {
  x = f32[2,6,9] parameter(0)
  r = c64[2,6,5] fft(x), fft_type=RFFT, fft_length={6,9}
  i = f32[2,6,9] fft(r), fft_type=IRFFT, fft_length={6,9}
  ROOT t = (c64[2,6,5], f32[2,6,9]) tuple(r, i)
})")
                  .empty());
  // A random (not Hermitian) IRFFT input: the imaginary parts at
  // frequency 0 and n/2 are not read.
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule irfft
ENTRY e {
  x = c128[4,6] parameter(0)
  ROOT i = f64[4,10] fft(x), fft_type=IRFFT, fft_length={10}
})",
                                    {ComplexInput(C128, {4, 6}, 3)})
                  .empty());
}

TEST(CpuLibraryCallTest, CholeskyAndTriangularSolveOps) {
  for (bool indefinite : {false, true}) {
    EXPECT_TRUE(
        CheckAgainstEvaluator(R"(
HloModule cholesky
ENTRY e {
  a = f64[2,7,7] parameter(0)
  l = f64[2,7,7] cholesky(a), lower=true
  u = f64[2,7,7] cholesky(a), lower=false
  ROOT t = (f64[2,7,7], f64[2,7,7]) tuple(l, u)
})",
                              {PositiveDefinite(F64, {2, 7, 7}, indefinite)})
            .empty())
        << "indefinite " << indefinite;
  }
  for (const char* options :
       {"left_side=true, lower=true, unit_diagonal=false, "
        "transpose_a=NO_TRANSPOSE",
        "left_side=false, lower=false, unit_diagonal=true, "
        "transpose_a=TRANSPOSE",
        "left_side=true, lower=false, unit_diagonal=false, "
        "transpose_a=ADJOINT"}) {
    const bool left = absl::StrContains(options, "left_side=true");
    EXPECT_TRUE(
        CheckAgainstEvaluator(
            absl::StrCat(R"(
HloModule solve
ENTRY e {
  a = f32[2,5,5] parameter(0)
  b = f32[2,)",
                         left ? "5,3" : "3,5", R"(] parameter(1)
  ROOT x = f32[2,)",
                         left ? "5,3" : "3,5", R"(] triangular-solve(a, b), )",
                         options, "\n}"),
            {PositiveDefinite(F32, {2, 5, 5}),
             MakeOpInput(
                 Shape::Array(F32, left ? std::vector<int64_t>{2, 5, 3}
                                        : std::vector<int64_t>{2, 3, 5}),
                 5)})
            .empty())
        << options;
  }
}

TEST(CpuLibraryCallTest, JaxLapackCustomCalls) {
  // As JAX emits them: column-major operands and results.
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule potrf
ENTRY e {
  a = c64[2,6,6]{1,2,0} parameter(0)
  ROOT c = (c64[2,6,6]{1,2,0}, s32[2]) custom-call(a), custom_call_target="lapack_cpotrf_ffi", operand_layout_constraints={c64[2,6,6]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 85 : ui8}
})",
                                    {PositiveDefinite(C64, {2, 6, 6})})
                  .empty());
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule getrf_trsm
ENTRY e {
  a = f64[7,7]{0,1} parameter(0)
  b = f64[7,2]{0,1} parameter(1)
  lu = (f64[7,7]{0,1}, s32[7], s32[]) custom-call(a), custom_call_target="lapack_dgetrf_ffi", operand_layout_constraints={f64[7,7]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  f = f64[7,7]{0,1} get-tuple-element(lu), index=0
  x = f64[7,2]{0,1} custom-call(f, b), custom_call_target="lapack_dtrsm_ffi", operand_layout_constraints={f64[7,7]{0,1}, f64[7,2]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}
  ROOT t = ((f64[7,7]{0,1}, s32[7], s32[]), f64[7,2]{0,1}) tuple(lu, x)
})")
                  .empty());
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule qr
ENTRY e {
  a = f32[3,8,5]{1,2,0} parameter(0)
  qr = (f32[3,8,5]{1,2,0}, f32[3,5]) custom-call(a), custom_call_target="lapack_sgeqrf_ffi", operand_layout_constraints={f32[3,8,5]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  r = f32[3,8,5]{1,2,0} get-tuple-element(qr), index=0
  tau = f32[3,5] get-tuple-element(qr), index=1
  q = f32[3,8,5]{1,2,0} custom-call(r, tau), custom_call_target="lapack_sorgqr_ffi", operand_layout_constraints={f32[3,8,5]{1,2,0}, f32[3,5]}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  ROOT t = (f32[3,8,5]{1,2,0}, f32[3,5], f32[3,8,5]{1,2,0}) tuple(r, tau, q)
})")
                  .empty());
}

// syevd has no evaluator counterpart (eigenvectors are defined up to
// sign): check A v = w v and orthonormal v instead.
TEST(CpuLibraryCallTest, SyevdEigenpairs) {
  auto module = ParseHloModule(R"(
HloModule eigh
ENTRY e {
  a = f64[6,6]{0,1} parameter(0)
  ROOT c = (f64[6,6]{0,1}, f64[6], s32[]) custom-call(a), custom_call_target="lapack_dsyevd_ffi", operand_layout_constraints={f64[6,6]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, uplo = 76 : ui8}
})",
                               "eigh");
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = CompileForCpu(**module);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_TRUE((*executable)->fallback_instructions().empty());
  const Literal a = PositiveDefinite(F64, {6, 6});
  absl::StatusOr<Literal> result = (*executable)->Run({a});
  ASSERT_TRUE(result.ok()) << result.status();
  const Literal& v = result->tuple_elements()[0];
  const Literal& w = result->tuple_elements()[1];
  EXPECT_EQ(result->tuple_elements()[2].GetAsInt64(0), 0);
  for (int64_t k = 0; k < 6; ++k) {
    if (k > 0) {
      EXPECT_LE(w.GetAsDouble(k - 1), w.GetAsDouble(k));
    }
    for (int64_t i = 0; i < 6; ++i) {
      double av = 0;
      for (int64_t j = 0; j < 6; ++j) {
        av += a.GetAsDouble(i * 6 + j) * v.GetAsDouble(j * 6 + k);
      }
      EXPECT_NEAR(av, w.GetAsDouble(k) * v.GetAsDouble(i * 6 + k), 1e-10);
    }
    double norm = 0;
    for (int64_t i = 0; i < 6; ++i)
      norm += std::pow(v.GetAsDouble(i * 6 + k), 2);
    EXPECT_NEAR(norm, 1, 1e-12);
  }
}

// The Householder reductions, ormqr and gtsv are deterministic: LAPACK's
// blocked routines against the evaluator's unblocked ones.
TEST(CpuLibraryCallTest, ReductionsAndSolvesMatchTheEvaluator) {
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule gehrd
ENTRY e {
  a = f64[2,7,7]{1,2,0} parameter(0)
  ROOT h = (f64[2,7,7]{1,2,0}, f64[2,6], s32[2]) custom-call(a), custom_call_target="lapack_dgehrd_ffi", operand_layout_constraints={f64[2,7,7]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={high = 7 : i32, low = 1 : i32}
})")
                  .empty());
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule gehrd
ENTRY e {
  a = c64[6,6]{0,1} parameter(0)
  ROOT h = (c64[6,6]{0,1}, c64[5], s32[]) custom-call(a), custom_call_target="lapack_cgehrd_ffi", operand_layout_constraints={c64[6,6]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={high = 5 : i32, low = 2 : i32}
})",
                                    {ComplexInput(C64, {6, 6}, 5)})
                  .empty());
  for (const char* uplo : {"76", "85"}) {
    EXPECT_TRUE(CheckAgainstEvaluator(absl::StrCat(R"(
HloModule sytrd
ENTRY e {
  a = f32[2,6,6]{1,2,0} parameter(0)
  ROOT t = (f32[2,6,6]{1,2,0}, f32[2,6], f32[2,5], f32[2,5], s32[2]) custom-call(a), custom_call_target="lapack_ssytrd_ffi", operand_layout_constraints={f32[2,6,6]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = )",
                                                   uplo, R"( : ui8}
})"),
                                      {PositiveDefinite(F32, {2, 6, 6})})
                    .empty())
        << uplo;
    EXPECT_TRUE(CheckAgainstEvaluator(absl::StrCat(R"(
HloModule hetrd
ENTRY e {
  a = c128[5,5]{0,1} parameter(0)
  ROOT t = (c128[5,5]{0,1}, f64[5], f64[4], c128[4], s32[]) custom-call(a), custom_call_target="lapack_zhetrd_ffi", operand_layout_constraints={c128[5,5]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = )",
                                                   uplo, R"( : ui8}
})"),
                                      {PositiveDefinite(C128, {5, 5})})
                    .empty())
        << uplo;
  }
  for (const char* config :
       {"left = true, transpose = false", "left = true, transpose = true"}) {
    EXPECT_TRUE(CheckAgainstEvaluator(absl::StrCat(R"(
HloModule ormqr
ENTRY e {
  a = c64[2,6,3]{1,2,0} parameter(0)
  c = c64[2,6,4]{1,2,0} parameter(1)
  qr = (c64[2,6,3]{1,2,0}, c64[2,3]) custom-call(a), custom_call_target="lapack_cgeqrf_ffi", operand_layout_constraints={c64[2,6,3]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  r = c64[2,6,3]{1,2,0} get-tuple-element(qr), index=0
  tau = c64[2,3] get-tuple-element(qr), index=1
  ROOT x = c64[2,6,4]{1,2,0} custom-call(r, tau, c), custom_call_target="lapack_cunmqr_ffi", operand_layout_constraints={c64[2,6,3]{1,2,0}, c64[2,3], c64[2,6,4]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={)",
                                                   config, R"(}
})"),
                                      {ComplexInput(C64, {2, 6, 3}, 8),
                                       ComplexInput(C64, {2, 6, 4}, 9)})
                    .empty())
        << config;
  }
  for (const char* config :
       {"left = false, transpose = false", "left = false, transpose = true"}) {
    EXPECT_TRUE(CheckAgainstEvaluator(absl::StrCat(R"(
HloModule ormqr
ENTRY e {
  a = f64[5,5]{0,1} parameter(0)
  c = f64[3,5]{0,1} parameter(1)
  qr = (f64[5,5]{0,1}, f64[5]) custom-call(a), custom_call_target="lapack_dgeqrf_ffi", operand_layout_constraints={f64[5,5]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  r = f64[5,5]{0,1} get-tuple-element(qr), index=0
  tau = f64[5] get-tuple-element(qr), index=1
  ROOT x = f64[3,5]{0,1} custom-call(r, tau, c), custom_call_target="lapack_dormqr_ffi", operand_layout_constraints={f64[5,5]{0,1}, f64[5], f64[3,5]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={)",
                                                   config, R"(}
})"))
                    .empty())
        << config;
  }
  // Diagonally dominant, and not: row interchanges both ways.
  for (const char* shift : {"4", "0"}) {
    EXPECT_TRUE(CheckAgainstEvaluator(absl::StrCat(R"(
HloModule gtsv
ENTRY e {
  dl = f32[3,9] parameter(0)
  d0 = f32[3,9] parameter(1)
  du = f32[3,9] parameter(2)
  b = f32[3,9,2]{1,2,0} parameter(3)
  k = f32[] constant()",
                                                   shift, R"()
  s = f32[3,9] broadcast(k), dimensions={}
  d = f32[3,9] add(d0, s)
  ROOT x = (f32[3,9], f32[3,9], f32[3,9], f32[3,9,2]{1,2,0}, s32[3]) custom-call(dl, d, du, b), custom_call_target="lapack_sgtsv_ffi", operand_layout_constraints={f32[3,9], f32[3,9], f32[3,9], f32[3,9,2]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
})"))
                    .empty())
        << shift;
  }
}

// gesdd, geev and gees choose signs (phases) of their vectors: check what
// is defined instead (A = U S V^H, A V = V W, A = Z T Z^H).
TEST(CpuLibraryCallTest, SvdEigSchurInvariants) {
  auto run = [](const std::string& text, const Literal& a) {
    auto module = ParseHloModule(text, "t");
    EXPECT_TRUE(module.ok()) << module.status();
    auto executable = CompileForCpu(**module);
    EXPECT_TRUE(executable.ok()) << executable.status();
    EXPECT_TRUE((*executable)->fallback_instructions().empty());
    absl::StatusOr<Literal> result = (*executable)->Run({a});
    EXPECT_TRUE(result.ok()) << result.status();
    return std::move(*result);
  };
  auto at = [](const Literal& l, int64_t i) {
    return l.shape().element_type() == C64 ? complex128(l.data<complex64>()[i])
                                           : complex128(l.GetAsDouble(i), 0);
  };
  // Batched thin c64 SVD of 2 x (5 x 3).
  const Literal a = ComplexInput(C64, {2, 5, 3}, 4);
  Literal svd = run(R"(
HloModule svd
ENTRY e {
  a = c64[2,5,3]{1,2,0} parameter(0)
  ROOT s = (c64[2,5,3]{1,2,0}, f32[2,3], c64[2,5,3]{1,2,0}, c64[2,3,3]{1,2,0}, s32[2]) custom-call(a), custom_call_target="lapack_cgesdd_ffi", operand_layout_constraints={c64[2,5,3]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = 83 : ui8}
})",
                    a);
  for (int64_t b = 0; b < 2; ++b) {
    EXPECT_EQ(svd.tuple_elements()[4].GetAsInt64(b), 0);
    for (int64_t i = 0; i < 5; ++i) {
      for (int64_t j = 0; j < 3; ++j) {
        complex128 x = 0;
        for (int64_t k = 0; k < 3; ++k) {
          x += at(svd.tuple_elements()[2], b * 15 + i * 3 + k) *
               at(svd.tuple_elements()[1], b * 3 + k) *
               at(svd.tuple_elements()[3], b * 9 + k * 3 + j);
        }
        EXPECT_LT(std::abs(x - at(a, b * 15 + i * 3 + j)), 1e-4);
      }
    }
    EXPECT_GE(svd.tuple_elements()[1].GetAsDouble(b * 3),
              svd.tuple_elements()[1].GetAsDouble(b * 3 + 1));
  }
  // Real geev: complex pairs unpacked into columns v, conj(v).
  const Literal g = MakeOpInput(Shape::Array(F32, {6, 6}), 11);
  Literal eig = run(R"(
HloModule eig
ENTRY e {
  a = f32[6,6]{0,1} parameter(0)
  ROOT r = (f32[6], f32[6], c64[6,6]{0,1}, c64[6,6]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_sgeev_ffi", operand_layout_constraints={f32[6,6]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={compute_left = 78 : ui8, compute_right = 86 : ui8}
})",
                    g);
  EXPECT_EQ(eig.tuple_elements()[4].GetAsInt64(0), 0);
  for (int64_t k = 0; k < 6; ++k) {
    const complex128 w(eig.tuple_elements()[0].GetAsDouble(k),
                       eig.tuple_elements()[1].GetAsDouble(k));
    for (int64_t i = 0; i < 6; ++i) {
      complex128 av = 0;
      for (int64_t j = 0; j < 6; ++j) {
        av += at(g, i * 6 + j) * at(eig.tuple_elements()[3], j * 6 + k);
      }
      EXPECT_LT(std::abs(av - w * at(eig.tuple_elements()[3], i * 6 + k)),
                1e-4);
      // Left eigenvectors were not asked for.
      EXPECT_EQ(at(eig.tuple_elements()[2], i * 6 + k), 0.0);
    }
  }
  // Real Schur form: A = Z T Z^T, T zero below its first sub-diagonal.
  Literal schur = run(R"(
HloModule schur
ENTRY e {
  a = f32[6,6]{0,1} parameter(0)
  ROOT r = (f32[6,6]{0,1}, f32[6,6]{0,1}, f32[6], f32[6], s32[], s32[]) custom-call(a), custom_call_target="lapack_sgees_ffi", operand_layout_constraints={f32[6,6]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, sort = 78 : ui8}
})",
                      g);
  const Literal& t = schur.tuple_elements()[0];
  const Literal& z = schur.tuple_elements()[1];
  EXPECT_EQ(schur.tuple_elements()[5].GetAsInt64(0), 0);
  for (int64_t i = 0; i < 6; ++i) {
    for (int64_t j = 0; j < 6; ++j) {
      if (i > j + 1) EXPECT_EQ(t.GetAsDouble(i * 6 + j), 0.0);
      double x = 0;
      for (int64_t k = 0; k < 6; ++k) {
        for (int64_t l = 0; l < 6; ++l) {
          x += z.GetAsDouble(i * 6 + k) * t.GetAsDouble(k * 6 + l) *
               z.GetAsDouble(j * 6 + l);
        }
      }
      EXPECT_NEAR(x, g.GetAsDouble(i * 6 + j), 1e-4);
    }
  }
}

TEST(CpuLibraryCallTest, StepsAreLibraryCallsAndSurviveSaving) {
  auto module = ParseHloModule(R"(
HloModule saved
ENTRY e {
  x = c64[4,8] parameter(0)
  a = f32[5,5]{0,1} parameter(1)
  f = c64[4,8] fft(x), fft_type=FFT, fft_length={4,8}
  c = (f32[5,5]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_spotrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}
  ROOT t = (c64[4,8], (f32[5,5]{0,1}, s32[])) tuple(f, c)
})",
                               "saved");
  ASSERT_TRUE(module.ok()) << module.status();
  CpuCompileOptions options;
  options.keep_executable = true;
  auto executable = CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  int64_t library_steps = 0;
  for (const CpuStep& step : (*executable)->steps()) {
    library_steps += step.kind == CpuStep::Kind::kLibraryCall;
  }
  EXPECT_EQ(library_steps, 2);
  const std::string description =
      DescribeExecutable((*executable)->executable());
  EXPECT_TRUE(absl::StrContains(description, "library-call fft f ("))
      << description;
  EXPECT_TRUE(absl::StrContains(description, "FFT fft_length={4,8}"))
      << description;
  EXPECT_TRUE(absl::StrContains(description, "lapack.potrf c")) << description;

  absl::StatusOr<std::string> bytes =
      SerializeExecutable((*executable)->executable());
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<Executable> loaded = DeserializeExecutable(*bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const std::vector<Literal> args = {ComplexInput(C64, {4, 8}, 4),
                                     PositiveDefinite(F32, {5, 5})};
  absl::StatusOr<Literal> direct = (*executable)->Run(args);
  ASSERT_TRUE(direct.ok()) << direct.status();
  // Library calls need no kernels: the loaded executable runs without any
  // object code resolved.
  absl::StatusOr<std::unique_ptr<CpuExecutor>> executor = CpuExecutor::Create(
      *std::move(loaded),
      [](const std::string& symbol) -> absl::StatusOr<void*> {
        return absl::NotFoundError(symbol);
      });
  ASSERT_TRUE(executor.ok()) << executor.status();
  absl::StatusOr<Literal> reloaded = (*executor)->Run(args);
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_EQ(*direct, *reloaded);
}

TEST(CpuLibraryCallTest, MalformedCallsAreRefused) {
  auto module = ParseHloModule(R"(
HloModule bad
ENTRY e {
  a = f32[3,3] parameter(0)
  ROOT c = (f32[3,3], s32[]) custom-call(a), custom_call_target="lapack_spotrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 90 : ui8}
})",
                               "bad");
  ASSERT_TRUE(module.ok()) << module.status();
  auto executable = CompileForCpu(**module);
  ASSERT_FALSE(executable.ok());
  EXPECT_TRUE(absl::StrContains(executable.status().message(),
                                "custom-call c (lapack_spotrf_ffi)"))
      << executable.status();

  // Shapes that do not fit the convention, and gees' unsupported sort.
  for (const char* text : {
           R"(HloModule bad
ENTRY e {
  a = f32[4,3] parameter(0)
  ROOT c = (f32[4,3], f32[3], f32[4,3], f32[3,3], s32[]) custom-call(a), custom_call_target="lapack_sgesdd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 65 : ui8}
})",
           R"(HloModule bad
ENTRY e {
  a = f32[4,3] parameter(0)
  ROOT c = (f32[3], f32[3], c64[3,3], c64[3,3], s32[]) custom-call(a), custom_call_target="lapack_sgeev_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={compute_left = 78 : ui8, compute_right = 86 : ui8}
})",
           R"(HloModule bad
ENTRY e {
  a = f32[3,3] parameter(0)
  ROOT c = (f32[3,3], f32[3,3], f32[3], f32[3], s32[], s32[]) custom-call(a), custom_call_target="lapack_sgees_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, sort = 83 : ui8}
})",
           R"(HloModule bad
ENTRY e {
  a = f32[3,3] parameter(0)
  ROOT c = (f32[3,3], f32[2], s32[]) custom-call(a), custom_call_target="lapack_sgehrd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={high = 4 : i32, low = 1 : i32}
})",
           R"(HloModule bad
ENTRY e {
  a = f32[5,3] parameter(0)
  t = f32[3] parameter(1)
  c = f32[4,2] parameter(2)
  ROOT x = f32[4,2] custom-call(a, t, c), custom_call_target="lapack_sormqr_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={left = true, transpose = false}
})",
           R"(HloModule bad
ENTRY e {
  dl = f32[4] parameter(0)
  d = f32[5] parameter(1)
  du = f32[4] parameter(2)
  b = f32[4,1] parameter(3)
  ROOT x = (f32[4], f32[5], f32[4], f32[4,1], s32[]) custom-call(dl, d, du, b), custom_call_target="lapack_sgtsv_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={}
})"}) {
    auto bad = ParseHloModule(text, "bad");
    ASSERT_TRUE(bad.ok()) << bad.status();
    auto compiled = CompileForCpu(**bad);
    ASSERT_FALSE(compiled.ok()) << text;
    EXPECT_TRUE(absl::StrContains(compiled.status().message(), "custom-call"))
        << compiled.status();
  }

  // A loaded executable whose fft step does not fit its slots.
  module = ParseHloModule(R"(
HloModule fft
ENTRY e {
  x = c64[8] parameter(0)
  ROOT f = c64[8] fft(x), fft_type=FFT, fft_length={8}
})",
                          "fft");
  ASSERT_TRUE(module.ok()) << module.status();
  CpuCompileOptions options;
  options.keep_executable = true;
  auto good = CompileForCpu(**module, options);
  ASSERT_TRUE(good.ok()) << good.status();
  Executable broken = (*good)->executable();
  broken.steps[0].library_config.fft_length = {6};
  absl::StatusOr<std::unique_ptr<CpuExecutor>> executor = CpuExecutor::Create(
      broken, [](const std::string& symbol) -> absl::StatusOr<void*> {
        return absl::NotFoundError(symbol);
      });
  ASSERT_FALSE(executor.ok());
  EXPECT_TRUE(
      absl::StrContains(executor.status().message(), "library step 0 (fft f)"))
      << executor.status();
  broken.steps[0].library = "lapack.gesvd";
  executor = CpuExecutor::Create(
      broken, [](const std::string& symbol) -> absl::StatusOr<void*> {
        return absl::NotFoundError(symbol);
      });
  ASSERT_FALSE(executor.ok());
  EXPECT_TRUE(absl::StrContains(executor.status().message(),
                                "unknown CPU library call 'lapack.gesvd'"))
      << executor.status();
}

TEST(CpuLibraryCallTest, CustomCallTargetsListed) {
  const std::vector<std::string> targets = CpuLibraryCustomCallTargets();
  for (const char* target :
       {"lapack_spotrf_ffi", "lapack_zpotrf_ffi", "lapack_dtrsm_ffi",
        "lapack_cgetrf_ffi", "lapack_sgeqrf_ffi", "lapack_zungqr_ffi",
        "lapack_dsyevd_ffi", "lapack_cheevd_ffi", "lapack_sgesdd_ffi",
        "lapack_zgeev_ffi",  "lapack_cgees_ffi",  "lapack_dgehrd_ffi",
        "lapack_chetrd_ffi", "lapack_zunmqr_ffi", "lapack_sgtsv_ffi",
        "lapack_dgeqp3_ffi", "cuhybrid_eig_real", "cuhybrid_eig_comp",
        "cuhybrid_geqp3",    "cusolver_geev_ffi", "cusolver_sytrd_ffi"}) {
    EXPECT_NE(std::find(targets.begin(), targets.end(), target), targets.end())
        << target;
  }
  // 14 routines in 4 types, and the 5 host calls of the CUDA lowering.
  EXPECT_EQ(targets.size(), 61u);
}

}  // namespace
}  // namespace hloc

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
        "lapack_dsyevd_ffi", "lapack_cheevd_ffi"}) {
    EXPECT_NE(std::find(targets.begin(), targets.end(), target), targets.end())
        << target;
  }
  EXPECT_EQ(targets.size(), 24u);
}

}  // namespace
}  // namespace hloc

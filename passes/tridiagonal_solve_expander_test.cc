// tridiagonal-solve-expander: the cyclic reduction's solutions against the
// Thomas algorithm (substitution, in the test) for every size from 1 to
// 17 equations (one, two and several stages, powers of two and one past
// them), batched, several right-hand sides, dl[0] and du[n-1] holding
// values the solve must ignore; a malformed call is a clear error.
// tests/jax/cuda_lowering_test.py runs JAX's own calls against LAPACK.
#include "passes/tridiagonal_solve_expander.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

std::string Module(int64_t batch, int64_t n, int64_t k) {
  const std::string v = absl::StrCat("f64[", batch, ",", n, "]");
  const std::string m = absl::StrCat("f64[", batch, ",", n, ",", k, "]");
  return absl::StrCat(
      "HloModule m\nENTRY e {\n  dl = ", v, " parameter(0)\n  d = ", v,
      " parameter(1)\n  du = ", v, " parameter(2)\n  b = ", m,
      " parameter(3)\n  ROOT x = ", m,
      " custom-call(dl, d, du, b), custom_call_target=\"cusparse_gtsv2_ffi\", "
      "api_version=API_VERSION_TYPED_FFI\n}\n");
}

TEST(TridiagonalSolveExpanderTest, MatchesSubstitution) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const int64_t batch = 2, k = 3;
  for (int64_t n = 1; n <= 17; ++n) {
    SCOPED_TRACE(absl::StrCat("n = ", n));
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseAndVerify(Module(batch, n, k));
    ASSERT_TRUE(module.ok()) << module.status();
    std::vector<double> dl(batch * n), d(batch * n), du(batch * n),
        b(batch * n * k);
    for (double& x : dl) x = uniform(rng);
    for (double& x : du) x = uniform(rng);
    for (double& x : d) x = 3.0 + uniform(rng);
    for (double& x : b) x = uniform(rng);
    std::vector<Literal> args;
    for (const std::vector<double>* values : {&dl, &d, &du}) {
      Literal literal(Shape::Array(F64, {batch, n}));
      for (size_t i = 0; i < values->size(); ++i) {
        literal.SetFromDouble(i, (*values)[i]);
      }
      args.push_back(std::move(literal));
    }
    Literal rhs(Shape::Array(F64, {batch, n, k}));
    for (size_t i = 0; i < b.size(); ++i) rhs.SetFromDouble(i, b[i]);
    args.push_back(std::move(rhs));
    TridiagonalSolveExpander pass;
    absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_TRUE(*changed);
    EXPECT_EQ(CountOpcode(**module, HloOpcode::kCustomCall), 0);
    absl::StatusOr<Literal> x = EvaluateModule(**module, args);
    ASSERT_TRUE(x.ok()) << x.status();
    // The Thomas algorithm per batch and column; dl[0], du[n-1] unread.
    for (int64_t p = 0; p < batch; ++p) {
      for (int64_t j = 0; j < k; ++j) {
        std::vector<double> c(n), r(n), expected(n);
        for (int64_t i = 0; i < n; ++i) {
          const double lower = i == 0 ? 0.0 : dl[p * n + i];
          const double upper = i == n - 1 ? 0.0 : du[p * n + i];
          const double pivot = d[p * n + i] - (i == 0 ? 0.0 : lower * c[i - 1]);
          c[i] = upper / pivot;
          r[i] = (b[(p * n + i) * k + j] - (i == 0 ? 0.0 : lower * r[i - 1])) /
                 pivot;
        }
        for (int64_t i = n - 1; i >= 0; --i) {
          expected[i] = r[i] - (i == n - 1 ? 0.0 : c[i] * expected[i + 1]);
        }
        for (int64_t i = 0; i < n; ++i) {
          EXPECT_NEAR(x->GetAsDouble((p * n + i) * k + j), expected[i], 1e-12)
              << "batch " << p << " row " << i << " column " << j;
        }
      }
    }
  }
}

TEST(TridiagonalSolveExpanderTest, MalformedCallIsAnError) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(
      "HloModule m\nENTRY e {\n  d = f32[8] parameter(0)\n  b = f32[8,2] "
      "parameter(1)\n  ROOT x = f32[8,2] custom-call(d, b), "
      "custom_call_target=\"cusparse_gtsv2_ffi\"\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  TridiagonalSolveExpander pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("(dl, d, du, b)"),
            std::string::npos)
      << changed.status();
}

}  // namespace
}  // namespace hloc

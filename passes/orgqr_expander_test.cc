// orgqr-expander: the loop's Q against the Householder product computed
// here (reflector by reflector, in double or complex<double>) for real and
// complex batches, square, tall and k < n; calls it must leave to cuSOLVER
// (one matrix, too many columns, no reflectors, another target) stay
// calls.
#include "passes/orgqr_expander.h"

#include <complex>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

using Complex = std::complex<double>;

std::string Module(const std::string& type, int64_t batch, int64_t m, int64_t n,
                   int64_t k,
                   const std::string& target = "cusolver_orgqr_ffi") {
  const std::string a = absl::StrCat(type, "[", batch, ",", m, ",", n, "]");
  const std::string tau = absl::StrCat(type, "[", batch, ",", k, "]");
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", a,
                      " parameter(0)\n  tau = ", tau,
                      " parameter(1)\n  ROOT q = ", a,
                      " custom-call(a, tau), custom_call_target=\"", target,
                      "\", api_version=API_VERSION_TYPED_FFI\n}\n");
}

// Q = H_0 ... H_{k-1} I[:, :n] of one matrix (row-major m x n here), as
// LAPACK's orgqr defines it.
std::vector<Complex> Householder(const std::vector<Complex>& a,
                                 const std::vector<Complex>& tau, int64_t m,
                                 int64_t n, int64_t k) {
  std::vector<Complex> q(m * n, 0.0);
  for (int64_t r = 0; r < n; ++r) q[r * n + r] = 1.0;
  for (int64_t i = k - 1; i >= 0; --i) {
    std::vector<Complex> v(m, 0.0);
    v[i] = 1.0;
    for (int64_t r = i + 1; r < m; ++r) v[r] = a[r * n + i];
    for (int64_t c = 0; c < n; ++c) {
      Complex w = 0.0;
      for (int64_t r = 0; r < m; ++r) w += std::conj(v[r]) * q[r * n + c];
      for (int64_t r = 0; r < m; ++r) q[r * n + c] -= tau[i] * v[r] * w;
    }
  }
  return q;
}

void ExpectMatchesHouseholder(bool complex, int64_t batch, int64_t m, int64_t n,
                              int64_t k) {
  SCOPED_TRACE(absl::StrCat(complex ? "c128" : "f64", " batch ", batch, " ", m,
                            "x", n, " k ", k));
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(Module(complex ? "c128" : "f64", batch, m, n, k));
  ASSERT_TRUE(module.ok()) << module.status();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  auto draw = [&] {
    return complex ? Complex(uniform(rng), uniform(rng))
                   : Complex(uniform(rng));
  };
  std::vector<Complex> a(batch * m * n), tau(batch * k);
  for (Complex& x : a) x = draw();
  for (Complex& x : tau) x = draw();
  const PrimitiveType type = complex ? C128 : F64;
  Literal a_literal(Shape::Array(type, {batch, m, n}));
  Literal tau_literal(Shape::Array(type, {batch, k}));
  auto fill = [complex](Literal& literal, const std::vector<Complex>& values) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (complex) {
        literal.data<complex128>()[i] = values[i];
      } else {
        literal.SetFromDouble(i, values[i].real());
      }
    }
  };
  fill(a_literal, a);
  fill(tau_literal, tau);
  OrgqrExpander pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kCustomCall), 0);
  std::vector<Literal> args;
  args.push_back(std::move(a_literal));
  args.push_back(std::move(tau_literal));
  absl::StatusOr<Literal> q = EvaluateModule(**module, args);
  ASSERT_TRUE(q.ok()) << q.status();
  for (int64_t b = 0; b < batch; ++b) {
    const std::vector<Complex> expected = Householder(
        std::vector<Complex>(a.begin() + b * m * n,
                             a.begin() + (b + 1) * m * n),
        std::vector<Complex>(tau.begin() + b * k, tau.begin() + (b + 1) * k), m,
        n, k);
    for (int64_t i = 0; i < m * n; ++i) {
      const Complex got = q->GetAsComplex(b * m * n + i);
      EXPECT_NEAR(std::abs(got - expected[i]), 0.0, 1e-12)
          << "matrix " << b << " element " << i;
    }
  }
}

TEST(OrgqrExpanderTest, MatchesTheHouseholderProduct) {
  ExpectMatchesHouseholder(false, 3, 4, 4, 4);
  ExpectMatchesHouseholder(false, 2, 7, 3, 3);
  ExpectMatchesHouseholder(false, 5, 6, 5, 2);
  ExpectMatchesHouseholder(true, 3, 5, 5, 5);
  ExpectMatchesHouseholder(true, 2, 6, 4, 3);
}

TEST(OrgqrExpanderTest, LeavesCallsForCusolver) {
  for (const std::string& text :
       {Module("f32", 1, 8, 8, 8), Module("f32", 2, 80, 65, 65),
        Module("f32", 2, 3, 3, 0),
        Module("f32", 2, 8, 8, 8, "lapack_sorgqr_ffi")}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
    ASSERT_TRUE(module.ok()) << module.status();
    OrgqrExpander pass;
    absl::StatusOr<bool> changed = pass.Run(module->get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_FALSE(*changed) << text;
  }
}

}  // namespace
}  // namespace hloc

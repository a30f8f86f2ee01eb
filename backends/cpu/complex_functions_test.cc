// The complex functions of backends/common that have accurate algorithms
// (asin, acos, asinh, acosh, atan, atanh, sinh, cosh, logistic, power,
// atan2, expm1, log1p), compiled strictly for the CPU and compared with the
// evaluator at ordinary points and where textbook formulas fail: on and
// beside the branch cuts (with both signs of a zero part, which pick the
// side of the cut), near the branch points +-1 and +-i, and at small
// arguments whose result would cancel. The bound is normwise, a few ulps of
// |result|, much tighter than the runtime's default tolerance.
#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_compiler.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace {

// Points where each function's textbook formula loses digits or its sign.
std::vector<std::complex<double>> Points() {
  const double z = 0.0;
  std::vector<std::complex<double>> p = {
      {0.5, 0.25}, {-1.5, 2.0}, {3.0, -0.75}, {-0.3, -3.5},
      // Branch cuts of asin/acos/atanh (real axis beyond +-1) and of
      // asinh/atan (imaginary axis beyond +-i), both sides.
      {2.0, z}, {2.0, -z}, {-2.0, z}, {-2.0, -z}, {z, 2.0}, {-z, 2.0},
      {z, -2.0}, {-z, -2.0},
      // Near the branch points and the unit circle.
      {1.0, 1e-5}, {-1.0, -1e-5}, {1e-5, 1.0}, {0.999, 0.01},
      {0.6, 0.8}, {1.0 + 1e-6, z},
      // Small arguments: results ~ z (or 1 - z) that cancel when computed
      // as differences.
      {1e-3, z}, {1e-4, 1e-4}, {-2e-5, 3e-3}, {z, 1e-3},
      // Large but finite; e^89 overflows f32 where cosh(89) cos(0.5) does
      // not, and e^(a + log 1/2) would round a first (8 ulps at a = 10.5).
      {1e5, -3e4}, {-7e6, 2.0}, {10.5, 0.3}, {-30.0, 1.0}, {89.0, 0.5}};
  return p;
}

double Eps(PrimitiveType t) {
  return t == C64 ? std::numeric_limits<float>::epsilon()
                  : std::numeric_limits<double>::epsilon();
}

Literal ComplexLiteral(PrimitiveType t,
                       const std::vector<std::complex<double>>& values) {
  Literal literal(Shape::Array(t, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) {
    if (t == C64) {
      literal.data<complex64>()[i] = complex64(values[i]);
    } else {
      literal.data<complex128>()[i] = values[i];
    }
  }
  return literal;
}

std::complex<double> At(const Literal& l, int64_t i) {
  if (l.shape().element_type() == C64) {
    return std::complex<double>(l.data<complex64>()[i]);
  }
  return l.data<complex128>()[i];
}

// Runs `op` on the points (`rhs` gives power and atan2 their second
// operand) and expects |got - want| <= ulps eps |want| per element (or
// equal values, for infinities). With `signs`, the imaginary parts' signs
// must match too.
void Check(const std::string& op, PrimitiveType t, double ulps, bool signs,
           const std::vector<std::complex<double>>& lhs,
           const std::vector<std::complex<double>>& rhs = {}) {
  const std::string type = absl::StrCat(
      t == C64 ? "c64" : "c128", "[", lhs.size(), "]");
  std::string text = absl::StrCat("HloModule m\nENTRY e {\n  x = ", type,
                                   " parameter(0)\n");
  std::vector<Literal> args;
  args.push_back(ComplexLiteral(t, lhs));
  if (rhs.empty()) {
    absl::StrAppend(&text, "  ROOT r = ", type, " ", op, "(x)\n}\n");
  } else {
    absl::StrAppend(&text, "  y = ", type, " parameter(1)\n  ROOT r = ", type,
                    " ", op, "(x, y)\n}\n");
    args.push_back(ComplexLiteral(t, rhs));
  }
  SCOPED_TRACE(text);
  auto module = ParseHloModule(text, "test");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Literal> want = EvaluateModule(**module, args);
  ASSERT_TRUE(want.ok()) << want.status();
  CpuCompileOptions options;
  options.allow_fallback = false;
  auto executable = CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  absl::StatusOr<Literal> got = (*executable)->Run(args, DenormalMode::kKeep);
  ASSERT_TRUE(got.ok()) << got.status();
  for (size_t i = 0; i < lhs.size(); ++i) {
    const std::complex<double> g = At(*got, i), w = At(*want, i);
    EXPECT_TRUE(g == w || std::abs(g - w) <= ulps * Eps(t) * std::abs(w))
        << op << " at " << lhs[i] << (rhs.empty() ? "" : " and ")
        << (rhs.empty() ? "" : absl::StrCat(rhs[i].real(), "+", rhs[i].imag(),
                                            "i"))
        << ": got " << g << ", want " << w;
    // The side of a branch cut is the sign of the zero part: compare signs
    // exactly, not just magnitudes.
    if (!signs) continue;
    EXPECT_EQ(std::signbit(g.imag()), std::signbit(w.imag()))
        << op << " at " << lhs[i] << ": got " << g << ", want " << w;
  }
}

class ComplexFunctionsTest : public ::testing::TestWithParam<PrimitiveType> {};

TEST_P(ComplexFunctionsTest, InverseFunctionsAtBranchCuts) {
  for (const char* op : {"asin", "acos", "asinh", "acosh", "atan", "atanh"}) {
    Check(op, GetParam(), 4, /*signs=*/true, Points());
  }
}

TEST_P(ComplexFunctionsTest, HyperbolicAndLogistic) {
  for (const char* op : {"sinh", "cosh", "logistic"}) {
    Check(op, GetParam(), 4, /*signs=*/false, Points());
  }
}

// expm1 and log1p near 0 (and log1p(-1) = -inf): exp(z) - 1 and log(1 + z)
// lose the small results.
TEST_P(ComplexFunctionsTest, Expm1AndLog1pOfSmallArguments) {
  const std::vector<std::complex<double>> small = {
      {1e-3, 0.0}, {1e-4, 1e-4}, {-2e-5, 3e-3}, {0.08, -0.05}, {0.5, 1.0}};
  Check("exponential-minus-one", GetParam(), 4, /*signs=*/true, small);
  Check("log-plus-one", GetParam(), 4, /*signs=*/true, small);
  const std::string type = GetParam() == C64 ? "c64" : "c128";
  auto module = ParseHloModule(
      absl::StrCat("HloModule m\nENTRY e {\n  x = ", type,
                   "[1] parameter(0)\n  ROOT r = ", type,
                   "[1] log-plus-one(x)\n}\n"),
      "test");
  ASSERT_TRUE(module.ok());
  std::vector<Literal> args;
  args.push_back(ComplexLiteral(GetParam(), {{-1.0, 0.0}}));
  CpuCompileOptions options;
  options.allow_fallback = false;
  auto executable = CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  absl::StatusOr<Literal> got = (*executable)->Run(args, DenormalMode::kKeep);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(At(*got, 0), std::complex<double>(
                             -std::numeric_limits<double>::infinity(), 0.0));
}

// power's rounding error grows with |w log z| (the exponent is rounded
// before it is exponentiated, in any implementation): moderate exponents,
// and XLA's values at the special bases 0, 1 and +inf.
TEST_P(ComplexFunctionsTest, PowerAndAtan2) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::complex<double>> base = {
      {0.5, 0.25}, {-1.5, 0.5}, {2.0, -0.75}, {0.0, 0.0}, {0.0, 0.0},
      {1.0, 0.0}, {inf, 0.0}, {inf, 0.0}, {-0.3, -1.5}};
  const std::vector<std::complex<double>> exponent = {
      {0.5, -0.3}, {2.0, 0.0}, {-1.0, 0.25}, {2.0, 0.0}, {0.0, 0.0},
      {0.7, -3.0}, {2.0, 0.0}, {-2.0, 0.0}, {0.25, 0.5}};
  Check("power", GetParam(), 8, /*signs=*/false, base, exponent);
  const std::vector<std::complex<double>> y = {
      {1.0, 1.0}, {-0.5, 0.25}, {2.0, 0.0}, {0.3, -1.2}};
  const std::vector<std::complex<double>> x = {
      {2.0, -1.0}, {1.5, 0.5}, {1.0, 0.0}, {-0.7, 0.4}};
  Check("atan2", GetParam(), 8, /*signs=*/false, y, x);
}

INSTANTIATE_TEST_SUITE_P(Types, ComplexFunctionsTest,
                         ::testing::Values(C64, C128),
                         [](const ::testing::TestParamInfo<PrimitiveType>& i) {
                           return std::string(PrimitiveTypeName(i.param));
                         });

}  // namespace
}  // namespace hloc

// Helpers for the evaluator's tests: run HLO text, build and read literals,
// compare floats bit-exactly (NaN matches any NaN, the sign of zero counts).
#ifndef HLO_EVALUATOR_TEST_UTIL_H_
#define HLO_EVALUATOR_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/literal.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace eval_test {

// Parses `hlo` (a whole module) and evaluates its entry on `args`.
inline absl::StatusOr<Literal> RunHlo(absl::string_view hlo,
                                      const std::vector<Literal>& args = {}) {
  auto module = ParseHloModule(hlo, "test.hlo");
  if (!module.ok()) return module.status();
  return EvaluateModule(**module, args);
}

// Runs and fails the test on error.
inline Literal MustRun(absl::string_view hlo,
                       const std::vector<Literal>& args = {}) {
  absl::StatusOr<Literal> result = RunHlo(hlo, args);
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return Literal();
  return std::move(*result);
}

template <typename T>
Literal Make(PrimitiveType type, std::vector<int64_t> dims,
             const std::vector<T>& values) {
  Literal literal(Shape::Array(type, std::move(dims)));
  auto data = literal.data<T>();
  for (size_t i = 0; i < values.size() && i < data.size(); ++i) {
    data[i] = values[i];
  }
  return literal;
}

template <typename T>
Literal Vec(PrimitiveType type, const std::vector<T>& values) {
  return Make<T>(type, {static_cast<int64_t>(values.size())}, values);
}

template <typename T>
std::vector<T> Values(const Literal& literal) {
  auto data = literal.data<T>();
  return std::vector<T>(data.begin(), data.end());
}

// Values of an f16/bf16/f32/f64 literal as doubles.
inline std::vector<double> AsDoubles(const Literal& literal) {
  std::vector<double> out;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    out.push_back(literal.GetAsDouble(i));
  }
  return out;
}

inline bool SameFloat(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// Exact comparison of a floating point literal's values.
inline void ExpectFloats(const Literal& literal,
                         const std::vector<double>& expected) {
  std::vector<double> got = AsDoubles(literal);
  ASSERT_EQ(got.size(), expected.size()) << literal.ToString();
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_TRUE(SameFloat(got[i], expected[i]))
        << "element " << i << ": got " << got[i] << ", expected " << expected[i]
        << " in " << literal.ToString();
  }
}

// |got - expected| <= tol * max(1, |expected|) per element.
inline void ExpectNear(const Literal& literal,
                       const std::vector<double>& expected, double tol) {
  std::vector<double> got = AsDoubles(literal);
  ASSERT_EQ(got.size(), expected.size()) << literal.ToString();
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(expected[i]) || std::isnan(expected[i])) {
      EXPECT_TRUE(SameFloat(got[i], expected[i])) << "element " << i;
      continue;
    }
    EXPECT_NEAR(got[i], expected[i],
                tol * std::max(1.0, std::fabs(expected[i])))
        << "element " << i;
  }
}

}  // namespace eval_test
}  // namespace hloc

#endif  // HLO_EVALUATOR_TEST_UTIL_H_

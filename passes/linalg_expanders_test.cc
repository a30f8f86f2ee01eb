// cholesky-expander and triangular-solve-expander compute what the
// evaluator's cholesky and triangular-solve compute (LAPACK's algorithms,
// summing in another order: within f32/f64 rounding), in every form: lower
// and upper factors, left and right solves, transposed, conjugate-transposed
// and unit-diagonal matrices, batches, real and complex; and leave no
// cholesky or triangular-solve behind.
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "passes/cholesky_expander.h"
#include "passes/test_util.h"
#include "passes/triangular_solve_expander.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

// A [batch..., n, n] literal: symmetric positive definite (spd) or a
// triangular-friendly matrix (a dominant diagonal), the other entries
// random in [-1, 1]. f32 or f64; c64 or c128 (not spd) with imaginary parts
// random in [-1, 1] too.
Literal Matrix(const Shape& shape, bool spd, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const int64_t rank = shape.rank();
  const int64_t n = shape.dimensions(rank - 1);
  const int64_t count = shape.ElementCount();
  std::vector<double> values(count);
  for (int64_t start = 0; start < count; start += n * n) {
    std::vector<double> p(n * n);
    for (double& v : p) v = uniform(rng);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double v = p[i * n + j];
        if (spd) {
          v = 0;
          for (int64_t k = 0; k < n; ++k) v += p[i * n + k] * p[j * n + k];
        }
        if (i == j) v += n;
        values[start + i * n + j] = v;
      }
    }
  }
  Literal literal(shape);
  for (int64_t i = 0; i < count; ++i) {
    switch (shape.element_type()) {
      case F64:
        reinterpret_cast<double*>(literal.untyped_data())[i] = values[i];
        break;
      case C64:
        reinterpret_cast<complex64*>(literal.untyped_data())[i] = complex64(
            static_cast<float>(values[i]), static_cast<float>(uniform(rng)));
        break;
      case C128:
        reinterpret_cast<complex128*>(literal.untyped_data())[i] =
            complex128(values[i], uniform(rng));
        break;
      case F32:
        reinterpret_cast<float*>(literal.untyped_data())[i] =
            static_cast<float>(values[i]);
        break;
      default:  // bf16, f16
        literal.SetFromDouble(i, values[i]);
    }
  }
  return literal;
}

// Entries random in [-1, 1] (both parts of a complex one).
Literal Uniform(const Shape& shape, uint32_t seed) {
  if (shape.element_type() == F32) return MakeUniformInput(shape, seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  Literal literal(shape);
  if (!IsComplexType(shape.element_type())) {
    for (int64_t i = 0; i < shape.ElementCount(); ++i) {
      literal.SetFromDouble(i, uniform(rng));
    }
    return literal;
  }
  for (int64_t i = 0; i < shape.ElementCount(); ++i) {
    const double re = uniform(rng), im = uniform(rng);
    if (shape.element_type() == C64) {
      reinterpret_cast<complex64*>(literal.untyped_data())[i] =
          complex64(static_cast<float>(re), static_cast<float>(im));
    } else {
      reinterpret_cast<complex128*>(literal.untyped_data())[i] =
          complex128(re, im);
    }
  }
  return literal;
}

// `loops`: the while loops the expansion leaves.
void ExpectSameAfter(HloPass& pass, const std::string& text,
                     const std::vector<Literal>& inputs, HloOpcode expanded,
                     int64_t loops = 1) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
  SCOPED_TRACE(text);
  const PrimitiveType type = (*module)
                                 ->entry_computation()
                                 ->root_instruction()
                                 ->shape()
                                 .element_type();
  const bool f64 = type == F64 || type == C128;
  const bool half = ByteWidth(type) == 2;
  const std::optional<bool> changed =
      ExpectSameResultsAfterPass(pass, module->get(), inputs,
                                 f64    ? Tolerance{1e-10, 1e-10}
                                 : half ? Tolerance{2e-2, 2e-2}
                                        : Tolerance{2e-4, 2e-4});
  ASSERT_TRUE(changed.has_value());
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CountOpcode(**module, expanded), 0) << ModuleText(**module);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kWhile), loops);
}

struct CholeskyCase {
  std::string shape;  // "f32[2,6,6]"
  bool lower;
};

class CholeskyExpanderTest : public testing::TestWithParam<CholeskyCase> {};

TEST_P(CholeskyExpanderTest, SameFactor) {
  const CholeskyCase& c = GetParam();
  const std::string text = absl::StrCat(
      "HloModule m\n\nENTRY e {\n  a = ", c.shape, " parameter(0)\n  ROOT l = ",
      c.shape, " cholesky(a), lower=", c.lower ? "true" : "false", "\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> inputs;
  inputs.push_back(Matrix(
      (*module)->entry_computation()->parameter_instruction(0)->shape(),
      /*spd=*/true, 3));
  CholeskyExpander pass;
  ExpectSameAfter(pass, text, inputs, HloOpcode::kCholesky);
}

INSTANTIATE_TEST_SUITE_P(
    Forms, CholeskyExpanderTest,
    testing::Values(CholeskyCase{"f32[6,6]", true},
                    CholeskyCase{"f32[6,6]", false},
                    CholeskyCase{"f32[2,3,5,5]", true},
                    CholeskyCase{"f64[2,9,9]", false},
                    CholeskyCase{"f32[1,1]", true}));

// Not positive definite: NaN from the failing column on, zeros above the
// diagonal, as the evaluator gives.
TEST(CholeskyExpander, NotPositiveDefinite) {
  const std::string text =
      "HloModule m\n\nENTRY e {\n  a = f32[3,3] parameter(0)\n  ROOT l = "
      "f32[3,3] cholesky(a), lower=true\n}\n";
  Literal a = Literal::FromVector<float>(
      Shape::Array(F32, {3, 3}), {4, 0, 0, 2, -5, 0, 1, 1, 3});
  std::vector<Literal> inputs;
  inputs.push_back(std::move(a));
  CholeskyExpander pass;
  ExpectSameAfter(pass, text, inputs, HloOpcode::kCholesky);
}

struct SolveCase {
  std::string a, b;  // shapes
  bool left, lower, unit;
  std::string transpose;  // NO_TRANSPOSE, TRANSPOSE, ADJOINT
};

class TriangularSolveExpanderTest : public testing::TestWithParam<SolveCase> {};

TEST_P(TriangularSolveExpanderTest, SameSolution) {
  const SolveCase& c = GetParam();
  const std::string text = absl::StrCat(
      "HloModule m\n\nENTRY e {\n  a = ", c.a, " parameter(0)\n  b = ", c.b,
      " parameter(1)\n  ROOT x = ", c.b,
      " triangular-solve(a, b), left_side=", c.left ? "true" : "false",
      ", lower=", c.lower ? "true" : "false",
      ", unit_diagonal=", c.unit ? "true" : "false",
      ", transpose_a=", c.transpose, "\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<Literal> inputs;
  // The whole of A is random: the expansion must read only its triangle.
  inputs.push_back(
      Matrix(entry->parameter_instruction(0)->shape(), /*spd=*/false, 5));
  inputs.push_back(Uniform(entry->parameter_instruction(1)->shape(), 7));
  // Substitution (a loop), then the inverse (no loop).
  for (int64_t max_inverse_size : {int64_t{0}, int64_t{4096}}) {
    SCOPED_TRACE(max_inverse_size == 0 ? "substitution" : "inverse");
    TriangularSolveExpander pass(max_inverse_size);
    ExpectSameAfter(pass, text, inputs, HloOpcode::kTriangularSolve,
                    max_inverse_size == 0 ? 1 : 0);
  }
}

std::vector<SolveCase> SolveCases() {
  std::vector<SolveCase> cases;
  for (bool left : {true, false}) {
    for (bool lower : {true, false}) {
      for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
        for (bool unit : {false, true}) {
          cases.push_back(SolveCase{"f32[6,6]", left ? "f32[6,4]" : "f32[4,6]",
                                    left, lower, unit, transpose});
        }
      }
    }
  }
  cases.push_back(
      SolveCase{"f64[2,3,5,5]", "f64[2,3,5,2]", true, true, false,
                "TRANSPOSE"});
  cases.push_back(
      SolveCase{"f32[3,7,7]", "f32[3,1,7]", false, false, false,
                "NO_TRANSPOSE"});
  // Complex: ADJOINT conjugates, on either side.
  for (bool left : {true, false}) {
    for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
      cases.push_back(SolveCase{"c64[5,5]", left ? "c64[5,3]" : "c64[3,5]",
                                left, left, false, transpose});
    }
  }
  cases.push_back(
      SolveCase{"c128[2,4,4]", "c128[2,4,3]", true, false, true, "ADJOINT"});
  cases.push_back(
      SolveCase{"c128[4,4]", "c128[2,4]", false, true, false, "ADJOINT"});
  // Sizes the inverse pads to a power of two (37 -> 64, 130 -> 256), one
  // already a power, and a 1 x 1.
  cases.push_back(
      SolveCase{"f32[37,37]", "f32[37,5]", true, true, false, "NO_TRANSPOSE"});
  cases.push_back(SolveCase{"f64[130,130]", "f64[3,130]", false, false, false,
                            "TRANSPOSE"});
  cases.push_back(SolveCase{"f32[2,32,32]", "f32[2,32,32]", true, false, true,
                            "NO_TRANSPOSE"});
  cases.push_back(
      SolveCase{"f32[1,1]", "f32[1,3]", true, true, false, "NO_TRANSPOSE"});
  // bf16 (the inverse computes in f32).
  cases.push_back(SolveCase{"bf16[12,12]", "bf16[12,4]", true, true, false,
                            "NO_TRANSPOSE"});
  return cases;
}

// The inverse's squares have a budget: a large batch of large solves
// (1100 x 256^2, over 64 Mi elements) substitutes, in one loop for the
// whole batch.
TEST(TriangularSolveExpander, LargeBatchesSubstitute) {
  for (const char* batch : {"1100", "900"}) {
    SCOPED_TRACE(batch);
    const std::string text = absl::StrCat(
        "HloModule m\n\nENTRY e {\n  a = f32[", batch,
        ",256,256] parameter(0)\n  b = f32[", batch,
        ",256,2] parameter(1)\n  ROOT x = f32[", batch,
        ",256,2] triangular-solve(a, b), left_side=true, lower=true, "
        "transpose_a=NO_TRANSPOSE\n}\n");
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
    ASSERT_TRUE(module.ok()) << module.status();
    TriangularSolveExpander pass(/*max_inverse_size=*/4096);
    absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_TRUE(*changed);
    EXPECT_EQ(CountOpcode(**module, HloOpcode::kWhile),
              std::string(batch) == "1100" ? 1 : 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, TriangularSolveExpanderTest,
                         testing::ValuesIn(SolveCases()));

}  // namespace
}  // namespace hloc

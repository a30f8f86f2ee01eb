// Comparing computed results with expected ones, and the default tolerances
// for doing so, in one place (hlo-run and the conformance tests use these).
//
// Integers and predicates compare exactly. Floating point elements match
// when |actual - expected| <= atol + rtol * |expected| (NumPy's isclose), NaN
// matches NaN and an infinity matches only the same infinity; complex values
// compare their real and imaginary parts that way, each.
//
// Default tolerances (DefaultTolerance), by element type, for modules whose
// results come from elementwise work (each output element depends on a few
// inputs) and for modules with accumulating ops (reduce, reduce-window, dot,
// convolution, scatter, ...: HasAccumulatingOps), whose sums round
// differently in every summation order:
//
//   type          elementwise            accumulating
//   pred, ints    exact                  exact
//   f64, c128     rtol 1e-7, atol 1e-9   rtol 1e-6, atol 1e-8
//   f32, c64      rtol 1e-5, atol 1e-6   rtol 1e-4, atol 1e-5
//   f16           rtol 1e-2, atol 1e-3   rtol 2e-2, atol 1e-2
//   bf16          rtol 2e-2, atol 1e-2   rtol 5e-2, atol 5e-2
//
// f32's 1e-5 leaves room for the fast approximations XLA:GPU uses for
// transcendental functions (a few ulps); f16 (10 mantissa bits, ulp 2^-10)
// and bf16 (7 bits, ulp 2^-7) get a few ulps of their own precision.
//
// One more allowance (DefaultToleranceFor): an f32 dot or convolution at
// default operand precision may run with reduced-precision operands (XLA:GPU
// uses TF32 on NVIDIA GPUs: 10 mantissa bits), so f32 results of modules with
// one get an absolute tolerance of at least 2^-10 times the largest finite
// |expected| value.
#ifndef RUNTIME_COMPARE_H_
#define RUNTIME_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/literal.h"
#include "hlo/module.h"
#include "hlo/primitive_type.h"

namespace hloc {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
  // "rtol=1e-05 atol=1e-06", or "exact" when both are zero.
  std::string ToString() const;
};

// True if any computation of `module` has an op that sums over many
// elements, so its float results depend on summation order.
bool HasAccumulatingOps(const HloModule& module);

// The default tolerance for results of element type `type` (see the table
// above); exact for integers and predicates.
Tolerance DefaultTolerance(PrimitiveType type, bool accumulating);

// True if `module` has an f32 dot or convolution whose operand precision
// is default (no operand asks for HIGHEST).
bool HasDefaultPrecisionF32Contractions(const HloModule& module);

// The default tolerance for comparing an output of `module` with `expected`:
// DefaultTolerance(type, HasAccumulatingOps(module)) widened for
// default-precision f32 contractions as described above.
Tolerance DefaultToleranceFor(const HloModule& module, const Literal& expected);

// One element that did not match.
struct ElementMismatch {
  std::vector<int64_t> index;  // Multi-dimensional index into the array.
  std::string actual;
  std::string expected;
  // "[1,2]: got 0.5, expected 0.25"
  std::string ToString() const;
};

struct ComparisonResult {
  // Set when the shapes differ (element type or dimensions, not layout);
  // then no elements were compared.
  bool shape_mismatch = false;
  std::string shape_message;  // "got f32[2,3], expected f32[3,2]"
  int64_t element_count = 0;
  int64_t mismatch_count = 0;
  // Largest |actual - expected| and |actual - expected| / |expected| over
  // all elements (infinite where one side is NaN or infinite and the other
  // is not, or where expected is 0 and actual is not); 0 for matching
  // NaNs and infinities.
  double max_abs_error = 0;
  double max_rel_error = 0;
  // The first few mismatches in row-major order.
  std::vector<ElementMismatch> first_mismatches;

  bool ok() const { return !shape_mismatch && mismatch_count == 0; }
};

// How many mismatching elements ComparisonResult keeps.
inline constexpr int kMaxReportedMismatches = 10;

// Compares two array literals (or tuples of them, element by element, the
// counts and maxima taken over all leaves). `tolerance` applies to floating
// point and complex elements only.
ComparisonResult CompareLiterals(const Literal& actual, const Literal& expected,
                                 const Tolerance& tolerance);

// Text of element `linear` (row-major) of an array literal: "0.25",
// "-3", "true", "(1, -2)".
std::string ElementToText(const Literal& literal, int64_t linear);

}  // namespace hloc

#endif  // RUNTIME_COMPARE_H_

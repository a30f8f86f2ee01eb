// Comparing computed results with expected ones, and the default tolerances
// for doing so, in one place (hlo-run and the conformance tests use these).
//
// Integers and predicates compare exactly. Floating point elements match
// when |actual - expected| <= atol + rtol * |expected| (NumPy's isclose), NaN
// matches NaN and an infinity matches only the same infinity; complex values
// compare their real and imaginary parts that way, each.
//
// Default tolerances (DefaultTolerance) by the least precise float type
// the module computes in (LeastPreciseFloatType: a module that rounds to
// bf16 anywhere is judged as bf16 even where its outputs are f32, and an f32
// dot converted to f64 as f32), for modules whose results come from
// elementwise work (each output element depends on a few inputs) and for
// modules with accumulating ops (reduce, reduce-window, scan, dot,
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
// Accumulating modules (DefaultToleranceFor): a sum's rounding error scales
// with the magnitude of the terms summed, not with the sum, which may cancel
// to near zero (a cumulative sum crossing zero). The terms are not known
// here; the output's largest finite |expected| value stands in for their
// magnitude, so the absolute tolerance is at least the elementwise rtol (a
// few ulps) times it. (jnp.cumsum over rows of 1000 O(1) terms: summation
// orders differ by up to 6e-5, about 1e-6 of the largest partial sum.)
//
// TF32 (ToleranceOptions::expected_used_tf32, hlo-run --expect-tf32): when
// the expected outputs came from a GPU that ran default-precision f32 dots
// and convolutions with TF32 operands (XLA:GPU on NVIDIA: 10 mantissa bits),
// f32 results of modules with one get an absolute tolerance of at least
// 2^-8 times the largest finite |expected| value. Rounding both operands
// to TF32 moves each product by up to 2^-10 of |a||b|, the sum by up to
// 2^-10 of the sum of |terms| (more than the result where terms cancel),
// and layers compound: zoo.mlp_forward's three small f32 layers, computed
// in TF32 (XLA:GPU, and NumPy rounding the operands alike) and at full
// f32 (hloc's dots under dot-strength-reduction's sizes), differ by 1.4
// times 2^-10 of its largest output. Never by default: on outputs
// computed at full f32 precision it would hide real errors.
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

// The least precise of bf16, f16, f32 and f64 (complex types count as their
// component type) that an instruction of `module` rounds its results to;
// instructions that only move or select values (parameters, constants,
// reshapes, slices, gathers, ...) do not count. PRIMITIVE_TYPE_INVALID when
// no instruction computes a float.
PrimitiveType LeastPreciseFloatType(const HloModule& module);

// The largest finite |value| of an array literal (0 for none, for tuples
// and for predicates).
double MaxFiniteMagnitude(const Literal& literal);

// The default tolerance for results of element type `type` (see the table
// above); exact for integers and predicates.
Tolerance DefaultTolerance(PrimitiveType type, bool accumulating);

// True if `module` has an f32 dot or convolution whose operand precision
// is default (no operand asks for HIGHEST), or a pass rewrote one into
// other instructions (hlo/module.h kRewroteDefaultPrecisionF32Contractions).
bool HasDefaultPrecisionF32Contractions(const HloModule& module);

// What is known about where expected values came from.
struct ToleranceOptions {
  // The expected outputs came from a GPU that computed default-precision f32
  // dots and convolutions with TF32 operands (XLA:GPU on NVIDIA GPUs).
  bool expected_used_tf32 = false;
};

// The default tolerance for comparing an output of `module` with `expected`
// (see above): DefaultTolerance of the less precise of the output's type and
// LeastPreciseFloatType(module), accumulating if HasAccumulatingOps(module),
// its absolute part scaled for accumulating modules and widened for TF32
// when `options` says so. Exact for integer and predicate outputs.
Tolerance DefaultToleranceFor(const HloModule& module, const Literal& expected,
                              const ToleranceOptions& options = {});

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

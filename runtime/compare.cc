#include "runtime/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "hlo/computation.h"
#include "hlo/float8.h"
#include "hlo/instruction.h"

namespace hloc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool IsAccumulating(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kBatchNormGrad:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kCholesky:
    case HloOpcode::kConvolution:
    // Library calls (LAPACK's factorisations and solves) accumulate.
    case HloOpcode::kCustomCall:
    case HloOpcode::kDot:
    case HloOpcode::kFft:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kScaledDot:
    case HloOpcode::kScan:
    case HloOpcode::kScatter:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kTriangularSolve:
      return true;
    default:
      return false;
  }
}

// Opcodes whose float results are values of their operands (moved,
// selected, padded or reinterpreted), so they round nothing themselves.
// Control flow and fusions count through their called computations.
bool RoundsNothing(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kBitcast:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kBroadcast:
    case HloOpcode::kCall:
    case HloOpcode::kConcatenate:
    case HloOpcode::kConditional:
    case HloOpcode::kConstant:
    case HloOpcode::kCopy:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kFusion:
    case HloOpcode::kGather:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kPad:
    case HloOpcode::kParameter:
    case HloOpcode::kReshape:
    case HloOpcode::kReverse:
    case HloOpcode::kSelect:
    case HloOpcode::kSlice:
    case HloOpcode::kSort:
    case HloOpcode::kTranspose:
    case HloOpcode::kTuple:
    case HloOpcode::kWhile:
      return true;
    default:
      return false;
  }
}

// Mantissa bits of the float types tolerances know (complex: of a part);
// 0 for every other type. Not the microscaling types: a module converts
// to them (exactly, as XLA) rather than computing in them, and their rows
// would allow 50% (f4e2m1fn) or any (f8e8m0fnu) error in everything else.
int MantissaBits(PrimitiveType type) {
  if (IsComplexType(type)) type = ComplexComponentType(type);
  if (type == F4E2M1FN || type == F8E8M0FNU) return 0;
  if (IsSupportedElementType(type) && IsFloatingPointType(type)) {
    return FloatFormatOf(type).mantissa_bits;  // the 8-bit floats too
  }
  return 0;
}

// The less precise of two float types; a type tolerances do not know loses.
PrimitiveType LessPrecise(PrimitiveType a, PrimitiveType b) {
  if (MantissaBits(a) == 0) return b;
  if (MantissaBits(b) == 0) return a;
  return MantissaBits(b) < MantissaBits(a) ? b : a;
}

void FoldLeafTypes(const Shape& shape, PrimitiveType* least) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      FoldLeafTypes(element, least);
    }
  } else if (shape.IsArray()) {
    *least = LessPrecise(*least, shape.element_type());
  }
}

std::string FloatText(double v, int digits) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return absl::StrFormat("%.*g", digits, v);
}

// Per-element accumulation of a comparison.
class Comparer {
 public:
  Comparer(const Tolerance& tolerance, ComparisonResult* result)
      : tolerance_(tolerance), result_(result) {}

  // Compares one real value pair under the float rules; returns whether it
  // matched and folds its errors into the maxima.
  bool CompareFloat(double a, double e) {
    double abs_error, rel_error;
    bool match;
    if (std::isnan(a) || std::isnan(e)) {
      match = std::isnan(a) && std::isnan(e);
      abs_error = rel_error = match ? 0 : kInf;
    } else if (std::isinf(a) || std::isinf(e)) {
      match = a == e;
      abs_error = rel_error = match ? 0 : kInf;
    } else {
      abs_error = std::fabs(a - e);
      rel_error = e != 0 ? abs_error / std::fabs(e) : (abs_error ? kInf : 0);
      match = abs_error <= tolerance_.atol + tolerance_.rtol * std::fabs(e);
    }
    Fold(abs_error, rel_error);
    return match;
  }

  bool CompareExact(double a, double e, bool equal) {
    const double abs_error = equal ? 0 : std::fabs(a - e);
    Fold(abs_error, e != 0 ? abs_error / std::fabs(e) : (equal ? 0 : kInf));
    return equal;
  }

 private:
  void Fold(double abs_error, double rel_error) {
    result_->max_abs_error = std::max(result_->max_abs_error, abs_error);
    result_->max_rel_error = std::max(result_->max_rel_error, rel_error);
  }

  const Tolerance& tolerance_;
  ComparisonResult* result_;
};

std::vector<int64_t> MultiIndex(const Shape& shape, int64_t linear) {
  std::vector<int64_t> index(shape.rank());
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    index[d] = linear % shape.dimensions(d);
    linear /= shape.dimensions(d);
  }
  return index;
}

void CompareArrays(const Literal& actual, const Literal& expected,
                   const Tolerance& tolerance, ComparisonResult* result) {
  const int64_t n = expected.element_count();
  result->element_count += n;
  Comparer comparer(tolerance, result);
  absl::Status status = TypeSwitch(expected.element_type(), [&](auto t) {
    using T = NativeType<decltype(t)::value>;
    absl::Span<const T> a = actual.data<T>();
    absl::Span<const T> e = expected.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      bool match;
      if constexpr (std::is_same_v<T, complex64> ||
                    std::is_same_v<T, complex128>) {
        const bool re = comparer.CompareFloat(a[i].real(), e[i].real());
        const bool im = comparer.CompareFloat(a[i].imag(), e[i].imag());
        match = re && im;
      } else if constexpr (kIsNarrowFloat<T>) {
        match = comparer.CompareFloat(static_cast<float>(a[i]),
                                      static_cast<float>(e[i]));
      } else if constexpr (std::is_floating_point_v<T>) {
        match = comparer.CompareFloat(a[i], e[i]);
      } else {
        match = comparer.CompareExact(static_cast<double>(a[i]),
                                      static_cast<double>(e[i]), a[i] == e[i]);
      }
      if (!match) {
        if (result->first_mismatches.size() < kMaxReportedMismatches) {
          result->first_mismatches.push_back(ElementMismatch{
              MultiIndex(expected.shape(), i), ElementToText(actual, i),
              ElementToText(expected, i)});
        }
        ++result->mismatch_count;
      }
    }
  });
  if (!status.ok()) {
    result->shape_mismatch = true;
    result->shape_message = std::string(status.message());
  }
}

void CompareRecursive(const Literal& actual, const Literal& expected,
                      const Tolerance& tolerance, ComparisonResult* result) {
  if (!actual.shape().Compatible(expected.shape())) {
    result->shape_mismatch = true;
    result->shape_message =
        absl::StrCat("got ", actual.shape().ToString(false), ", expected ",
                     expected.shape().ToString(false));
    return;
  }
  if (expected.shape().IsTuple()) {
    for (size_t i = 0; i < expected.tuple_elements().size(); ++i) {
      CompareRecursive(actual.tuple_elements()[i], expected.tuple_elements()[i],
                       tolerance, result);
      if (result->shape_mismatch) return;
    }
  } else if (expected.shape().IsArray()) {
    CompareArrays(actual, expected, tolerance, result);
  }
}

}  // namespace

std::string Tolerance::ToString() const {
  if (rtol == 0 && atol == 0) return "exact";
  return absl::StrFormat("rtol=%g atol=%g", rtol, atol);
}

bool HasAccumulatingOps(const HloModule& module) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (IsAccumulating(instruction->opcode())) return true;
    }
  }
  return false;
}

PrimitiveType LeastPreciseFloatType(const HloModule& module) {
  PrimitiveType least = PRIMITIVE_TYPE_INVALID;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (!RoundsNothing(instruction->opcode())) {
        FoldLeafTypes(instruction->shape(), &least);
      }
    }
  }
  return least;
}

double MaxFiniteMagnitude(const Literal& literal) {
  if (!literal.shape().IsArray()) return 0;
  if (literal.element_type() == PRED) return 0;
  double max_magnitude = 0;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const double v = std::abs(literal.GetAsComplex(i));
    if (std::isfinite(v)) max_magnitude = std::max(max_magnitude, v);
  }
  return max_magnitude;
}

Tolerance DefaultTolerance(PrimitiveType type, bool accumulating) {
  switch (type) {
    case F64:
    case C128:
      return accumulating ? Tolerance{1e-6, 1e-8} : Tolerance{1e-7, 1e-9};
    case F32:
    case C64:
      return accumulating ? Tolerance{1e-4, 1e-5} : Tolerance{1e-5, 1e-6};
    case F16:
      return accumulating ? Tolerance{2e-2, 1e-2} : Tolerance{1e-2, 1e-3};
    case BF16:
      return accumulating ? Tolerance{5e-2, 5e-2} : Tolerance{2e-2, 1e-2};
    default:
      break;
  }
  if (IsFloat8Type(type) && MantissaBits(type) != 0) {
    // One ulp of the 8-bit type (2^-mantissa bits relative: 12.5% for
    // e4m3, 25% for e5m2): a value computed in another order in f32 may
    // round to the neighbour.
    const double ulp = std::ldexp(1.0, -FloatFormatOf(type).mantissa_bits);
    return accumulating ? Tolerance{2 * ulp, 5e-2} : Tolerance{ulp, 1e-2};
  }
  return Tolerance{0, 0};
}

bool HasDefaultPrecisionF32Contractions(const HloModule& module) {
  if (module.config().frontend_attributes.count(
          kRewroteDefaultPrecisionF32Contractions) > 0) {
    return true;
  }
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if (IsDefaultPrecisionF32Contraction(*instruction)) return true;
    }
  }
  return false;
}

Tolerance DefaultToleranceFor(const HloModule& module, const Literal& expected,
                              const ToleranceOptions& options) {
  const PrimitiveType type = expected.element_type();
  if (MantissaBits(type) == 0) return DefaultTolerance(type, false);
  PrimitiveType computed = LessPrecise(type, LeastPreciseFloatType(module));
  if (IsComplexType(computed)) computed = ComplexComponentType(computed);
  const bool accumulating = HasAccumulatingOps(module);
  Tolerance tolerance = DefaultTolerance(computed, accumulating);
  const double magnitude = MaxFiniteMagnitude(expected);
  if (accumulating) {
    tolerance.atol = std::max(
        tolerance.atol, DefaultTolerance(computed, false).rtol * magnitude);
  }
  if (options.expected_used_tf32 && computed == F32 &&
      HasDefaultPrecisionF32Contractions(module)) {
    tolerance.atol = std::max(tolerance.atol, std::ldexp(magnitude, -8));
  }
  return tolerance;
}

std::string ElementMismatch::ToString() const {
  return absl::StrCat("[", absl::StrJoin(index, ","), "]: got ", actual,
                      ", expected ", expected);
}

std::string ElementToText(const Literal& literal, int64_t linear) {
  std::string out;
  (void)TypeSwitch(literal.element_type(), [&](auto t) {
    using T = NativeType<decltype(t)::value>;
    const T v = literal.data<T>()[linear];
    if constexpr (std::is_same_v<T, bool>) {
      out = v ? "true" : "false";
    } else if constexpr (std::is_same_v<T, complex64>) {
      out = absl::StrCat("(", FloatText(v.real(), 9), ", ",
                         FloatText(v.imag(), 9), ")");
    } else if constexpr (std::is_same_v<T, complex128>) {
      out = absl::StrCat("(", FloatText(v.real(), 17), ", ",
                         FloatText(v.imag(), 17), ")");
    } else if constexpr (kIsNarrowFloat<T> || std::is_same_v<T, float>) {
      out = FloatText(static_cast<float>(v), 9);
    } else if constexpr (std::is_same_v<T, double>) {
      out = FloatText(v, 17);
    } else {
      out = absl::StrCat(v);
    }
  });
  return out;
}

ComparisonResult CompareLiterals(const Literal& actual, const Literal& expected,
                                 const Tolerance& tolerance) {
  ComparisonResult result;
  CompareRecursive(actual, expected, tolerance, &result);
  return result;
}

}  // namespace hloc

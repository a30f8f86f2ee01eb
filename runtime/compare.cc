#include "runtime/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "hlo/computation.h"
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
    case HloOpcode::kDot:
    case HloOpcode::kFft:
    case HloOpcode::kRaggedDot:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kScaledDot:
    case HloOpcode::kScatter:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kTriangularSolve:
      return true;
    default:
      return false;
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
      } else if constexpr (std::is_same_v<T, Half> ||
                           std::is_same_v<T, BFloat16>) {
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
      return Tolerance{0, 0};
  }
}

bool HasDefaultPrecisionF32Contractions(const HloModule& module) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      if ((instruction->opcode() != HloOpcode::kDot &&
           instruction->opcode() != HloOpcode::kConvolution) ||
          instruction->operand_count() == 0 ||
          instruction->operand(0)->shape().element_type() != F32) {
        continue;
      }
      bool highest = false;
      const auto& config = instruction->attrs().precision_config;
      if (config.has_value()) {
        for (Precision p : config->operand_precision) {
          highest |= p == Precision::kHighest;
        }
      }
      if (!highest) return true;
    }
  }
  return false;
}

Tolerance DefaultToleranceFor(const HloModule& module,
                              const Literal& expected) {
  const PrimitiveType type = expected.element_type();
  Tolerance tolerance = DefaultTolerance(type, HasAccumulatingOps(module));
  if (type == F32 && HasDefaultPrecisionF32Contractions(module)) {
    double max_magnitude = 0;
    for (float v : expected.data<float>()) {
      if (std::isfinite(v)) {
        max_magnitude = std::max(max_magnitude, std::fabs(double{v}));
      }
    }
    tolerance.atol = std::max(tolerance.atol, std::ldexp(max_magnitude, -10));
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
    } else if constexpr (std::is_same_v<T, Half> ||
                         std::is_same_v<T, BFloat16> ||
                         std::is_same_v<T, float>) {
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

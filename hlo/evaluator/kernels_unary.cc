// Unary elementwise kernels: one typed loop per (opcode, element type).
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "hlo/evaluator/kernel_util.h"

namespace hloc {
namespace eval {
namespace {

struct SameType {
  template <typename T>
  using Out = T;
};

// Ops on floating point (computed in f32 for f16/bf16) and complex values.
#define HLOC_FLOAT_OR_COMPLEX_OP(Name, expr)                  \
  struct Name : SameType {                                    \
    template <typename T>                                     \
    static constexpr bool kOk = kIsFloat<T> || kIsComplex<T>; \
    template <typename T>                                     \
    static T Apply(T v, const KernelAttrs&) {                 \
      auto x = Load(v);                                       \
      return Store<T>(expr);                                  \
    }                                                         \
  };
#define HLOC_FLOAT_OP(Name, expr)             \
  struct Name : SameType {                    \
    template <typename T>                     \
    static constexpr bool kOk = kIsFloat<T>;  \
    template <typename T>                     \
    static T Apply(T v, const KernelAttrs&) { \
      auto x = Load(v);                       \
      return Store<T>(expr);                  \
    }                                         \
  };

using std::acos;
using std::acosh;
using std::asin;
using std::asinh;
using std::atan;
using std::atanh;
using std::cos;
using std::cosh;
using std::exp;
using std::log;
using std::sin;
using std::sinh;
using std::sqrt;

// Complex tanh with XLA's special values (the code generators' formula,
// backends/common/complex_emitter.cc): a finite real part with an infinite
// or NaN imaginary part gives (NaN, NaN). C11's ctanh, which std::tanh
// follows, gives (+-0, NaN) where the real part is zero: tanh(i inf) was
// (0, NaN) here and (NaN, NaN) in XLA:CPU and hloc's compiled code.
template <typename X>
X XlaTanh(X x) {
  if constexpr (kIsComplex<X>) {
    using R = typename X::value_type;
    if (std::isfinite(x.real()) && !std::isfinite(x.imag())) {
      const R nan = std::numeric_limits<R>::quiet_NaN();
      return X(nan, nan);
    }
  }
  return std::tanh(x);
}

// tan(a + bi) = -i tanh(-b + ai), as XLA defines complex tan, so its special
// values are tanh's: tan(inf) is (NaN, NaN), not std::tan's (NaN, 0).
template <typename X>
X XlaTan(X x) {
  if constexpr (kIsComplex<X>) {
    const X w = XlaTanh(X(-x.imag(), x.real()));
    return X(w.imag(), -w.real());
  } else {
    return std::tan(x);
  }
}

HLOC_FLOAT_OR_COMPLEX_OP(ExpOp, exp(x))
HLOC_FLOAT_OR_COMPLEX_OP(LogOp, log(x))
HLOC_FLOAT_OR_COMPLEX_OP(SqrtOp, sqrt(x))
HLOC_FLOAT_OR_COMPLEX_OP(RsqrtOp, decltype(x)(1) / sqrt(x))
HLOC_FLOAT_OR_COMPLEX_OP(SinOp, sin(x))
HLOC_FLOAT_OR_COMPLEX_OP(CosOp, cos(x))
HLOC_FLOAT_OR_COMPLEX_OP(TanOp, XlaTan(x))
HLOC_FLOAT_OR_COMPLEX_OP(TanhOp, XlaTanh(x))
HLOC_FLOAT_OR_COMPLEX_OP(LogisticOp,
                         decltype(x)(1) / (decltype(x)(1) + exp(-x)))
HLOC_FLOAT_OR_COMPLEX_OP(AcosOp, acos(x))
HLOC_FLOAT_OR_COMPLEX_OP(AcoshOp, acosh(x))
HLOC_FLOAT_OR_COMPLEX_OP(AsinOp, asin(x))
HLOC_FLOAT_OR_COMPLEX_OP(AsinhOp, asinh(x))
HLOC_FLOAT_OR_COMPLEX_OP(AtanOp, atan(x))
HLOC_FLOAT_OR_COMPLEX_OP(AtanhOp, atanh(x))
HLOC_FLOAT_OR_COMPLEX_OP(CoshOp, cosh(x))
HLOC_FLOAT_OR_COMPLEX_OP(SinhOp, sinh(x))
HLOC_FLOAT_OP(CbrtOp, std::cbrt(x))
HLOC_FLOAT_OP(CeilOp, std::ceil(x))
HLOC_FLOAT_OP(FloorOp, std::floor(x))
HLOC_FLOAT_OP(RoundAfzOp, std::round(x))
HLOC_FLOAT_OP(RoundEvenOp, std::nearbyint(x))
HLOC_FLOAT_OP(ErfOp, std::erf(x))
#undef HLOC_FLOAT_OR_COMPLEX_OP
#undef HLOC_FLOAT_OP

// Complex expm1 and log1p as XLA computes them, from expm1 and log1p of
// the parts: exp(z) - 1 and log(1 + z) lose a small result to cancellation
// (expm1(0.001) 500 ulps off in c64) and give log1p(-1) = 0, not -inf.
// The parts are computed in a wider type (double for c64, long double for
// c128), so the oracle's own rounding stays far below the targets'.
// Non-finite parts keep C99's values of log(1 + z).
template <typename C>
using WideOf = std::conditional_t<std::is_same_v<typename C::value_type, float>,
                                  double, long double>;

// exp(a + bi) - 1 = (expm1(a) cos b - 2 sin^2(b/2)) + i e^a sin b.
// Non-finite parts go through the same formula, as in XLA and the code
// generators: expm1(inf + inf i) is (NaN, NaN), where C99's exp(z) - 1 gave
// (inf, NaN), and expm1(-inf + inf i) (NaN, NaN), not (-1, 0). They compute
// expm1(a) in the parts' own type, so past its range (a > 88.72 in c64) it
// is inf and so are both parts: expm1(89 + 1e-30i) is (inf, inf) there,
// where the wide type's e^89 * 1e-30 = 4.5e8 was finite.
template <typename C>
C ComplexExpm1(C v) {
  using R = typename C::value_type;
  using W = WideOf<C>;
  const W a = v.real(), b = v.imag();
  W em1 = std::expm1(a);
  if (std::isinf(static_cast<R>(em1))) em1 = static_cast<W>(R(em1));
  const W half_sin = std::sin(b / 2);
  const W real = em1 * std::cos(b) - 2 * half_sin * half_sin;
  const W imag = b == 0 ? W(0) : (em1 + 1) * std::sin(b);
  return C(static_cast<R>(real), static_cast<R>(imag));
}

// log(1 + z) = log1p(a (2 + a) + b^2) / 2 + i atan2(b, 1 + a): |1 + z|^2 - 1
// without forming 1 + a, exact enough in the wide type.
template <typename C>
C ComplexLog1p(C v) {
  using R = typename C::value_type;
  if (!std::isfinite(v.real()) || !std::isfinite(v.imag())) {
    return std::log(C(1) + v);
  }
  using W = WideOf<C>;
  const W a = v.real(), b = v.imag();
  const W real = std::log1p(a * (2 + a) + b * b) / 2;
  return C(static_cast<R>(real), static_cast<R>(std::atan2(b, 1 + a)));
}

struct Expm1Op : SameType {
  template <typename T>
  static constexpr bool kOk = kIsFloat<T> || kIsComplex<T>;
  template <typename T>
  static T Apply(T v, const KernelAttrs&) {
    if constexpr (kIsComplex<T>) {
      return ComplexExpm1(v);
    } else {
      return Store<T>(std::expm1(Load(v)));
    }
  }
};

struct Log1pOp : SameType {
  template <typename T>
  static constexpr bool kOk = kIsFloat<T> || kIsComplex<T>;
  template <typename T>
  static T Apply(T v, const KernelAttrs&) {
    if constexpr (kIsComplex<T>) {
      return ComplexLog1p(v);
    } else {
      return Store<T>(std::log1p(Load(v)));
    }
  }
};

struct AbsOp {
  template <typename T>
  using Out =
      std::conditional_t<kIsComplex<T>, typename ComplexValueType<T>::type, T>;
  template <typename T>
  static constexpr bool kOk = !kIsPred<T>;
  template <typename T>
  static Out<T> Apply(T v, const KernelAttrs&) {
    if constexpr (kIsComplex<T>) {
      // XLA's abs is NaN for a NaN part even beside an infinity (IEEE
      // hypot, and so std::abs, would give inf).
      if (std::isnan(v.real()) || std::isnan(v.imag())) {
        return std::numeric_limits<Out<T>>::quiet_NaN();
      }
      return std::abs(v);
    } else if constexpr (kIsFloat<T>) {
      return Store<T>(std::fabs(Load(v)));
    } else if constexpr (std::is_signed_v<T>) {
      return v < 0 ? static_cast<T>(-static_cast<WrapT<T>>(v)) : v;
    } else {
      return v;
    }
  }
};

struct NegateOp : SameType {
  template <typename T>
  static constexpr bool kOk = !kIsPred<T>;
  template <typename T>
  static T Apply(T v, const KernelAttrs&) {
    if constexpr (kIsInt<T>) {
      return static_cast<T>(-static_cast<WrapT<T>>(v));
    } else {
      return Store<T>(-Load(v));
    }
  }
};

struct SignOp : SameType {
  template <typename T>
  static constexpr bool kOk = !kIsPred<T>;
  template <typename T>
  static T Apply(T v, const KernelAttrs&) {
    if constexpr (kIsComplex<T>) {
      return ComplexSign(v);
    } else if constexpr (kIsFloat<T>) {
      return Store<T>(FloatSign(Load(v)));
    } else {
      return static_cast<T>((T(0) < v) - (v < T(0)));
    }
  }
};

struct NotOp : SameType {
  template <typename T>
  static constexpr bool kOk = std::is_integral_v<T>;
  template <typename T>
  static T Apply(T v, const KernelAttrs&) {
    if constexpr (kIsPred<T>) {
      return !v;
    } else {
      return static_cast<T>(~v);
    }
  }
};

struct PopcntOp : SameType {
  template <typename T>
  static constexpr bool kOk = kIsInt<T>;
  template <typename T>
  static T Apply(T v, const KernelAttrs&) {
    return PopulationCount(v);
  }
};

struct ClzOp : SameType {
  template <typename T>
  static constexpr bool kOk = kIsInt<T>;
  template <typename T>
  static T Apply(T v, const KernelAttrs&) {
    return CountLeadingZeros(v);
  }
};

struct IsFiniteOp {
  template <typename T>
  using Out = bool;
  template <typename T>
  static constexpr bool kOk = kIsFloat<T>;
  template <typename T>
  static bool Apply(T v, const KernelAttrs&) {
    return std::isfinite(Load(v));
  }
};

struct RealOp {
  template <typename T>
  using Out =
      std::conditional_t<kIsComplex<T>, typename ComplexValueType<T>::type, T>;
  template <typename T>
  static constexpr bool kOk = kIsFloat<T> || kIsComplex<T>;
  template <typename T>
  static Out<T> Apply(T v, const KernelAttrs&) {
    if constexpr (kIsComplex<T>) {
      return v.real();
    } else {
      return v;
    }
  }
};

struct ImagOp {
  template <typename T>
  using Out =
      std::conditional_t<kIsComplex<T>, typename ComplexValueType<T>::type, T>;
  template <typename T>
  static constexpr bool kOk = kIsFloat<T> || kIsComplex<T>;
  template <typename T>
  static Out<T> Apply(T v, const KernelAttrs&) {
    if constexpr (kIsComplex<T>) {
      return v.imag();
    } else {
      return Store<T>(ComputeT<T>(0));
    }
  }
};

struct ReducePrecisionOp : SameType {
  template <typename T>
  static constexpr bool kOk = kIsFloat<T>;
  template <typename T>
  static T Apply(T v, const KernelAttrs& attrs) {
    return Store<T>(
        ReducePrecision(Load(v), attrs.exponent_bits, attrs.mantissa_bits));
  }
};

template <typename T, typename Op>
void UnaryLoop(const void* const* in, void* out, int64_t n,
               const KernelAttrs& attrs) {
  const T* a = static_cast<const T*>(in[0]);
  using R = typename Op::template Out<T>;
  R* o = static_cast<R*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = Op::template Apply<T>(a[i], attrs);
}

template <typename Op>
ElementwiseFn Pick(PrimitiveType operand, PrimitiveType result) {
  return DispatchType<ElementwiseFn>(operand, nullptr,
                                     [&](auto t) -> ElementwiseFn {
                                       using T = decltype(t);
                                       if constexpr (Op::template kOk<T>) {
                                         using R = typename Op::template Out<T>;
                                         if (PrimitiveTypeOf<R>() != result)
                                           return nullptr;
                                         return &UnaryLoop<T, Op>;
                                       } else {
                                         return nullptr;
                                       }
                                     });
}

}  // namespace

ElementwiseFn SelectUnaryKernel(HloOpcode opcode, PrimitiveType operand,
                                PrimitiveType result) {
  switch (opcode) {
    case HloOpcode::kAbs:
      return Pick<AbsOp>(operand, result);
    case HloOpcode::kAcos:
      return Pick<AcosOp>(operand, result);
    case HloOpcode::kAcosh:
      return Pick<AcoshOp>(operand, result);
    case HloOpcode::kAsin:
      return Pick<AsinOp>(operand, result);
    case HloOpcode::kAsinh:
      return Pick<AsinhOp>(operand, result);
    case HloOpcode::kAtan:
      return Pick<AtanOp>(operand, result);
    case HloOpcode::kAtanh:
      return Pick<AtanhOp>(operand, result);
    case HloOpcode::kCbrt:
      return Pick<CbrtOp>(operand, result);
    case HloOpcode::kCeil:
      return Pick<CeilOp>(operand, result);
    case HloOpcode::kClz:
      return Pick<ClzOp>(operand, result);
    case HloOpcode::kCos:
      return Pick<CosOp>(operand, result);
    case HloOpcode::kCosh:
      return Pick<CoshOp>(operand, result);
    case HloOpcode::kErf:
      return Pick<ErfOp>(operand, result);
    case HloOpcode::kExp:
      return Pick<ExpOp>(operand, result);
    case HloOpcode::kExpm1:
      return Pick<Expm1Op>(operand, result);
    case HloOpcode::kFloor:
      return Pick<FloorOp>(operand, result);
    case HloOpcode::kImag:
      return Pick<ImagOp>(operand, result);
    case HloOpcode::kIsFinite:
      return Pick<IsFiniteOp>(operand, result);
    case HloOpcode::kLog:
      return Pick<LogOp>(operand, result);
    case HloOpcode::kLog1p:
      return Pick<Log1pOp>(operand, result);
    case HloOpcode::kLogistic:
      return Pick<LogisticOp>(operand, result);
    case HloOpcode::kNegate:
      return Pick<NegateOp>(operand, result);
    case HloOpcode::kNot:
      return Pick<NotOp>(operand, result);
    case HloOpcode::kPopulationCount:
      return Pick<PopcntOp>(operand, result);
    case HloOpcode::kReal:
      return Pick<RealOp>(operand, result);
    case HloOpcode::kReducePrecision:
      return Pick<ReducePrecisionOp>(operand, result);
    case HloOpcode::kRoundNearestAfz:
      return Pick<RoundAfzOp>(operand, result);
    case HloOpcode::kRoundNearestEven:
      return Pick<RoundEvenOp>(operand, result);
    case HloOpcode::kRsqrt:
      return Pick<RsqrtOp>(operand, result);
    case HloOpcode::kSign:
      return Pick<SignOp>(operand, result);
    case HloOpcode::kSin:
      return Pick<SinOp>(operand, result);
    case HloOpcode::kSinh:
      return Pick<SinhOp>(operand, result);
    case HloOpcode::kSqrt:
      return Pick<SqrtOp>(operand, result);
    case HloOpcode::kTan:
      return Pick<TanOp>(operand, result);
    case HloOpcode::kTanh:
      return Pick<TanhOp>(operand, result);
    default:
      return nullptr;
  }
}

}  // namespace eval
}  // namespace hloc

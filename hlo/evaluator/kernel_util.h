// Internal to the evaluator's kernel files: type traits, the f16/bf16
// "compute in f32, round once" convention and the scalar semantics of XLA's
// elementwise operations, as small functions that the typed loops inline.
#ifndef HLO_EVALUATOR_KERNEL_UTIL_H_
#define HLO_EVALUATOR_KERNEL_UTIL_H_

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hlo/evaluator/kernels.h"
#include "hlo/float16.h"
#include "hlo/literal.h"

namespace hloc {
namespace eval {

// f16, bf16 and the 8-bit floats: stored as bits, computed in f32.
template <typename T>
inline constexpr bool kIsHalf = kIsNarrowFloat<T>;
template <typename T>
inline constexpr bool kIsComplex =
    std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;
template <typename T>
inline constexpr bool kIsFloat = std::is_floating_point_v<T> || kIsHalf<T>;
template <typename T>
inline constexpr bool kIsPred = std::is_same_v<T, bool>;
template <typename T>
inline constexpr bool kIsInt = std::is_integral_v<T> && !kIsPred<T>;
template <typename T>
inline constexpr bool kIsSignedInt = kIsInt<T>&& std::is_signed_v<T>;

// The component type of a complex type (T itself for others).
template <typename T>
struct ComplexValueType {
  using type = T;
};
template <typename R>
struct ComplexValueType<std::complex<R>> {
  using type = R;
};

// The type arithmetic on T is done in: f32 for f16/bf16, else T.
template <typename T>
using ComputeT = std::conditional_t<kIsHalf<T>, float, T>;

template <typename T>
inline ComputeT<T> Load(T v) {
  return static_cast<ComputeT<T>>(v);
}
template <typename T>
inline T Store(ComputeT<T> v) {
  if constexpr (kIsHalf<T>) {
    return T(v);
  } else {
    return v;
  }
}

// Unsigned arithmetic at least as wide as unsigned int, so that integer
// arithmetic wraps instead of overflowing (no promotion to signed int).
template <typename T>
using WrapT = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                 std::make_unsigned_t<T>>;

template <typename T>
constexpr PrimitiveType PrimitiveTypeOf() {
  if constexpr (std::is_same_v<T, bool>) return PRED;
  if constexpr (std::is_same_v<T, int8_t>) return S8;
  if constexpr (std::is_same_v<T, int16_t>) return S16;
  if constexpr (std::is_same_v<T, int32_t>) return S32;
  if constexpr (std::is_same_v<T, int64_t>) return S64;
  if constexpr (std::is_same_v<T, uint8_t>) return U8;
  if constexpr (std::is_same_v<T, uint16_t>) return U16;
  if constexpr (std::is_same_v<T, uint32_t>) return U32;
  if constexpr (std::is_same_v<T, uint64_t>) return U64;
  if constexpr (std::is_same_v<T, Half>) return F16;
  if constexpr (std::is_same_v<T, BFloat16>) return BF16;
  if constexpr (IsFloat8<T>::value) return T::kType;
  if constexpr (std::is_same_v<T, float>) return F32;
  if constexpr (std::is_same_v<T, double>) return F64;
  if constexpr (std::is_same_v<T, complex64>) return C64;
  if constexpr (std::is_same_v<T, complex128>) return C128;
  return PRIMITIVE_TYPE_INVALID;
}

// Signed integer with the bits of T (for total order and bit tricks).
template <int kBytes>
struct IntOfSize;
template <>
struct IntOfSize<1> {
  using type = int8_t;
};
template <>
struct IntOfSize<2> {
  using type = int16_t;
};
template <>
struct IntOfSize<4> {
  using type = int32_t;
};
template <>
struct IntOfSize<8> {
  using type = int64_t;
};

// The sign bit of T's bits: 0x80 but for f4e2m1fn (0x8) and f8e8m0fnu
// (0: none).
template <typename T>
inline constexpr int kSignBitOf = 0x80;
template <PrimitiveType P>
inline constexpr int kSignBitOf<Float8<P>> = Float8<P>::kFormat.SignBit();

// Key whose signed order is the IEEE total order of T's values.
template <typename T>
inline auto TotalOrderKey(T v) {
  if constexpr (kSignBitOf<T> != 0x80) {
    // f8e8m0fnu's bits are its order (NaN last); f4e2m1fn is sign and
    // magnitude in the low four bits.
    const int bits = v.bits & T::kFormat.Mask();
    if constexpr (kSignBitOf<T> == 0) {
      return bits;
    } else {
      const int magnitude = bits & (kSignBitOf<T> - 1);
      return (bits & kSignBitOf<T>) != 0 ? -magnitude - 1 : magnitude;
    }
  } else {
    using S = typename IntOfSize<sizeof(T)>::type;
    S s;
    std::memcpy(&s, &v, sizeof s);
    return s < 0 ? static_cast<S>(s ^ std::numeric_limits<S>::max()) : s;
  }
}

// --- Scalar semantics (on compute types) ----------------------------------

template <typename C>
inline C FloatMax(C a, C b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <typename C>
inline C FloatMin(C a, C b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

template <typename T>
inline T Max(T a, T b) {
  if constexpr (kIsFloat<T>) {
    return Store<T>(FloatMax(Load(a), Load(b)));
  } else {
    return a >= b ? a : b;
  }
}

template <typename T>
inline T Min(T a, T b) {
  if constexpr (kIsFloat<T>) {
    return Store<T>(FloatMin(Load(a), Load(b)));
  } else {
    return a <= b ? a : b;
  }
}

template <typename T>
inline T IntDivide(T a, T b) {
  if (b == 0) return static_cast<T>(~T{0});  // -1, or all ones unsigned
  if constexpr (std::is_signed_v<T>) {
    if (b == -1 && a == std::numeric_limits<T>::min()) return a;
  }
  return static_cast<T>(a / b);
}

template <typename T>
inline T IntRemainder(T a, T b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

template <typename T>
inline T IntPower(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) return base == 1 ? 1 : 0;
  }
  WrapT<T> result = 1;
  WrapT<T> b =
      static_cast<WrapT<T>>(static_cast<std::make_unsigned_t<T>>(base));
  auto e = static_cast<std::make_unsigned_t<T>>(exponent);
  while (e != 0) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<T>(result);
}

template <typename T>
inline bool ShiftOutOfRange(T amount) {
  using U = std::make_unsigned_t<T>;
  return static_cast<U>(amount) >= static_cast<U>(8 * sizeof(T));
}

template <typename T>
inline T ShiftLeft(T a, T b) {
  if (ShiftOutOfRange(b)) return 0;
  return static_cast<T>(
      static_cast<WrapT<T>>(static_cast<std::make_unsigned_t<T>>(a))
      << static_cast<std::make_unsigned_t<T>>(b));
}

template <typename T>
inline T ShiftRightArithmetic(T a, T b) {
  using S = std::make_signed_t<T>;
  S s = static_cast<S>(a);
  if (ShiftOutOfRange(b)) return static_cast<T>(s < 0 ? S(-1) : S(0));
  return static_cast<T>(s >> static_cast<std::make_unsigned_t<T>>(b));
}

template <typename T>
inline T ShiftRightLogical(T a, T b) {
  using U = std::make_unsigned_t<T>;
  if (ShiftOutOfRange(b)) return 0;
  return static_cast<T>(static_cast<U>(a) >> static_cast<U>(b));
}

template <typename T>
inline T CountLeadingZeros(T v) {
  constexpr int kBits = 8 * sizeof(T);
  uint64_t x = static_cast<std::make_unsigned_t<T>>(v);
  if (x == 0) return static_cast<T>(kBits);
  return static_cast<T>(__builtin_clzll(x) - (64 - kBits));
}

template <typename T>
inline T PopulationCount(T v) {
  uint64_t x = static_cast<std::make_unsigned_t<T>>(v);
  return static_cast<T>(__builtin_popcountll(x));
}

template <typename C>
inline C FloatSign(C x) {
  if (std::isnan(x)) return x;
  return std::copysign(x != C(0) ? C(1) : C(0), x);
}

template <typename C>
inline C FloatPower(C a, C b) {
  if (a == C(1) || b == C(0)) return C(1);
  return std::pow(a, b);
}

// (a + bi)^(c + di) as XLA computes it (and the code generators,
// backends/common/complex_emitter.cc): |z|^c e^(-d t) (cos u + i sin u)
// with t = arg z, u = c t + d log|z|, NaN where that formula is (a zero
// base with an exponent that is not a positive real: 0^-1, 0^i, 0^(2+i)),
// and XLA's special values: 1 for a zero exponent or a base of 1, 0^c = 0
// and inf^c = inf for real c > 0, inf^c = 0 for real c < 0. Not std::pow,
// whose libstdc++ form returns 0 for every zero base.
template <typename C>
inline C ComplexPower(C z, C w) {
  using R = typename C::value_type;
  const R a = z.real(), b = z.imag(), c = w.real(), d = w.imag();
  const R inf = std::numeric_limits<R>::infinity();
  const bool real_c_pos = d == 0 && c > 0;
  const bool real_c_neg = d == 0 && c < 0;
  const bool base_zero = a == 0 && b == 0;
  const bool base_inf = a == inf && b == 0;
  if ((a == 1 && b == 0) || (c == 0 && d == 0)) return C(1);
  if ((base_zero && real_c_pos) || (base_inf && real_c_neg)) return C(0);
  if (base_inf && real_c_pos) return C(inf, 0);
  const R abs = std::hypot(a, b);
  const R arg = std::atan2(b, a);
  const R magnitude = std::pow(abs, c) * std::exp(-(d * arg));
  const R angle = c * arg + d * std::log(abs);
  return C(magnitude * std::cos(angle), magnitude * std::sin(angle));
}

template <typename C>
inline C ComplexSign(C z) {
  auto m = std::abs(z);
  return m == 0 ? C(0) : z / m;
}

// XLA's reduce-precision on an f32/f64 value: round the mantissa to nearest
// even, then flush values outside the reduced exponent range to zero or
// infinity; NaN stays NaN.
template <typename C>
inline C ReducePrecision(C value, int exponent_bits, int mantissa_bits) {
  using U = std::conditional_t<sizeof(C) == 4, uint32_t, uint64_t>;
  constexpr int kSrcMantissa = std::numeric_limits<C>::digits - 1;
  constexpr int kSrcExponent = 8 * sizeof(C) - kSrcMantissa - 1;
  U bits;
  std::memcpy(&bits, &value, sizeof bits);
  if (mantissa_bits < kSrcMantissa) {
    const U last_mantissa_bit_mask = U{1} << (kSrcMantissa - mantissa_bits);
    const U base_rounding_bias = (last_mantissa_bit_mask >> 1) - 1;
    const U x_last_mantissa_bit =
        (bits & last_mantissa_bit_mask) >> (kSrcMantissa - mantissa_bits);
    const U x_rounding_bias = x_last_mantissa_bit + base_rounding_bias;
    const U truncation_mask = ~(last_mantissa_bit_mask - 1);
    bits = (bits + x_rounding_bias) & truncation_mask;
  }
  if (exponent_bits < kSrcExponent) {
    const U sign_bit_mask = U{1} << (8 * sizeof(C) - 1);
    const U exp_bits_mask = ((U{1} << kSrcExponent) - 1) << kSrcMantissa;
    const U exponent_bias = (U{1} << (kSrcExponent - 1)) - 1;
    const U reduced_exponent_bias = (U{1} << (exponent_bits - 1)) - 1;
    const U reduced_max_exponent = exponent_bias + reduced_exponent_bias;
    const U reduced_min_exponent = exponent_bias - reduced_exponent_bias;
    const U x_exponent = bits & exp_bits_mask;
    const bool x_overflows =
        x_exponent > (reduced_max_exponent << kSrcMantissa);
    const bool x_underflows =
        x_exponent <= (reduced_min_exponent << kSrcMantissa);
    const U x_signed_zero = bits & sign_bit_mask;
    const U x_signed_inf = x_signed_zero | exp_bits_mask;
    if (x_overflows) bits = x_signed_inf;
    if (x_underflows) bits = x_signed_zero;
  }
  C result;
  std::memcpy(&result, &bits, sizeof result);
  // The input NaN, whatever mantissa_bits: XLA's compiled code (MHLO's
  // reducePrecision, XLA:CPU and XLA:GPU) keeps it; XLA's HloEvaluator alone
  // gives infinity when no mantissa bits are left.
  return std::isnan(value) ? value : result;
}

// XLA's convert between element types.
template <typename From, typename To>
inline To ConvertValue(From v) {
  if constexpr (std::is_same_v<From, To>) {
    return v;
  } else if constexpr (kIsPred<To>) {
    if constexpr (kIsHalf<From>) {
      return static_cast<float>(v) != 0.0f;
    } else if constexpr (kIsComplex<From>) {
      return v != From(0);
    } else {
      return v != From(0);
    }
  } else if constexpr (kIsComplex<To>) {
    using R = typename To::value_type;
    if constexpr (kIsComplex<From>) {
      return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    } else {
      return To(static_cast<R>(Load(v)), R(0));
    }
  } else if constexpr (kIsComplex<From>) {
    return ConvertValue<typename From::value_type, To>(v.real());
  } else if constexpr (kIsInt<To> && kIsFloat<From>) {
    double d = static_cast<double>(Load(v));
    if (std::isnan(d)) return To{0};
    if (d >= static_cast<double>(std::numeric_limits<To>::max())) {
      return std::numeric_limits<To>::max();
    }
    if (d <= static_cast<double>(std::numeric_limits<To>::lowest())) {
      return std::numeric_limits<To>::lowest();
    }
    return static_cast<To>(d);
  } else if constexpr (kIsHalf<To>) {
    if constexpr (std::is_same_v<From, double>) {
      return To(v);
    } else {
      return To(static_cast<float>(Load(v)));
    }
  } else {
    return static_cast<To>(Load(v));
  }
}

// The binary opcodes with a ReduceRow kernel, as operations on T.
struct AddOp {
  template <typename T>
  static constexpr bool kOk = true;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (kIsPred<T>) {
      return a || b;
    } else if constexpr (kIsInt<T>) {
      return static_cast<T>(static_cast<WrapT<T>>(a) +
                            static_cast<WrapT<T>>(b));
    } else {
      return Store<T>(Load(a) + Load(b));
    }
  }
};

// (a + bi)(c + di) = (ac - bd) + (ad + bc)i, as XLA and the code
// generators multiply (backends/common/complex_emitter.cc). Not
// std::complex's operator*, which GCC compiles to __mulsc3: C99 Annex G's
// recovery of infinities turns (-inf + nan i)^2 into (inf, nan) where XLA's
// product is (nan, nan).
template <typename C>
inline C ComplexMultiply(C x, C y) {
  using R = typename C::value_type;
  const R a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  return C(a * c - b * d, a * d + b * c);
}

// (a + bi) / (c + di) as XLA and the code generators divide
// (backends/common/complex_emitter.cc): Smith's algorithm, scaled by the
// larger of |c| and |d|; where that gives (NaN, NaN), the limits for a zero
// denominator, an infinite numerator over a finite denominator and a
// finite numerator over an infinite one. Not std::complex's operator/
// (libgcc's __divsc3 scales by logb and recovers infinities its own way):
// (1e30 + inf i) / (1e-20 + 1e30 i) is (inf, nan) in XLA, (inf, inf) there.
template <typename C>
inline C ComplexDivide(C x, C y) {
  using R = typename C::value_type;
  const R a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  R re, im;
  if (std::abs(c) < std::abs(d)) {
    const R ratio = c / d;
    const R denominator = d + c * ratio;
    re = (ratio * a + b) / denominator;
    im = (ratio * b - a) / denominator;
  } else {
    const R ratio = d / c;
    const R denominator = c + d * ratio;
    re = (ratio * b + a) / denominator;
    im = (b - ratio * a) / denominator;
  }
  if (!std::isnan(re) || !std::isnan(im)) return C(re, im);
  const R inf = std::numeric_limits<R>::infinity();
  // +-1 for an infinite part, +-0 for a finite one.
  auto unit = [](R v) { return std::copysign(std::isinf(v) ? R(1) : R(0), v); };
  if (c == 0 && d == 0 && (!std::isnan(a) || !std::isnan(b))) {
    const R signed_inf = std::copysign(inf, c);
    return C(signed_inf * a, signed_inf * b);
  }
  if ((std::isinf(a) || std::isinf(b)) && std::isfinite(c) &&
      std::isfinite(d)) {
    return C(inf * (unit(a) * c + unit(b) * d),
             inf * (unit(b) * c - unit(a) * d));
  }
  if ((std::isinf(c) || std::isinf(d)) && std::isfinite(a) &&
      std::isfinite(b)) {
    return C(R(0) * (a * unit(c) + b * unit(d)),
             R(0) * (b * unit(c) - a * unit(d)));
  }
  return C(re, im);
}

struct MulOp {
  template <typename T>
  static constexpr bool kOk = true;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (kIsPred<T>) {
      return a && b;
    } else if constexpr (kIsInt<T>) {
      return static_cast<T>(static_cast<WrapT<T>>(a) *
                            static_cast<WrapT<T>>(b));
    } else if constexpr (kIsComplex<T>) {
      return ComplexMultiply(a, b);
    } else {
      return Store<T>(Load(a) * Load(b));
    }
  }
};

struct MaxOp {
  template <typename T>
  static constexpr bool kOk = !kIsComplex<T>;
  template <typename T>
  static T Apply(T a, T b) {
    return Max(a, b);
  }
};

struct MinOp {
  template <typename T>
  static constexpr bool kOk = !kIsComplex<T>;
  template <typename T>
  static T Apply(T a, T b) {
    return Min(a, b);
  }
};

struct AndOp {
  template <typename T>
  static constexpr bool kOk = std::is_integral_v<T>;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (kIsPred<T>) {
      return a && b;
    } else {
      return static_cast<T>(a & b);
    }
  }
};

struct OrOp {
  template <typename T>
  static constexpr bool kOk = std::is_integral_v<T>;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (kIsPred<T>) {
      return a || b;
    } else {
      return static_cast<T>(a | b);
    }
  }
};

struct XorOp {
  template <typename T>
  static constexpr bool kOk = std::is_integral_v<T>;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (kIsPred<T>) {
      return a != b;
    } else {
      return static_cast<T>(a ^ b);
    }
  }
};

// Calls fn(T{}) for the native type of `type`; returns what it returns, or
// `fallback` for unsupported types.
template <typename R, typename Fn>
R DispatchType(PrimitiveType type, R fallback, Fn&& fn) {
  R result = fallback;
  (void)TypeSwitch(type, [&](auto tag) {
    using T = NativeType<decltype(tag)::value>;
    result = fn(T{});
  });
  return result;
}

}  // namespace eval
}  // namespace hloc

#endif  // HLO_EVALUATOR_KERNEL_UTIL_H_

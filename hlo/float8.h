// The narrow float types of XLA and JAX (ml_dtypes), each stored in one
// byte: f8e5m2, f8e4m3, f8e3m4 (IEEE-like: an all-ones exponent is inf or
// NaN), f8e4m3fn (no inf; only S.1111.111 is NaN), f8e4m3fnuz,
// f8e5m2fnuz, f8e4m3b11fnuz (no inf, no -0: the bits of -0, 0x80, are the
// one NaN), and the microscaling (MX) element and scale types f4e2m1fn
// (4 bits in the low half of the byte, S.EE.M: no inf, no NaN) and
// f8e8m0fnu (2^(bits - 127), no sign, no zero, 0xFF is NaN). One
// description of each format drives both directions of conversion, so the
// host (evaluator, constants, .npy data) and the code generators
// (backends/common/float8_convert) agree bit for bit with ml_dtypes and
// XLA: from f32 round to nearest even; past the largest finite value an
// IEEE-like type gives inf, f4e2m1fn saturates to +-6 and the others give
// NaN; NaN stays NaN (with its sign where the format has one); fnuz types
// turn -0 and underflows of negative values into +0. f4e2m1fn has no NaN
// to give: a NaN becomes -0, as XLA's code generators do (ml_dtypes gives
// +NaN -0 and -NaN +0). f8e8m0fnu rounds the f32 bits, as XLA and
// ml_dtypes do: half way between two powers of two rounds up, anything at
// or below 2^-127 gives 2^-127 (it has no zero), zero, negatives, inf and
// values from 1.5 x 2^127 up give NaN.
#ifndef HLO_FLOAT8_H_
#define HLO_FLOAT8_H_

#include <cstdint>
#include <type_traits>

#include "hlo/float16.h"
#include "hlo/primitive_type.h"

namespace hloc {

struct Float8Format {
  // kFiniteOnly: no inf, no NaN (f4e2m1fn). kExponentOnly: f8e8m0fnu.
  enum Kind { kIeee, kFn, kFnuz, kFiniteOnly, kExponentOnly };
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Kind kind;

  // The sign bit (0x80 for the 8-bit formats, 0x8 for f4e2m1fn); 0 for
  // f8e8m0fnu, which has none.
  constexpr uint8_t SignBit() const {
    return kind == kExponentOnly ? 0 : 1 << (exponent_bits + mantissa_bits);
  }
  // The bits a value occupies (the rest of the byte is zero).
  constexpr uint8_t Mask() const {
    return kind == kExponentOnly ? 0xff : (SignBit() << 1) - 1;
  }

  // Unbiased exponent of the smallest normal value.
  constexpr int MinExponent() const { return 1 - bias; }
  // Largest exponent field of a finite value.
  constexpr int MaxExponentField() const {
    return kind == kIeee || kind == kExponentOnly ? (1 << exponent_bits) - 2
                                                  : (1 << exponent_bits) - 1;
  }
  // Largest mantissa field of a finite value at MaxExponentField.
  constexpr int MaxMantissaAtTop() const {
    return kind == kFn ? (1 << mantissa_bits) - 2 : (1 << mantissa_bits) - 1;
  }
  // The NaN this format gives for a NaN (or an overflow where there is no
  // inf) of sign `negative`; f4e2m1fn's stand-in -0 (see the top comment).
  constexpr uint8_t Nan(bool negative) const {
    if (kind == kFnuz) return 0x80;
    if (kind == kFiniteOnly) return SignBit();
    if (kind == kExponentOnly) return 0xff;
    const uint8_t sign = negative ? 0x80 : 0;
    const uint8_t exp_all = ((1 << exponent_bits) - 1) << mantissa_bits;
    if (kind == kFn) return sign | exp_all | ((1 << mantissa_bits) - 1);
    // IEEE-like: the quiet NaN (top mantissa bit), as ml_dtypes gives.
    return sign | exp_all | (1 << (mantissa_bits - 1));
  }
  constexpr uint8_t Inf(bool negative) const {
    return (negative ? 0x80 : 0) |
           (((1 << exponent_bits) - 1) << mantissa_bits);
  }
};

// The format of a narrow float element type (the 8-bit ones, f4e2m1fn and
// f8e8m0fnu); nullptr for other types.
const Float8Format* Float8FormatOf(PrimitiveType type);
inline bool IsFloat8Type(PrimitiveType type) {
  return Float8FormatOf(type) != nullptr;
}

class HloInstruction;
// Whether `instr` or one of its operands is an array of a float type of
// this header.
bool TouchesFloat8(const HloInstruction& instr);

// f32 -> the format's bits (round to nearest even, see the top comment).
uint8_t FloatToFloat8Bits(float f, const Float8Format& format);
// f64 -> f32 rounded to odd: the nearest f32 if exact, else of the two
// f32 values around d the one whose last mantissa bit is 1 (FLT_MAX past
// it). Rounding that to a format with at least two fewer mantissa bits
// rounds d once: f32's rounding to nearest would move an f64 just past a
// half way point of the format onto it (1 + 2^-4 + 2^-40 is 1.125 in
// f8e4m3fn, not 1), where XLA rounds the f64 itself.
float F64ToF32RoundToOdd(double d);
// The format's bits -> f32 (exact; bits outside Mask() are ignored).
float Float8BitsToFloat(uint8_t bits, const Float8Format& format);

// A format as a type, for the host values below.
template <PrimitiveType kType>
struct Float8FormatFor;
#define HLOC_FLOAT8_FORMAT(T, e, m, bias, kind)                            \
  template <>                                                              \
  struct Float8FormatFor<T> {                                              \
    static constexpr Float8Format kFormat{e, m, bias, Float8Format::kind}; \
  };
HLOC_FLOAT8_FORMAT(F8E5M2, 5, 2, 15, kIeee)
HLOC_FLOAT8_FORMAT(F8E4M3, 4, 3, 7, kIeee)
HLOC_FLOAT8_FORMAT(F8E3M4, 3, 4, 3, kIeee)
HLOC_FLOAT8_FORMAT(F8E4M3FN, 4, 3, 7, kFn)
HLOC_FLOAT8_FORMAT(F8E4M3FNUZ, 4, 3, 8, kFnuz)
HLOC_FLOAT8_FORMAT(F8E5M2FNUZ, 5, 2, 16, kFnuz)
HLOC_FLOAT8_FORMAT(F8E4M3B11FNUZ, 4, 3, 11, kFnuz)
HLOC_FLOAT8_FORMAT(F4E2M1FN, 2, 1, 1, kFiniteOnly)
HLOC_FLOAT8_FORMAT(F8E8M0FNU, 8, 0, 127, kExponentOnly)
#undef HLOC_FLOAT8_FORMAT

// An 8-bit float stored as its bits; converts implicitly to float so host
// code computes in f32 and rounds once on the way back (as Float16Base).
template <PrimitiveType kType_>
struct Float8 {
  static constexpr PrimitiveType kType = kType_;
  static constexpr const Float8Format& kFormat =
      Float8FormatFor<kType_>::kFormat;
  uint8_t bits = 0;

  Float8() = default;
  explicit Float8(float f) : bits(FloatToFloat8Bits(f, kFormat)) {}
  explicit Float8(double d) : Float8(F64ToF32RoundToOdd(d)) {}
  static Float8 FromBits(uint8_t b) {
    Float8 v;
    v.bits = b;
    return v;
  }
  operator float() const { return Float8BitsToFloat(bits, kFormat); }
};

template <typename T>
struct IsFloat8 : std::false_type {};
template <PrimitiveType kType>
struct IsFloat8<Float8<kType>> : std::true_type {};

using Float8E5M2 = Float8<F8E5M2>;
using Float8E4M3 = Float8<F8E4M3>;
using Float8E3M4 = Float8<F8E3M4>;
using Float8E4M3FN = Float8<F8E4M3FN>;
using Float8E4M3FNUZ = Float8<F8E4M3FNUZ>;
using Float8E5M2FNUZ = Float8<F8E5M2FNUZ>;
using Float8E4M3B11FNUZ = Float8<F8E4M3B11FNUZ>;
using Float4E2M1FN = Float8<F4E2M1FN>;
using Float8E8M0FNU = Float8<F8E8M0FNU>;

}  // namespace hloc

#endif  // HLO_FLOAT8_H_

// The 8-bit float types of XLA and JAX (ml_dtypes): f8e5m2, f8e4m3,
// f8e3m4 (IEEE-like: an all-ones exponent is inf or NaN), f8e4m3fn (no
// inf; only S.1111.111 is NaN) and f8e4m3fnuz, f8e5m2fnuz, f8e4m3b11fnuz
// (no inf, no -0: the bits of -0, 0x80, are the one NaN). One description
// of each format drives both directions of conversion, so the host
// (evaluator, constants, .npy data) and the code generators
// (backends/common/float8_convert) agree bit for bit with ml_dtypes and
// XLA: from f32 round to nearest even; past the largest finite value an
// IEEE-like type gives inf and the others NaN; NaN stays NaN (with its
// sign where the format has one); fnuz types turn -0 and underflows of
// negative values into +0.
#ifndef HLO_FLOAT8_H_
#define HLO_FLOAT8_H_

#include <cstdint>
#include <type_traits>

#include "hlo/float16.h"
#include "hlo/primitive_type.h"

namespace hloc {

struct Float8Format {
  enum Kind { kIeee, kFn, kFnuz };
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Kind kind;

  // Unbiased exponent of the smallest normal value.
  constexpr int MinExponent() const { return 1 - bias; }
  // Largest exponent field of a finite value.
  constexpr int MaxExponentField() const {
    return kind == kIeee ? (1 << exponent_bits) - 2 : (1 << exponent_bits) - 1;
  }
  // Largest mantissa field of a finite value at MaxExponentField.
  constexpr int MaxMantissaAtTop() const {
    return kind == kFn ? (1 << mantissa_bits) - 2 : (1 << mantissa_bits) - 1;
  }
  // The NaN this format gives for a NaN (or an overflow where there is no
  // inf) of sign `negative`.
  constexpr uint8_t Nan(bool negative) const {
    if (kind == kFnuz) return 0x80;
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

// The format of an 8-bit float element type; nullptr for other types.
const Float8Format* Float8FormatOf(PrimitiveType type);
inline bool IsFloat8Type(PrimitiveType type) {
  return Float8FormatOf(type) != nullptr;
}

class HloInstruction;
// Whether `instr` or one of its operands is an array of an 8-bit float.
bool TouchesFloat8(const HloInstruction& instr);

// f32 -> the format's bits (round to nearest even, see the top comment).
uint8_t FloatToFloat8Bits(float f, const Float8Format& format);
// The format's bits -> f32 (exact).
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
  // Via f32: f32 has more than twice the format's mantissa bits plus two,
  // so the double rounding cannot change the result.
  explicit Float8(double d) : Float8(static_cast<float>(d)) {}
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

}  // namespace hloc

#endif  // HLO_FLOAT8_H_

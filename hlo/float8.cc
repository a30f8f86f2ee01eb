#include "hlo/float8.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hlo/instruction.h"

namespace hloc {

const Float8Format* Float8FormatOf(PrimitiveType type) {
  switch (type) {
    case F8E5M2:
      return &Float8FormatFor<F8E5M2>::kFormat;
    case F8E4M3:
      return &Float8FormatFor<F8E4M3>::kFormat;
    case F8E3M4:
      return &Float8FormatFor<F8E3M4>::kFormat;
    case F8E4M3FN:
      return &Float8FormatFor<F8E4M3FN>::kFormat;
    case F8E4M3FNUZ:
      return &Float8FormatFor<F8E4M3FNUZ>::kFormat;
    case F8E5M2FNUZ:
      return &Float8FormatFor<F8E5M2FNUZ>::kFormat;
    case F8E4M3B11FNUZ:
      return &Float8FormatFor<F8E4M3B11FNUZ>::kFormat;
    case F4E2M1FN:
      return &Float8FormatFor<F4E2M1FN>::kFormat;
    case F8E8M0FNU:
      return &Float8FormatFor<F8E8M0FNU>::kFormat;
    default:
      return nullptr;
  }
}

bool TouchesFloat8(const HloInstruction& instr) {
  auto is_float8 = [](const Shape& shape) {
    return shape.IsArray() && IsFloat8Type(shape.element_type());
  };
  if (is_float8(instr.shape())) return true;
  for (const HloInstruction* operand : instr.operands()) {
    if (is_float8(operand->shape())) return true;
  }
  return false;
}

namespace {

// f8e8m0fnu from f32, on the bits (the top comment of float8.h): the
// exponent field is the result, rounded half way up by the mantissa.
uint8_t FloatToE8M0Bits(float f) {
  const uint32_t x = FloatBits(f);
  if (static_cast<int32_t>(x) <= 0) return 0xff;  // zero, negative, -NaN
  if (x <= 0x00400000u) return 0;                  // at or below 2^-127
  const uint32_t field = (x + 0x00400000u) >> 23;
  return field >= 0xff ? 0xff : static_cast<uint8_t>(field);
}

float E8M0BitsToFloat(uint8_t bits) {
  if (bits == 0xff) return std::numeric_limits<float>::quiet_NaN();
  // 2^-127 is an f32 denormal: its one mantissa bit.
  return BitsToFloat(bits == 0 ? 0x00400000u : uint32_t{bits} << 23);
}

}  // namespace

float F64ToF32RoundToOdd(double d) {
  const float nearest = static_cast<float>(d);
  if (static_cast<double>(nearest) == d || std::isnan(d)) return nearest;
  uint32_t bits = FloatBits(nearest);
  if ((bits & 1) == 0) {
    // The other neighbour of d, odd: one step away from zero when d is
    // farther out than the nearest, else one step towards it (from inf to
    // FLT_MAX).
    bits = std::fabs(d) > std::fabs(static_cast<double>(nearest)) ? bits + 1
                                                                  : bits - 1;
  }
  return BitsToFloat(bits);
}

uint8_t FloatToFloat8Bits(float f, const Float8Format& format) {
  if (format.kind == Float8Format::kExponentOnly) return FloatToE8M0Bits(f);
  const uint32_t x = FloatBits(f);
  const bool negative = (x >> 31) != 0;
  const uint32_t abs = x & 0x7fffffffu;
  const uint8_t sign = negative ? format.SignBit() : 0;
  // Past the largest finite value: inf, NaN, or (f4e2m1fn) the largest.
  const uint8_t too_large =
      format.kind == Float8Format::kIeee ? format.Inf(negative)
      : format.kind == Float8Format::kFiniteOnly
          ? static_cast<uint8_t>(sign | (format.SignBit() - 1))
          : format.Nan(negative);
  if (abs > 0x7f800000u) return format.Nan(negative);
  if (abs == 0x7f800000u) return too_large;
  const int m = format.mantissa_bits;
  // The exponent the result is quantised at: |f|'s own, or the smallest
  // normal one for values in (or below) the format's denormal range.
  const int exponent =
      std::max(static_cast<int>(abs >> 23) - 127, format.MinExponent());
  // One unit in the last place at that exponent becomes 1 (exact: a power
  // of two), so rounding to an integer is rounding to the format.
  uint32_t mantissa = static_cast<uint32_t>(
      std::nearbyint(std::ldexp(BitsToFloat(abs), m - exponent)));
  int result_exponent = exponent;
  if (mantissa >= (2u << m)) {  // rounded up into the next binade
    mantissa >>= 1;
    ++result_exponent;
  }
  uint8_t magnitude;
  if (mantissa < (1u << m)) {  // a denormal or zero
    magnitude = static_cast<uint8_t>(mantissa);
  } else {
    const int field = result_exponent + format.bias;
    const int fraction = static_cast<int>(mantissa - (1u << m));
    if (field > format.MaxExponentField() ||
        (field == format.MaxExponentField() &&
         fraction > format.MaxMantissaAtTop())) {
      return too_large;
    }
    magnitude = static_cast<uint8_t>((field << m) | fraction);
  }
  if (!negative) return magnitude;
  // fnuz formats have no -0: 0x80 is their NaN.
  if (format.kind == Float8Format::kFnuz && magnitude == 0) return 0;
  return magnitude | sign;
}

float Float8BitsToFloat(uint8_t bits, const Float8Format& format) {
  if (format.kind == Float8Format::kExponentOnly) return E8M0BitsToFloat(bits);
  bits &= format.Mask();
  const uint8_t sign_bit = format.SignBit();
  const bool negative = (bits & sign_bit) != 0;
  const int m = format.mantissa_bits;
  const int magnitude = bits & (sign_bit - 1);
  const int field = magnitude >> m;
  const int fraction = bits & ((1 << m) - 1);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  switch (format.kind) {
    case Float8Format::kFnuz:
      if (bits == 0x80) return nan;
      break;
    case Float8Format::kFn:
      if (magnitude == 0x7f) return negative ? -nan : nan;
      break;
    case Float8Format::kIeee:
      if (field == (1 << format.exponent_bits) - 1) {
        const float v =
            fraction != 0 ? nan : std::numeric_limits<float>::infinity();
        return negative ? -v : v;
      }
      break;
    case Float8Format::kFiniteOnly:
    case Float8Format::kExponentOnly:
      break;
  }
  const float v =
      field == 0
          ? std::ldexp(static_cast<float>(fraction), format.MinExponent() - m)
          : std::ldexp(static_cast<float>((1 << m) + fraction),
                       field - format.bias - m);
  return negative ? -v : v;
}

}  // namespace hloc

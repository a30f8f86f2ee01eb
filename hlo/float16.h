// IEEE half (f16) and bfloat16 (bf16) host types. Arithmetic goes through f32;
// conversions from f32/f64 round to nearest even, as XLA does, and keep NaN a
// (quiet) NaN.
#ifndef HLO_FLOAT16_H_
#define HLO_FLOAT16_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace hloc {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// f32 -> f16 bits with round-to-nearest-even, overflow to inf, gradual
// underflow to f16 denormals.
inline uint16_t FloatToHalfBits(float f) {
  uint32_t x = FloatBits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    return sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u);
  }
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // rounds to inf
  if (abs < 0x38800000u) {
    // Result is an f16 denormal (or zero): scale into the denormal grid and
    // let the FPU round to nearest even.
    float scaled = BitsToFloat(abs) * 16777216.0f;  // 2^24: one f16 ulp -> 1
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  uint32_t mant_odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
  return sign | static_cast<uint16_t>(abs >> 13);
}

inline float HalfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {  // zero or denormal
    float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return BitsToFloat(FloatBits(v) | sign);
  }
  if (exp == 31) return BitsToFloat(sign | 0x7f800000u | (mant << 13));
  return BitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

inline uint16_t FloatToBF16Bits(float f) {
  uint32_t x = FloatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  }
  uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return static_cast<uint16_t>(x >> 16);
}

inline float BF16BitsToFloat(uint16_t b) {
  return BitsToFloat(static_cast<uint32_t>(b) << 16);
}

// A 16-bit float stored as its bits; converts implicitly to float so host code
// computes in f32 and rounds once on the way back.
template <uint16_t (*kFromFloat)(float), float (*kToFloat)(uint16_t)>
struct Float16Base {
  uint16_t bits = 0;

  Float16Base() = default;
  explicit Float16Base(float f) : bits(kFromFloat(f)) {}
  // Double rounds via f32; that double rounding cannot change an f16/bf16
  // result because f32 has more than twice their mantissa bits plus two.
  explicit Float16Base(double d) : bits(kFromFloat(static_cast<float>(d))) {}
  static Float16Base FromBits(uint16_t b) {
    Float16Base v;
    v.bits = b;
    return v;
  }
  operator float() const { return kToFloat(bits); }
};

using Half = Float16Base<FloatToHalfBits, HalfBitsToFloat>;
using BFloat16 = Float16Base<FloatToBF16Bits, BF16BitsToFloat>;

}  // namespace hloc

#endif  // HLO_FLOAT16_H_

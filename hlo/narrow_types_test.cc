// The host's conversions of the microscaling floats (f4e2m1fn, f8e8m0fnu)
// and the sub-byte integers, exhaustively against ml_dtypes: the tables
// below are ml_dtypes' results (hlo/testdata/narrow_type_tables.py prints
// them), and every code generator is checked against these conversions
// (backends/cpu/cpu_test.cc, Microscaling*).
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/float16.h"
#include "hlo/float8.h"
#include "hlo/literal.h"
#include "hlo/sub_byte_int.h"

namespace hloc {
namespace {

// The result of converting the f32 value of every bf16 bit pattern p
// (p << 16), as runs: {first pattern, result bits} holds up to the next
// run's first pattern.
using Runs = std::vector<std::pair<int, int>>;

void ExpectRuns(PrimitiveType type, const Runs& runs) {
  const Float8Format& format = *Float8FormatOf(type);
  for (size_t r = 0; r < runs.size(); ++r) {
    const int end = r + 1 < runs.size() ? runs[r + 1].first : 0x10000;
    for (int p = runs[r].first; p < end; ++p) {
      const float f = BitsToFloat(static_cast<uint32_t>(p) << 16);
      ASSERT_EQ(FloatToFloat8Bits(f, format), runs[r].second)
          << PrimitiveTypeName(type) << " of " << f << " (bf16 0x" << std::hex
          << p << ")";
    }
  }
}

// ml_dtypes, except that a NaN gives -0 (0x8) whatever its sign, as XLA's
// code generators give it (ml_dtypes gives +0 for a negative NaN).
TEST(MicroscalingTest, F4E2M1FNFromEveryBF16Value) {
  ExpectRuns(F4E2M1FN, {{0x0000, 0x00},
                        {0x3e81, 0x01},
                        {0x3f40, 0x02},
                        {0x3fa1, 0x03},
                        {0x3fe0, 0x04},
                        {0x4021, 0x05},
                        {0x4060, 0x06},
                        {0x40a1, 0x07},
                        {0x7f81, 0x08},
                        {0xbe81, 0x09},
                        {0xbf40, 0x0a},
                        {0xbfa1, 0x0b},
                        {0xbfe0, 0x0c},
                        {0xc021, 0x0d},
                        {0xc060, 0x0e},
                        {0xc0a1, 0x0f},
                        {0xff81, 0x08}});
}

TEST(MicroscalingTest, F8E8M0FNUFromEveryBF16Value) {
  ExpectRuns(F8E8M0FNU,
             {{0x0000, 0xff}, {0x0001, 0x00}, {0x0041, 0x01}, {0x00c0, 0x02},
              {0x0140, 0x03}, {0x01c0, 0x04}, {0x0240, 0x05}, {0x02c0, 0x06},
              {0x0340, 0x07}, {0x03c0, 0x08}, {0x0440, 0x09}, {0x04c0, 0x0a},
              {0x0540, 0x0b}, {0x05c0, 0x0c}, {0x0640, 0x0d}, {0x06c0, 0x0e},
              {0x0740, 0x0f}, {0x07c0, 0x10}, {0x0840, 0x11}, {0x08c0, 0x12},
              {0x0940, 0x13}, {0x09c0, 0x14}, {0x0a40, 0x15}, {0x0ac0, 0x16},
              {0x0b40, 0x17}, {0x0bc0, 0x18}, {0x0c40, 0x19}, {0x0cc0, 0x1a},
              {0x0d40, 0x1b}, {0x0dc0, 0x1c}, {0x0e40, 0x1d}, {0x0ec0, 0x1e},
              {0x0f40, 0x1f}, {0x0fc0, 0x20}, {0x1040, 0x21}, {0x10c0, 0x22},
              {0x1140, 0x23}, {0x11c0, 0x24}, {0x1240, 0x25}, {0x12c0, 0x26},
              {0x1340, 0x27}, {0x13c0, 0x28}, {0x1440, 0x29}, {0x14c0, 0x2a},
              {0x1540, 0x2b}, {0x15c0, 0x2c}, {0x1640, 0x2d}, {0x16c0, 0x2e},
              {0x1740, 0x2f}, {0x17c0, 0x30}, {0x1840, 0x31}, {0x18c0, 0x32},
              {0x1940, 0x33}, {0x19c0, 0x34}, {0x1a40, 0x35}, {0x1ac0, 0x36},
              {0x1b40, 0x37}, {0x1bc0, 0x38}, {0x1c40, 0x39}, {0x1cc0, 0x3a},
              {0x1d40, 0x3b}, {0x1dc0, 0x3c}, {0x1e40, 0x3d}, {0x1ec0, 0x3e},
              {0x1f40, 0x3f}, {0x1fc0, 0x40}, {0x2040, 0x41}, {0x20c0, 0x42},
              {0x2140, 0x43}, {0x21c0, 0x44}, {0x2240, 0x45}, {0x22c0, 0x46},
              {0x2340, 0x47}, {0x23c0, 0x48}, {0x2440, 0x49}, {0x24c0, 0x4a},
              {0x2540, 0x4b}, {0x25c0, 0x4c}, {0x2640, 0x4d}, {0x26c0, 0x4e},
              {0x2740, 0x4f}, {0x27c0, 0x50}, {0x2840, 0x51}, {0x28c0, 0x52},
              {0x2940, 0x53}, {0x29c0, 0x54}, {0x2a40, 0x55}, {0x2ac0, 0x56},
              {0x2b40, 0x57}, {0x2bc0, 0x58}, {0x2c40, 0x59}, {0x2cc0, 0x5a},
              {0x2d40, 0x5b}, {0x2dc0, 0x5c}, {0x2e40, 0x5d}, {0x2ec0, 0x5e},
              {0x2f40, 0x5f}, {0x2fc0, 0x60}, {0x3040, 0x61}, {0x30c0, 0x62},
              {0x3140, 0x63}, {0x31c0, 0x64}, {0x3240, 0x65}, {0x32c0, 0x66},
              {0x3340, 0x67}, {0x33c0, 0x68}, {0x3440, 0x69}, {0x34c0, 0x6a},
              {0x3540, 0x6b}, {0x35c0, 0x6c}, {0x3640, 0x6d}, {0x36c0, 0x6e},
              {0x3740, 0x6f}, {0x37c0, 0x70}, {0x3840, 0x71}, {0x38c0, 0x72},
              {0x3940, 0x73}, {0x39c0, 0x74}, {0x3a40, 0x75}, {0x3ac0, 0x76},
              {0x3b40, 0x77}, {0x3bc0, 0x78}, {0x3c40, 0x79}, {0x3cc0, 0x7a},
              {0x3d40, 0x7b}, {0x3dc0, 0x7c}, {0x3e40, 0x7d}, {0x3ec0, 0x7e},
              {0x3f40, 0x7f}, {0x3fc0, 0x80}, {0x4040, 0x81}, {0x40c0, 0x82},
              {0x4140, 0x83}, {0x41c0, 0x84}, {0x4240, 0x85}, {0x42c0, 0x86},
              {0x4340, 0x87}, {0x43c0, 0x88}, {0x4440, 0x89}, {0x44c0, 0x8a},
              {0x4540, 0x8b}, {0x45c0, 0x8c}, {0x4640, 0x8d}, {0x46c0, 0x8e},
              {0x4740, 0x8f}, {0x47c0, 0x90}, {0x4840, 0x91}, {0x48c0, 0x92},
              {0x4940, 0x93}, {0x49c0, 0x94}, {0x4a40, 0x95}, {0x4ac0, 0x96},
              {0x4b40, 0x97}, {0x4bc0, 0x98}, {0x4c40, 0x99}, {0x4cc0, 0x9a},
              {0x4d40, 0x9b}, {0x4dc0, 0x9c}, {0x4e40, 0x9d}, {0x4ec0, 0x9e},
              {0x4f40, 0x9f}, {0x4fc0, 0xa0}, {0x5040, 0xa1}, {0x50c0, 0xa2},
              {0x5140, 0xa3}, {0x51c0, 0xa4}, {0x5240, 0xa5}, {0x52c0, 0xa6},
              {0x5340, 0xa7}, {0x53c0, 0xa8}, {0x5440, 0xa9}, {0x54c0, 0xaa},
              {0x5540, 0xab}, {0x55c0, 0xac}, {0x5640, 0xad}, {0x56c0, 0xae},
              {0x5740, 0xaf}, {0x57c0, 0xb0}, {0x5840, 0xb1}, {0x58c0, 0xb2},
              {0x5940, 0xb3}, {0x59c0, 0xb4}, {0x5a40, 0xb5}, {0x5ac0, 0xb6},
              {0x5b40, 0xb7}, {0x5bc0, 0xb8}, {0x5c40, 0xb9}, {0x5cc0, 0xba},
              {0x5d40, 0xbb}, {0x5dc0, 0xbc}, {0x5e40, 0xbd}, {0x5ec0, 0xbe},
              {0x5f40, 0xbf}, {0x5fc0, 0xc0}, {0x6040, 0xc1}, {0x60c0, 0xc2},
              {0x6140, 0xc3}, {0x61c0, 0xc4}, {0x6240, 0xc5}, {0x62c0, 0xc6},
              {0x6340, 0xc7}, {0x63c0, 0xc8}, {0x6440, 0xc9}, {0x64c0, 0xca},
              {0x6540, 0xcb}, {0x65c0, 0xcc}, {0x6640, 0xcd}, {0x66c0, 0xce},
              {0x6740, 0xcf}, {0x67c0, 0xd0}, {0x6840, 0xd1}, {0x68c0, 0xd2},
              {0x6940, 0xd3}, {0x69c0, 0xd4}, {0x6a40, 0xd5}, {0x6ac0, 0xd6},
              {0x6b40, 0xd7}, {0x6bc0, 0xd8}, {0x6c40, 0xd9}, {0x6cc0, 0xda},
              {0x6d40, 0xdb}, {0x6dc0, 0xdc}, {0x6e40, 0xdd}, {0x6ec0, 0xde},
              {0x6f40, 0xdf}, {0x6fc0, 0xe0}, {0x7040, 0xe1}, {0x70c0, 0xe2},
              {0x7140, 0xe3}, {0x71c0, 0xe4}, {0x7240, 0xe5}, {0x72c0, 0xe6},
              {0x7340, 0xe7}, {0x73c0, 0xe8}, {0x7440, 0xe9}, {0x74c0, 0xea},
              {0x7540, 0xeb}, {0x75c0, 0xec}, {0x7640, 0xed}, {0x76c0, 0xee},
              {0x7740, 0xef}, {0x77c0, 0xf0}, {0x7840, 0xf1}, {0x78c0, 0xf2},
              {0x7940, 0xf3}, {0x79c0, 0xf4}, {0x7a40, 0xf5}, {0x7ac0, 0xf6},
              {0x7b40, 0xf7}, {0x7bc0, 0xf8}, {0x7c40, 0xf9}, {0x7cc0, 0xfa},
              {0x7d40, 0xfb}, {0x7dc0, 0xfc}, {0x7e40, 0xfd}, {0x7ec0, 0xfe},
              {0x7f40, 0xff}});
}

// An f64 converts with one rounding, as XLA:CPU converts it: just past a
// half way point of the format it rounds away, where rounding to f32 first
// would land on the point and round to even (the expected bits are
// XLA:CPU's, jaxlib 0.10.2).
TEST(Float8Test, F64RoundsOnce) {
  const double tiny = std::ldexp(1.0, -40);
  struct Case {
    PrimitiveType type;
    double value;
    int bits;
  };
  for (const Case& c : std::vector<Case>{
           {F8E4M3FN, 1.0625 + tiny, 0x39},
           {F8E4M3FN, 1.0625 - tiny, 0x38},
           {F8E4M3FN, 1.0625, 0x38},
           {F8E4M3FN, 464 + tiny, 0x7f},  // past 448: NaN, no inf
           {F8E4M3FN, std::ldexp(1.0, -10) + tiny, 0x01},
           {F8E5M2, 4.5 + tiny, 0x45},
           {F8E5M2, 1.125 + tiny, 0x3d},
           {F8E4M3FNUZ, 1.0625 + tiny, 0x41},
           {F8E5M2FNUZ, 1.125 + tiny, 0x41},
           {F8E4M3B11FNUZ, 1.0625 + tiny, 0x59},
           {F8E3M4, 1.03125 + tiny, 0x31},
           {F8E4M3, 1.0625 + tiny, 0x39},
           {F8E8M0FNU, 1.5 - tiny, 127},
           {F8E8M0FNU, 1.5, 128},
           {F4E2M1FN, 1.25 + tiny, 0x3},
           {F8E4M3FN, 1e300, 0x7f},
           {F8E5M2, -1e300, 0xfc},
           {F8E5M2, std::numeric_limits<double>::infinity(), 0x7c},
       }) {
    EXPECT_EQ(
        FloatToFloat8Bits(F64ToF32RoundToOdd(c.value), *Float8FormatOf(c.type)),
        c.bits)
        << PrimitiveTypeName(c.type) << " of " << c.value;
  }
  EXPECT_TRUE(std::isnan(F64ToF32RoundToOdd(std::nan(""))));
  EXPECT_EQ(F64ToF32RoundToOdd(1e300), std::numeric_limits<float>::max());
  EXPECT_EQ(F64ToF32RoundToOdd(-1e-300),
            -std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(F64ToF32RoundToOdd(0.5), 0.5f);
}

TEST(MicroscalingTest, F8E8M0FNUFromF32Bits) {
  const Float8Format& format = *Float8FormatOf(F8E8M0FNU);
  // Half way rounds up on the f32 bits; at or below 2^-127 is 2^-127.
  EXPECT_EQ(FloatToFloat8Bits(BitsToFloat(0x3fbfffff), format), 127);
  EXPECT_EQ(FloatToFloat8Bits(BitsToFloat(0x3fc00000), format), 128);
  EXPECT_EQ(FloatToFloat8Bits(BitsToFloat(0x00400000), format), 0);
  EXPECT_EQ(FloatToFloat8Bits(BitsToFloat(0x00400001), format), 1);
  EXPECT_EQ(FloatToFloat8Bits(BitsToFloat(0x00000001), format), 0);
  EXPECT_EQ(FloatToFloat8Bits(BitsToFloat(0x7f3fffff), format), 254);
  EXPECT_EQ(FloatToFloat8Bits(BitsToFloat(0x7f400000), format), 255);
  EXPECT_EQ(FloatToFloat8Bits(-0.0f, format), 255);
}

// Every encoding decodes as ml_dtypes decodes it, and encodes back.
TEST(MicroscalingTest, EveryEncodingDecodes) {
  const float f4[16] = {0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f,
                        -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
  const Float8Format& f4_format = *Float8FormatOf(F4E2M1FN);
  for (int b = 0; b < 16; ++b) {
    const float v = Float8BitsToFloat(static_cast<uint8_t>(b), f4_format);
    EXPECT_EQ(v, f4[b]) << "f4e2m1fn " << b;
    EXPECT_EQ(std::signbit(v), std::signbit(f4[b])) << "f4e2m1fn " << b;
    EXPECT_EQ(FloatToFloat8Bits(v, f4_format), b);
    // The high half of the byte is not part of the value.
    EXPECT_EQ(Float8BitsToFloat(static_cast<uint8_t>(b | 0xa0), f4_format), v);
  }
  const Float8Format& e8_format = *Float8FormatOf(F8E8M0FNU);
  for (int b = 0; b < 255; ++b) {
    const float v = Float8BitsToFloat(static_cast<uint8_t>(b), e8_format);
    EXPECT_EQ(v, std::ldexp(1.0f, b - 127)) << "f8e8m0fnu " << b;
    EXPECT_EQ(FloatToFloat8Bits(v, e8_format), b);
  }
  EXPECT_TRUE(std::isnan(Float8BitsToFloat(0xff, e8_format)));
}

// ml_dtypes' s8 -> int4/uint4/int2/uint2 for s8 -128..127, as the hex
// digit of the low bits it stores: the conversion wraps.
TEST(SubByteIntTest, WrapsAsMlDtypes) {
  const char* const k4 =
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  const char* const k2 =
      "0123012301230123012301230123012301230123012301230123012301230123"
      "0123012301230123012301230123012301230123012301230123012301230123"
      "0123012301230123012301230123012301230123012301230123012301230123"
      "0123012301230123012301230123012301230123012301230123012301230123";
  for (PrimitiveType type : {S4, U4, S2, U2}) {
    const char* const table = BitWidth(type) == 4 ? k4 : k2;
    for (int v = -128; v < 128; ++v) {
      const char digit = table[v + 128];
      const int low = digit <= '9' ? digit - '0' : digit - 'a' + 10;
      const int64_t wrapped =
          WrapToBits(v, BitWidth(type), IsSignedIntegralType(type));
      const uint8_t byte = static_cast<uint8_t>(wrapped);
      EXPECT_EQ(ToMlDtypesByte(type, byte), low)
          << PrimitiveTypeName(type) << " of " << v;
      // The canonical byte is the value; ml_dtypes' byte reads back to it.
      uint8_t read = static_cast<uint8_t>(low);
      CanonicalizeSubByteInts(type, &read, 1);
      EXPECT_EQ(read, byte) << PrimitiveTypeName(type) << " of " << v;
      EXPECT_GE(wrapped,
                IsSignedIntegralType(type) ? -(1 << (BitWidth(type) - 1)) : 0);
      EXPECT_LT(wrapped, 1 << BitWidth(type));
    }
  }
}

TEST(SubByteIntTest, LiteralsWrapWhatTheyAreGiven) {
  Literal s4(Shape::Array(S4, {3}));
  s4.SetFromInt64(0, 9);
  s4.SetFromInt64(1, -9);
  s4.SetFromDouble(2, 7.0);
  EXPECT_EQ(s4.GetAsInt64(0), -7);
  EXPECT_EQ(s4.GetAsInt64(1), 7);
  EXPECT_EQ(s4.GetAsInt64(2), 7);
  EXPECT_EQ(s4.ToString(), "s4[3] {-7, 7, 7}");
  Literal u2(Shape::Array(U2, {2}));
  u2.SetFromInt64(0, -1);
  u2.SetFromInt64(1, 6);
  EXPECT_EQ(u2.ToString(), "u2[2] {3, 2}");
  Literal f4(Shape::Array(F4E2M1FN, {3}));
  f4.SetFromDouble(0, 5.5);
  f4.SetFromDouble(1, -0.25);
  f4.SetFromDouble(2, 1e30);
  EXPECT_EQ(f4.ToString(), "f4e2m1fn[3] {6, -0, 6}");
}

}  // namespace
}  // namespace hloc

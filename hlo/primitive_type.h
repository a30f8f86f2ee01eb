// Element types of HLO values. The enum values are XLA's (xla_data.proto), so
// that protos serialized by XLA/JAX map onto them without a translation table.
#ifndef HLO_PRIMITIVE_TYPE_H_
#define HLO_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloc {

enum PrimitiveType : int {
  PRIMITIVE_TYPE_INVALID = 0,
  PRED = 1,
  S8 = 2,
  S16 = 3,
  S32 = 4,
  S64 = 5,
  U8 = 6,
  U16 = 7,
  U32 = 8,
  U64 = 9,
  F16 = 10,
  F32 = 11,
  F64 = 12,
  TUPLE = 13,
  OPAQUE_TYPE = 14,
  C64 = 15,
  BF16 = 16,
  TOKEN = 17,
  C128 = 18,
  F8E5M2 = 19,
  F8E4M3FN = 20,
  S4 = 21,
  U4 = 22,
  F8E4M3B11FNUZ = 23,
  F8E5M2FNUZ = 24,
  F8E4M3FNUZ = 25,
  S2 = 26,
  U2 = 27,
  F8E4M3 = 28,
  F8E3M4 = 29,
  S1 = 30,
  U1 = 31,
  F4E2M1FN = 32,
  F8E8M0FNU = 33,
  F6E3M2FN = 35,
  F6E2M3FN = 36,
};

// Lower-case text name as XLA prints it ("f32", "pred", "token", ...).
absl::string_view PrimitiveTypeName(PrimitiveType type);

// Parses a lower-case text name; an error names the unknown spelling.
absl::StatusOr<PrimitiveType> ParsePrimitiveType(absl::string_view name);

// True for the types every stage of this compiler computes with: pred, the
// 8..64-bit integers, f16, bf16, f32, f64, c64, c128, the narrow floats of
// hlo/float8.h (the 8-bit ones, f4e2m1fn and f8e8m0fnu: the code
// generators convert them and move them; the `float8-normalization` pass
// computes on them in f32) and the sub-byte integers s4, u4, s2, u2
// (hlo/sub_byte_int.h: one element a byte; the `sub-byte-normalization`
// pass computes on them in 8 bits). s1, u1 and the F6 floats parse and
// print but are rejected by later stages.
bool IsSupportedElementType(PrimitiveType type);

// An error naming `type` and `where`, for stages that meet an unsupported type.
absl::Status UnsupportedTypeError(PrimitiveType type, absl::string_view where);

bool IsArrayType(PrimitiveType type);  // Not TUPLE, TOKEN, OPAQUE, INVALID.
bool IsIntegralType(PrimitiveType type);  // Signed or unsigned, not PRED.
bool IsSignedIntegralType(PrimitiveType type);
bool IsUnsignedIntegralType(PrimitiveType type);
bool IsFloatingPointType(PrimitiveType type);  // Real floats incl. F8/F4.
// s1, s2, s4, u1, u2, u4: integers narrower than a byte.
bool IsSubByteIntegralType(PrimitiveType type);
bool IsComplexType(PrimitiveType type);

// Bits of one element (sub-byte types report their real width), 0 for
// non-array types.
int BitWidth(PrimitiveType type);

// Bytes one element occupies in dense host storage (sub-byte types take a
// whole byte each), 0 for non-array types.
int64_t ByteWidth(PrimitiveType type);

// For complex types the type of each component (C64 -> F32), else `type`.
PrimitiveType ComplexComponentType(PrimitiveType type);

// Exponent and mantissa bits of a floating point type (for reduce-precision
// and conversions); {0, 0} for non-floats.
struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;
};
FloatFormat FloatFormatOf(PrimitiveType type);
// 2^-(mantissa bits + 1): the largest relative error of rounding a real
// to the nearest value of float type `type` (bf16 2^-8, f16 2^-11), and
// the least share of a value its last place is worth.
double UnitRoundoff(PrimitiveType type);

}  // namespace hloc

#endif  // HLO_PRIMITIVE_TYPE_H_

#include "hlo/primitive_type.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "hlo/float8.h"

namespace hloc {
namespace {

struct TypeInfo {
  PrimitiveType type;
  const char* name;
  int bits;
};

// Text names as XLA's printer spells them.
constexpr TypeInfo kTypes[] = {
    {PRED, "pred", 8},          {S1, "s1", 1},
    {S2, "s2", 2},              {S4, "s4", 4},
    {S8, "s8", 8},              {S16, "s16", 16},
    {S32, "s32", 32},           {S64, "s64", 64},
    {U1, "u1", 1},              {U2, "u2", 2},
    {U4, "u4", 4},              {U8, "u8", 8},
    {U16, "u16", 16},           {U32, "u32", 32},
    {U64, "u64", 64},           {F16, "f16", 16},
    {BF16, "bf16", 16},         {F32, "f32", 32},
    {F64, "f64", 64},           {C64, "c64", 64},
    {C128, "c128", 128},        {F8E5M2, "f8e5m2", 8},
    {F8E4M3FN, "f8e4m3fn", 8},  {F8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    {F8E5M2FNUZ, "f8e5m2fnuz", 8}, {F8E4M3FNUZ, "f8e4m3fnuz", 8},
    {F8E4M3, "f8e4m3", 8},      {F8E3M4, "f8e3m4", 8},
    {F4E2M1FN, "f4e2m1fn", 4},  {F8E8M0FNU, "f8e8m0fnu", 8},
    {F6E3M2FN, "f6e3m2fn", 6},  {F6E2M3FN, "f6e2m3fn", 6},
    {TUPLE, "tuple", 0},        {TOKEN, "token", 0},
    {OPAQUE_TYPE, "opaque", 0},
};

const TypeInfo* Find(PrimitiveType type) {
  for (const TypeInfo& info : kTypes) {
    if (info.type == type) return &info;
  }
  return nullptr;
}

}  // namespace

absl::string_view PrimitiveTypeName(PrimitiveType type) {
  const TypeInfo* info = Find(type);
  return info ? info->name : "invalid";
}

absl::StatusOr<PrimitiveType> ParsePrimitiveType(absl::string_view name) {
  for (const TypeInfo& info : kTypes) {
    if (name == info.name) return info.type;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown element type '", name, "'"));
}

bool IsSupportedElementType(PrimitiveType type) {
  switch (type) {
    case PRED:
    case S8:
    case S16:
    case S32:
    case S64:
    case U8:
    case U16:
    case U32:
    case U64:
    case F16:
    case BF16:
    case F32:
    case F64:
    case C64:
    case C128:
    case S2:
    case S4:
    case U2:
    case U4:
      return true;
    default:
      return IsFloat8Type(type);
  }
}

absl::Status UnsupportedTypeError(PrimitiveType type, absl::string_view where) {
  return absl::UnimplementedError(absl::StrCat("unsupported type ",
                                               PrimitiveTypeName(type), " in ",
                                               where));
}

bool IsArrayType(PrimitiveType type) {
  return type != TUPLE && type != TOKEN && type != OPAQUE_TYPE &&
         Find(type) != nullptr;
}

bool IsSignedIntegralType(PrimitiveType type) {
  return type == S1 || type == S2 || type == S4 || type == S8 ||
         type == S16 || type == S32 || type == S64;
}

bool IsUnsignedIntegralType(PrimitiveType type) {
  return type == U1 || type == U2 || type == U4 || type == U8 ||
         type == U16 || type == U32 || type == U64;
}

bool IsIntegralType(PrimitiveType type) {
  return IsSignedIntegralType(type) || IsUnsignedIntegralType(type);
}

bool IsFloatingPointType(PrimitiveType type) {
  switch (type) {
    case F16:
    case BF16:
    case F32:
    case F64:
    case F8E5M2:
    case F8E4M3FN:
    case F8E4M3B11FNUZ:
    case F8E5M2FNUZ:
    case F8E4M3FNUZ:
    case F8E4M3:
    case F8E3M4:
    case F4E2M1FN:
    case F8E8M0FNU:
    case F6E3M2FN:
    case F6E2M3FN:
      return true;
    default:
      return false;
  }
}

bool IsSubByteIntegralType(PrimitiveType type) {
  return IsIntegralType(type) && BitWidth(type) < 8;
}

bool IsComplexType(PrimitiveType type) { return type == C64 || type == C128; }

int BitWidth(PrimitiveType type) {
  const TypeInfo* info = Find(type);
  return info ? info->bits : 0;
}

int64_t ByteWidth(PrimitiveType type) {
  int bits = BitWidth(type);
  return bits == 0 ? 0 : (bits + 7) / 8;
}

PrimitiveType ComplexComponentType(PrimitiveType type) {
  if (type == C64) return F32;
  if (type == C128) return F64;
  return type;
}

FloatFormat FloatFormatOf(PrimitiveType type) {
  switch (type) {
    case F16:
      return {5, 10};
    case BF16:
      return {8, 7};
    case F32:
      return {8, 23};
    case F64:
      return {11, 52};
    case F8E5M2:
    case F8E5M2FNUZ:
      return {5, 2};
    case F8E4M3FN:
    case F8E4M3B11FNUZ:
    case F8E4M3FNUZ:
    case F8E4M3:
      return {4, 3};
    case F8E3M4:
      return {3, 4};
    case F4E2M1FN:
      return {2, 1};
    case F8E8M0FNU:
      return {8, 0};
    case F6E3M2FN:
      return {3, 2};
    case F6E2M3FN:
      return {2, 3};
    default:
      return {0, 0};
  }
}

double UnitRoundoff(PrimitiveType type) {
  return std::ldexp(1.0, -(FloatFormatOf(type).mantissa_bits + 1));
}

}  // namespace hloc

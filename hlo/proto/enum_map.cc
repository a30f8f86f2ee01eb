#include "hlo/proto/enum_map.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace hloc {
namespace {

constexpr std::pair<PrimitiveType, xla::PrimitiveType> kTypes[] = {
    {PRIMITIVE_TYPE_INVALID, xla::PRIMITIVE_TYPE_INVALID},
    {PRED, xla::PRED},
    {S1, xla::S1},
    {S2, xla::S2},
    {S4, xla::S4},
    {S8, xla::S8},
    {S16, xla::S16},
    {S32, xla::S32},
    {S64, xla::S64},
    {U1, xla::U1},
    {U2, xla::U2},
    {U4, xla::U4},
    {U8, xla::U8},
    {U16, xla::U16},
    {U32, xla::U32},
    {U64, xla::U64},
    {F16, xla::F16},
    {BF16, xla::BF16},
    {F32, xla::F32},
    {F64, xla::F64},
    {C64, xla::C64},
    {C128, xla::C128},
    {F8E5M2, xla::F8E5M2},
    {F8E4M3, xla::F8E4M3},
    {F8E4M3FN, xla::F8E4M3FN},
    {F8E4M3B11FNUZ, xla::F8E4M3B11FNUZ},
    {F8E3M4, xla::F8E3M4},
    {F8E5M2FNUZ, xla::F8E5M2FNUZ},
    {F8E4M3FNUZ, xla::F8E4M3FNUZ},
    {F4E2M1FN, xla::F4E2M1FN},
    {F8E8M0FNU, xla::F8E8M0FNU},
    {TUPLE, xla::TUPLE},
    {OPAQUE_TYPE, xla::OPAQUE_TYPE},
    {TOKEN, xla::TOKEN},
};

}  // namespace

absl::StatusOr<PrimitiveType> PrimitiveTypeFromProto(int proto_type) {
  for (const auto& [ir, proto] : kTypes) {
    if (proto == proto_type) return ir;
  }
  absl::string_view name =
      xla::PrimitiveType_IsValid(proto_type)
          ? absl::string_view(xla::PrimitiveType_Name(
                static_cast<xla::PrimitiveType>(proto_type)))
          : absl::string_view("unknown");
  return absl::InvalidArgumentError(
      absl::StrCat("unsupported element type ", name, " (", proto_type, ")"));
}

xla::PrimitiveType PrimitiveTypeToProto(PrimitiveType type) {
  for (const auto& [ir, proto] : kTypes) {
    if (ir == type) return proto;
  }
  return xla::PRIMITIVE_TYPE_INVALID;
}

}  // namespace hloc

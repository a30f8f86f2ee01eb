#include "hlo/opcode.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace hloc {
namespace {

enum Property { kNoProperties, kElementwise, kCollective, kSideEffect };

struct OpcodeInfo {
  absl::string_view text;
  int arity;
  Property property;
};

constexpr OpcodeInfo kOpcodes[] = {
#define HLO_OPCODE(enum_name, text, arity, props) {text, arity, props},
#include "hlo/opcode.def"
#undef HLO_OPCODE
};

const OpcodeInfo& Info(HloOpcode opcode) {
  return kOpcodes[static_cast<int>(opcode)];
}

}  // namespace

absl::string_view HloOpcodeString(HloOpcode opcode) {
  return Info(opcode).text;
}

absl::StatusOr<HloOpcode> StringToHloOpcode(absl::string_view name) {
  static const auto* by_name = [] {
    auto* map = new absl::flat_hash_map<absl::string_view, HloOpcode>();
    for (int i = 0; i < kHloOpcodeCount; ++i) {
      map->emplace(kOpcodes[i].text, static_cast<HloOpcode>(i));
    }
    return map;
  }();
  auto it = by_name->find(name);
  if (it == by_name->end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown opcode '", name, "'"));
  }
  return it->second;
}

std::optional<int> HloOpcodeArity(HloOpcode opcode) {
  int arity = Info(opcode).arity;
  if (arity < 0) return std::nullopt;
  return arity;
}

bool HloOpcodeIsElementwise(HloOpcode opcode) {
  return Info(opcode).property == kElementwise;
}

bool HloOpcodeIsCollective(HloOpcode opcode) {
  return Info(opcode).property == kCollective;
}

bool HloOpcodeHasSideEffect(HloOpcode opcode) {
  Property p = Info(opcode).property;
  return p == kCollective || p == kSideEffect;
}

bool HloOpcodeIsBinaryCommutative(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMulhi:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

bool HloOpcodeIsAssociativeBinary(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
      return true;
    default:
      return false;
  }
}

bool HloOpcodeTakesResultAccuracy(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kCbrt:
    case HloOpcode::kCos:
    case HloOpcode::kErf:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSin:
    case HloOpcode::kSqrt:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
      return true;
    default:
      return false;
  }
}

}  // namespace hloc

// HloOpcode: the operations of HLO, generated from opcode.def.
#ifndef HLO_OPCODE_H_
#define HLO_OPCODE_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloc {

enum class HloOpcode : uint8_t {
#define HLO_OPCODE(enum_name, text, arity, props) enum_name,
#include "hlo/opcode.def"
#undef HLO_OPCODE
};

inline constexpr int kHloOpcodeCount = 0
#define HLO_OPCODE(enum_name, text, arity, props) +1
#include "hlo/opcode.def"
#undef HLO_OPCODE
    ;

// Text name as printed in HLO ("exponential", "get-tuple-element").
absl::string_view HloOpcodeString(HloOpcode opcode);
// Looks an opcode up by its text name; the error names the unknown text.
absl::StatusOr<HloOpcode> StringToHloOpcode(absl::string_view name);
// Fixed operand count, or nullopt for variadic opcodes.
std::optional<int> HloOpcodeArity(HloOpcode opcode);
// Applies independently per element (abs, add, compare, select, convert...).
bool HloOpcodeIsElementwise(HloOpcode opcode);
// Collectives and ops with other observable effects (infeed, send, rng...).
bool HloOpcodeHasSideEffect(HloOpcode opcode);
bool HloOpcodeIsCollective(HloOpcode opcode);
// add, multiply, maximum, minimum, and, or, xor, mulhi.
bool HloOpcodeIsBinaryCommutative(HloOpcode opcode);
// add, multiply, maximum, minimum, and, or: the commutative ops whose folds
// scans and reductions may regroup (a float sum or product then differs
// from the sequential order in its last bits only). xor and mulhi are left
// out: no frontend scans with them.
bool HloOpcodeIsAssociativeBinary(HloOpcode opcode);
// The transcendental unary ops that take result_accuracy={...}, as XLA's.
bool HloOpcodeTakesResultAccuracy(HloOpcode opcode);

}  // namespace hloc

#endif  // HLO_OPCODE_H_

#include "hlo/sub_byte_int.h"

#include "hlo/instruction.h"

namespace hloc {

PrimitiveType ByteTypeOf(PrimitiveType type) {
  if (!IsSubByteIntegralType(type)) return type;
  return IsSignedIntegralType(type) ? S8 : U8;
}

PrimitiveType OtherSignednessOf(PrimitiveType type) {
  switch (type) {
    case S1:
      return U1;
    case S2:
      return U2;
    case S4:
      return U4;
    case U1:
      return S1;
    case U2:
      return S2;
    case U4:
      return S4;
    default:
      return type;
  }
}

bool TouchesSubByteInt(const HloInstruction& instr) {
  auto is_sub_byte = [](const Shape& shape) {
    return shape.IsArray() && IsSubByteIntegralType(shape.element_type());
  };
  if (is_sub_byte(instr.shape())) return true;
  for (const HloInstruction* operand : instr.operands()) {
    if (is_sub_byte(operand->shape())) return true;
  }
  return false;
}

void CanonicalizeSubByteInts(PrimitiveType type, uint8_t* data, int64_t n) {
  if (!IsSubByteIntegralType(type)) return;
  const int bits = BitWidth(type);
  const bool is_signed = IsSignedIntegralType(type);
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t canonical =
        static_cast<uint8_t>(WrapToBits(data[i], bits, is_signed));
    // Written only where it changes: canonical data may be read-only.
    if (canonical != data[i]) data[i] = canonical;
  }
}

uint8_t ToMlDtypesByte(PrimitiveType type, uint8_t byte) {
  if (!IsSubByteIntegralType(type) && type != F4E2M1FN) return byte;
  return byte & ((1 << BitWidth(type)) - 1);
}

}  // namespace hloc

// The sub-byte integers s4, u4, s2, u2 (JAX's int4, uint4, int2, uint2:
// int4 weight-only quantization). Every buffer, literal and register holds
// one element a byte, as XLA's unpacked layout and ml_dtypes do: the
// evaluator computes on them as int8/uint8 and wraps each result to the
// type's bits, the code generators keep them as i8 values and the
// `sub-byte-normalization` pass computes on them in 8 bits.
//
// In a byte a value is canonical when it is the value itself as int8
// (signed, so s4 -1 is 0xff) or uint8 (unsigned). ml_dtypes, XLA's
// literals in .npy files and the Python buffers JAX hands over store the
// low bits only (s4 -1 is 0x0f) and ignore the rest, so data from outside
// is canonicalized when it comes in, and .npy output is written in
// ml_dtypes' form.
#ifndef HLO_SUB_BYTE_INT_H_
#define HLO_SUB_BYTE_INT_H_

#include <cstdint>

#include "hlo/primitive_type.h"

namespace hloc {

// `value` wrapped to the `bits` low bits, two's complement when `is_signed`
// (as a conversion between integer types wraps).
inline int64_t WrapToBits(int64_t value, int bits, bool is_signed) {
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  const uint64_t low = static_cast<uint64_t>(value) & mask;
  if (is_signed && (low >> (bits - 1)) != 0) {
    return static_cast<int64_t>(low | ~mask);
  }
  return static_cast<int64_t>(low);
}

// s8 for s4 and s2, u8 for u4 and u2 (the type that holds their values
// and computes on them); `type` itself for every other type.
PrimitiveType ByteTypeOf(PrimitiveType type);

// The sub-byte integer type of the same width and the other signedness
// (s4 <-> u4); `type` itself for every other type.
PrimitiveType OtherSignednessOf(PrimitiveType type);

class HloInstruction;
// Whether `instr` or one of its operands is an array of a sub-byte integer.
bool TouchesSubByteInt(const HloInstruction& instr);

// Rewrites the `n` one-byte elements at `data` of sub-byte integer type
// `type` into the canonical form (writing only the bytes that change); a
// no-op for every other type.
void CanonicalizeSubByteInts(PrimitiveType type, uint8_t* data, int64_t n);

// The byte ml_dtypes stores for canonical element `byte` of `type`: the
// low BitWidth(type) bits (f4e2m1fn's too); `byte` itself for other types.
uint8_t ToMlDtypesByte(PrimitiveType type, uint8_t byte);

}  // namespace hloc

#endif  // HLO_SUB_BYTE_INT_H_

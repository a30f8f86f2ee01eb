// Sub-byte integer arithmetic computed in 8 bits ("sub-byte-normalization").
//
// The code generators keep s4, u4, s2 and u2 values as the value itself in
// an i8 (backends/common/ir_array.h): they move, select and convert them
// (a conversion to one wraps or, from a float, saturates at its bounds),
// nothing more. This pass rewrites every operation that computes on them,
// in every computation (reducers, comparators and scatter combiners
// included), to
//     convert(op(convert(a) -> s8, ...) -> s8) -> s4
// which is XLA's semantics at the narrow width: the final conversion wraps
// a sum, product, negation or left shift to the type's bits as two's
// complement arithmetic in it would. The operations that look at the bits
// beyond the value read the type's bits instead: shift-right-logical,
// clz and popcnt widen the unsigned bit pattern (s4 -8 is u8 8), and
// shift-right-arithmetic the signed one (u4 15 is s8 -1); clz then takes
// away the 8 - width leading zeros the wider type adds. Every pipeline
// runs it, always; the reference evaluator computes the narrow types
// itself (hlo/evaluator/kernels_sub_byte.cc).
#ifndef PASSES_SUB_BYTE_NORMALIZATION_H_
#define PASSES_SUB_BYTE_NORMALIZATION_H_

#include "passes/pass.h"

namespace hloc {

class SubByteNormalization : public HloPass {
 public:
  absl::string_view name() const override { return "sub-byte-normalization"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_SUB_BYTE_NORMALIZATION_H_

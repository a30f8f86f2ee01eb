// Typed elementwise kernels of the evaluator. A kernel is chosen once per
// instruction (by opcode, element types and attributes) and then runs over
// whole arrays: out[i] = f(in0[i], in1[i], in2[i]) for i in [0, n). The same
// kernels serve array-wise evaluation of instructions and the lane-batched
// interpretation of scalar computations (program.h), so every elementwise
// semantic of XLA lives in exactly one place (kernels_*.cc):
//
//   - f16/bf16 compute in f32 and round to nearest even once per op.
//   - Integer arithmetic wraps; x / 0 is -1 (signed) or all ones (unsigned),
//     x % 0 is x, INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0.
//   - Shifts by >= the bit width (or a negative amount) give 0, or the sign
//     fill for shift-right-arithmetic.
//   - maximum/minimum propagate NaN and order -0 below +0 (llvm.maximum /
//     llvm.minimum, what XLA:CPU and XLA:GPU emit).
//   - Integer power by squaring; a negative exponent gives 1 for base 1 and
//     0 otherwise. pow(x, 0) and pow(1, y) are 1.
//   - convert from floating point to integers saturates and maps NaN to 0.
//   - compare's TOTALORDER (or order=TOTAL): -NaN < -inf < ... < -0 < +0 <
//     ... < inf < NaN, comparing bit patterns.
//   - Denormals are kept (no flush to zero).
#ifndef HLO_EVALUATOR_KERNELS_H_
#define HLO_EVALUATOR_KERNELS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/attributes.h"
#include "hlo/instruction.h"
#include "hlo/opcode.h"
#include "hlo/primitive_type.h"

namespace hloc {
namespace eval {

// Attributes an elementwise kernel reads at run time.
struct KernelAttrs {
  int exponent_bits = 0;  // reduce-precision
  int mantissa_bits = 0;
};

// in[k] points at n elements of operand k; out at n elements of the result.
// out may alias an input of the same type (the kernels read element i before
// writing element i).
using ElementwiseFn = void (*)(const void* const* in, void* out, int64_t n,
                               const KernelAttrs& attrs);

// The kernel for an elementwise opcode with the given operand and result
// element types. `direction` and `total_order` matter for compare only. An
// error names the opcode and types the evaluator does not support.
absl::StatusOr<ElementwiseFn> SelectElementwiseKernel(
    HloOpcode opcode, absl::Span<const PrimitiveType> operand_types,
    PrimitiveType result_type, ComparisonDirection direction = {},
    bool total_order = false);

// The kernel of an elementwise instruction (reads its compare attributes).
absl::StatusOr<ElementwiseFn> SelectElementwiseKernel(
    const HloInstruction& instruction);

// Attributes of an elementwise instruction.
KernelAttrs KernelAttrsOf(const HloInstruction& instruction);

// True if compare `instruction` orders floats totally (type=TOTALORDER or
// order=TOTAL).
bool UsesTotalOrder(const HloInstruction& instruction);

// Unary, binary and ternary kernel families (one per kernels_*.cc file).
ElementwiseFn SelectUnaryKernel(HloOpcode opcode, PrimitiveType operand,
                                PrimitiveType result);
ElementwiseFn SelectBinaryKernel(HloOpcode opcode, PrimitiveType operand,
                                 PrimitiveType result);
ElementwiseFn SelectCompareKernel(PrimitiveType operand,
                                  ComparisonDirection direction,
                                  bool total_order);
ElementwiseFn SelectConvertKernel(PrimitiveType from, PrimitiveType to);
ElementwiseFn SelectSelectKernel(PrimitiveType type);
ElementwiseFn SelectClampKernel(PrimitiveType type);
// The kernel of an operation with a sub-byte integer result (kernels_
// sub_byte.cc): converts and the arithmetic, which wrap to the type's bits.
ElementwiseFn SelectSubByteKernel(HloOpcode opcode,
                                  absl::Span<const PrimitiveType> operands,
                                  PrimitiveType result);

// acc = f(acc, x[0]), f(acc, x[1]), ... in order, for the commutative
// reduction opcodes (add, multiply, maximum, minimum, and, or, xor); `acc`
// points at one element. With `pairwise_sums`, an f32 or f64 add sums
// x[0, n) pairwise first (reduce's runs, as XLA:CPU's vectorised sums keep
// partial sums; reduce-window keeps the window's order, as XLA:CPU's
// window loops and hloc's scans do). nullptr if unsupported.
using ReduceRowFn = void (*)(void* acc, const void* x, int64_t n);
ReduceRowFn SelectReduceRowKernel(HloOpcode opcode, PrimitiveType type,
                                  bool pairwise_sums = false);

}  // namespace eval
}  // namespace hloc

#endif  // HLO_EVALUATOR_KERNELS_H_

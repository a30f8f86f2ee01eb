// Rewriting one operation to compute in f32, for the passes that take
// narrow float arithmetic out of the narrow type (float-normalization,
// float8-normalization), and which operations compute on values at all
// (those passes and sub-byte-normalization).
#ifndef PASSES_WIDEN_TO_F32_H_
#define PASSES_WIDEN_TO_F32_H_

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "hlo/computation.h"

namespace hloc {

// Operations that compute on their values (so on a type the code
// generators only move and convert, after widening it): the elementwise
// ones except those that move or reinterpret values (select, convert,
// bitcast-convert, copy), and the few others that make or combine numbers
// (dot, convolution, iota, reduce-precision, rng, cholesky,
// triangular-solve). Everything else moves values (copies, slices,
// gathers, sorts, tuples) or applies a computation the passes rewrite
// themselves (reduce, scatter, map).
bool ComputesOnValues(HloOpcode opcode);

// Rewrites `instr` (array-shaped) in `computation` to
//     convert(op(convert(a) -> f32, ...) -> f32) -> its type
// where each operand whose element type `narrow` accepts is widened (an
// operand used twice, once) and a result of such a type is computed in f32
// and rounded back; any other result (a compare's predicate, a dot's f32)
// keeps its type. A transcendental computed in f32 for a narrow result gets
// a result_accuracy tolerance of the narrow type's rounding error, unless
// it has one. New instructions are appended: the caller re-sorts the
// computation in post order.
absl::Status WidenToF32(HloComputation* computation, HloInstruction* instr,
                        absl::FunctionRef<bool(PrimitiveType)> narrow);

}  // namespace hloc

#endif  // PASSES_WIDEN_TO_F32_H_

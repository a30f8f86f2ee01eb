// The HLO verifier: checks that a module is well formed before any stage
// relies on it, the way XLA's HloVerifier does (without layout sensitivity or
// mixed precision).
//
// Structure: an entry computation; unique computation names and unique
// instruction names across the module; every computation has a root of its
// own and parameters numbered 0..n-1 once each; operands, users and control
// dependencies stay within one computation and agree with each other; no
// cycles through operands or control dependencies, and no computation calls
// itself; called computations belong to the module, and only opcodes that
// call computations have them. Every shape is valid (ValidateShape).
//
// Semantics: operand counts (HloOpcodeArity plus the rules of the variadic
// opcodes); the declared shape of every instruction equals, ignoring layout,
// the one InferInstructionShape gives, which covers the signatures of called
// computations (reduce, reduce-window, scatter, select-and-scatter, sort, map,
// scan, while, conditional, call, fusion); compare's comparison type fits its
// operands; a fusion's computation is marked as fused by it; custom-call
// layout constraints and aliasing refer to existing operands and indices.
// Module level: the entry computation layout (if set) is compatible with the
// entry's parameters and root; input/output aliases and buffer donors name
// existing parameters and indices; a schedule lists each instruction of its
// computation once, operands first.
//
// Opcodes without shape inference (see shape_inference.cc) get only the
// generic checks. Element types the backends do not support (F8, sub-byte
// integers) verify fine. The verifier never aborts: the first problem found
// comes back as an InvalidArgument error such as
//   "verifier: in computation main.3, instruction add.5: operand 1 has shape
//    f32[4] but f32[3] was expected".
#ifndef HLO_VERIFIER_H_
#define HLO_VERIFIER_H_

#include "absl/status/status.h"
#include "hlo/module.h"

namespace hloc {

absl::Status VerifyModule(const HloModule& module);

}  // namespace hloc

#endif  // HLO_VERIFIER_H_

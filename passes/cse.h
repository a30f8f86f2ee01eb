// Common subexpression elimination ("cse").
//
// Algorithm: per computation, walk the instructions in post order (operands
// first) keeping a hash table of the instructions seen so far, keyed by
// opcode, shape and operands (as a multiset for commutative binary ops, so
// add(a, b) meets add(b, a)); constants also hash their bytes. An
// instruction equal to an earlier one -- same operands, and
// HloInstruction::IdenticalSlowPath: same opcode, shape with layout,
// attributes (a constant's literal included) and structurally equal called
// computations -- has its uses redirected to the earlier one and is removed.
// Because operands are canonicalized before their users are looked at, whole
// duplicated expression trees collapse in one walk.
//
// Never merged: parameters, instructions with side effects (two all-reduces
// are two communications; two rng calls are two draws; a custom call marked
// custom_call_has_side_effect), custom calls without operands (nothing ties
// two of them to the same value), and instructions with control
// dependencies. A custom call without side effects is a pure function of
// its operands and attributes, as XLA's CSE takes it: JAX's solve, inv and
// slogdet of one matrix each lower to their own cuSOLVER LU, which merge
// into one factorization.
#ifndef PASSES_CSE_H_
#define PASSES_CSE_H_

#include "passes/pass.h"

namespace hloc {

class CommonSubexpressionElimination : public HloPass {
 public:
  absl::string_view name() const override { return "cse"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_CSE_H_

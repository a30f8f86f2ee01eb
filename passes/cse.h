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
// are two communications; two rng calls are two draws), custom calls (their
// semantics are opaque), and instructions with control dependencies.
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

// Algebraic simplification ("algebraic-simplifier").
//
// Algorithm: rounds over each computation. In a round, every live
// instruction is offered, in post order, to the rules of rules.cc that
// match its opcode (in table order); the first rule that returns a
// replacement wins: the instruction's users (and the root, if it was one)
// move to the replacement and the instruction is removed with whatever
// became dead. Replacements are looked at again in the next round, so
// rewrites chain (reshape-of-reshape, then reshape-noop). Rounds repeat
// until one changes nothing (capped; the cap being hit is counted).
//
// Each rule is a small named function (simplify_*.cc); each firing counts
// a statistic of the rule's name. The rules are semantics-preserving on
// every input: float rules are exact in IEEE arithmetic (up to the sign of
// a zero for add(x, 0)); rules that only hold for integers check the type.
#ifndef PASSES_SIMPLIFIER_ALGEBRAIC_SIMPLIFIER_H_
#define PASSES_SIMPLIFIER_ALGEBRAIC_SIMPLIFIER_H_

#include "passes/pass.h"
#include "passes/simplifier/rewriter.h"

namespace hloc {

class AlgebraicSimplifier : public HloPass {
 public:
  explicit AlgebraicSimplifier(AlgebraicSimplifierOptions options = {})
      : options_(options) {}
  absl::string_view name() const override {
    return options_.enable_bitcasts ? "algebraic-simplifier-bitcasts"
                                    : "algebraic-simplifier";
  }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  absl::StatusOr<bool> RunOnComputation(HloComputation* computation);

  AlgebraicSimplifierOptions options_;
};

}  // namespace hloc

#endif  // PASSES_SIMPLIFIER_ALGEBRAIC_SIMPLIFIER_H_

// The vocabulary of the algebraic simplifier's rules: what a rule is, the
// Rewriter it uses to build replacement instructions, and small matchers
// ("is this a constant 1, possibly broadcast?").
//
// A rule is a plain function in the style of Halide's Simplify_*.cpp: it
// looks at one instruction and returns the instruction that should replace
// it, or nullptr when it does not apply. A rule never mutates the IR it
// matches; it only adds new instructions through the Rewriter (and must not
// add any when it returns nullptr). The driver (algebraic_simplifier.cc)
// rewires users and removes what became dead.
#ifndef PASSES_SIMPLIFIER_REWRITER_H_
#define PASSES_SIMPLIFIER_REWRITER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "passes/permutation.h"

namespace hloc {

struct AlgebraicSimplifierOptions {
  // Layout-sensitive mode: replace reshapes and transposes that only
  // relabel memory (under the operand's and result's layouts) by bitcasts.
  // Off by default: before layouts are final a bitcast would pin them.
  bool enable_bitcasts = false;
};

class Rewriter {
 public:
  Rewriter(HloComputation* computation,
           const AlgebraicSimplifierOptions& options)
      : computation_(computation), options_(options) {}

  const AlgebraicSimplifierOptions& options() const { return options_; }
  // The instruction being simplified; new instructions inherit its metadata.
  void set_current(const HloInstruction* current) { current_ = current; }

  // Adds an instruction to the computation being simplified.
  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction);

  // Builders. Shapes given explicitly are used as is (callers pass the
  // replaced instruction's shape so its layout survives); derived shapes get
  // the default layout.
  HloInstruction* Broadcast(HloInstruction* operand, const Shape& shape,
                            std::vector<int64_t> dimensions);
  HloInstruction* Reshape(HloInstruction* operand, const Shape& shape);
  HloInstruction* Transpose(HloInstruction* operand, const Shape& shape,
                            std::vector<int64_t> dimensions);
  // `operand` itself when it already has `type`.
  HloInstruction* Convert(HloInstruction* operand, PrimitiveType type);
  HloInstruction* Unary(const Shape& shape, HloOpcode opcode,
                        HloInstruction* operand);
  HloInstruction* Binary(const Shape& shape, HloOpcode opcode,
                         HloInstruction* lhs, HloInstruction* rhs);
  // A scalar constant of `type` holding `value` (converted to the type).
  HloInstruction* ScalarConstant(PrimitiveType type, double value);
  // broadcast(scalar constant) to `shape` (just the constant for scalars).
  HloInstruction* Splat(const Shape& shape, double value);

  // Instructions added since the last call (the driver removes them when a
  // rule returns nullptr after all).
  std::vector<HloInstruction*> TakeAdded();

 private:
  HloComputation* computation_;
  const AlgebraicSimplifierOptions& options_;
  const HloInstruction* current_ = nullptr;
  std::vector<HloInstruction*> added_;
};

using RuleFn = HloInstruction* (*)(HloInstruction* instruction,
                                   Rewriter& rewriter);

struct SimplifierRule {
  // Kebab-case name; the statistic counted each time the rule fires.
  const char* name;
  // The opcode of the instruction the rule looks at; nullopt for rules that
  // check applicability themselves (e.g. every elementwise opcode).
  std::optional<HloOpcode> opcode;
  RuleFn rewrite;
};

// --- Matchers -------------------------------------------------------------

// A constant whose elements all equal `value`, or a broadcast of one
// (through any number of broadcasts). Complex values must have a zero
// imaginary part; pred compares true as 1.
bool IsConstantValue(const HloInstruction* instruction, double value);
// The value of a real constant (or broadcast of one) whose elements are all
// equal; nullopt otherwise.
std::optional<double> ConstantScalarValue(const HloInstruction* instruction);
// The value of a pred constant (or broadcast of one) whose elements are all
// equal; nullopt otherwise.
std::optional<bool> ConstantPredicate(const HloInstruction* instruction);
// broadcast(x) where x is a scalar.
bool IsScalarBroadcast(const HloInstruction* instruction);
// Same dimensions, element type and layout: `replacement` can take
// `instruction`'s place without any observable change.
bool SameShape(const HloInstruction* instruction,
               const HloInstruction* replacement);
bool IsIntegralOrPred(PrimitiveType type);
// The identity of binary `opcode` on `type` (0 for add, 1 for multiply,
// -inf for maximum on floats, the lowest value for maximum on integers,
// ...), where it has a simple one.
std::optional<double> IdentityElement(HloOpcode opcode, PrimitiveType type);
// If `to` is `from` with only size-1 dimensions inserted or deleted (so a
// reshape between them moves no element), where each dimension of `from`
// went: its position in `to`, or -1 for a deleted size-1 dimension. nullopt
// when the reshape does more than that.
std::optional<std::vector<int64_t>> DegenerateDimsMapping(const Shape& from,
                                                          const Shape& to);

}  // namespace hloc

#endif  // PASSES_SIMPLIFIER_REWRITER_H_

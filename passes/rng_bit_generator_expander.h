// rng-bit-generator as ordinary HLO ("rng-bit-generator-expander"), as
// XLA's RngBitGeneratorExpander does: iota counters, and the generator's
// rounds (u32 adds, xors, shifts, 32x32->64-bit multiplies in u64) as a
// scalar computation mapped over them, which the CPU and GPU backends
// compile with their elemental emitters instead of handing the op to the
// evaluator. (The rounds stay in one map because, as elementwise HLO, each
// round's values have two users and fusion would copy the cheap ops into
// both, doubling them round after round.)
//
// The bits are the evaluator's (hlo/evaluator/rng_bit_generator.cc says
// how XLA defines them); in short, with state u64[n], key = state[0]:
// - ThreeFry (n = 2): ThreeFry2x32, 20 rounds, on the 64-bit counters
//   state[1] + i. 64-bit outputs take element i's two words; narrower ones
//   split the shape's first even dimension (else its largest) in halves,
//   counter h giving the elements 2h and 2h + 1 along it.
// - Philox and the default algorithm (n = 2 or 3): Philox4x32, 10 rounds,
//   on the 128-bit counters (state[1] + b, high word state[2], or state[0]
//   when n = 2, plus the carry); block b gives elements 4b..4b+3 (2b, 2b+1
//   for 64-bit outputs).
// The new state adds the counters used. Outputs of 8 to 64 bits of any
// integer or float type keep the low bits of their word, bitcast.
// A state of the wrong length for its algorithm is an error naming the
// instruction.
#ifndef PASSES_RNG_BIT_GENERATOR_EXPANDER_H_
#define PASSES_RNG_BIT_GENERATOR_EXPANDER_H_

#include "passes/pass.h"

namespace hloc {

class RngBitGeneratorExpander : public HloPass {
 public:
  absl::string_view name() const override {
    return "rng-bit-generator-expander";
  }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_RNG_BIT_GENERATOR_EXPANDER_H_

// One differential check: a module runs in the reference evaluator and,
// through the cpu pipeline and the cpu backend (LLVM JIT), on the same
// inputs; the results must agree.
//
// Generated modules (module_generator.h) compute every value
// deterministically under IEEE rounding, so the comparison is exact: equal
// values, NaN where NaN, +0 and -0 alike. The pipeline runs with
// allow_excess_precision off (every bf16/f16 rounding kept, as the
// evaluator does) and denormals are kept on both sides.
#ifndef FUZZ_DIFFERENTIAL_DIFFERENTIAL_CHECK_H_
#define FUZZ_DIFFERENTIAL_DIFFERENTIAL_CHECK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/literal.h"

namespace hloc {
namespace fuzz {

// The input of a generated module's parameter: floats are multiples of
// 1/4 in [-4, 4] with NaN and infinities now and then (finite integers in
// [-2, 2] for kSmallPrefix parameters), s32 in [-50, 50] with INT_MIN, INT_MAX
// now and then, predicates at random.
Literal MakeDifferentialInput(const HloInstruction& parameter, uint64_t seed);

// The inputs of every parameter of `entry` for a module's input seed (each
// parameter's own seed derived from it), as CheckModule makes them.
std::vector<Literal> MakeDifferentialInputs(const HloComputation& entry,
                                            uint64_t input_seed);

// Ok when the evaluator and the cpu backend agree on `text`. Otherwise an
// error that says what differed and whether the optimized module still
// agrees with the evaluator (a pass's fault) or not (code generation's).
// A module that does not parse or verify is an error too (a generator bug).
absl::Status CheckModule(const std::string& text, uint64_t input_seed);

// A generated module as a case for a target that is exact only where the
// generator needs it (the GPUs), or nullopt when the module has a float
// divide: the GPUs divide f32 as XLA:GPU does (div.full, within 2 ulp, not
// correctly rounded), so a quotient could differ in its last bits. Its
// dots are asked for at precision HIGHEST (which the evaluator always
// computes): at the default precision the GPUs multiply f32 in TF32, which
// rounds computed operands the generator keeps exact in f32.
std::optional<std::string> ForExactTarget(const std::string& text);

}  // namespace fuzz
}  // namespace hloc

#endif  // FUZZ_DIFFERENTIAL_DIFFERENTIAL_CHECK_H_

// Helpers for the passes' unit tests: parse HLO text, run a pass with the
// verifier after it, and look instructions up by name.
#ifndef PASSES_TEST_UTIL_H_
#define PASSES_TEST_UTIL_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "passes/pass.h"
#include "runtime/compare.h"

namespace hloc {

// Parses and verifies; the error says which step failed.
absl::StatusOr<std::unique_ptr<HloModule>> ParseAndVerify(
    absl::string_view text);

// Runs `pass` and verifies the result; returns whether it changed anything.
absl::StatusOr<bool> RunAndVerify(HloPass& pass, HloModule* module);

// The instruction called `name` in any computation of `module`, or nullptr.
HloInstruction* FindInstruction(const HloModule& module,
                                absl::string_view name);

// Deterministic inputs for sorting and topk: f32/bf16 from few distinct
// values (ties everywhere), both zeros, and rarely an infinity or a NaN of
// either sign (two payloads); s32 in -4..4; other types' bytes in 0..6.
Literal MakeTiedInput(const Shape& shape, uint32_t seed);

// Uniform values in [-1, 1) from `seed`, for an f32 shape (tests convert
// them to other float types inside the module).
Literal MakeUniformInput(const Shape& shape, uint32_t seed);

// How many instructions of `opcode` the module's computations hold.
int64_t CountOpcode(const HloModule& module, HloOpcode opcode);

// The module as HLO text (for failure messages).
std::string ModuleText(const HloModule& module);

// HLO text of `argmax`, the reducer of a variadic reduce of f32 values and
// s32 indices that keeps the larger value, ties to the lower index (a NaN
// wins or loses by the order it meets it, as jnp.argmax's own reducer does
// not): for the reduction passes' tests to put in their modules.
inline constexpr char kArgmaxReducerHlo[] = R"(
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  a_wins = pred[] or(gt, tie)
  v = f32[] select(a_wins, av, bv)
  i = s32[] select(a_wins, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
)";

// Evaluates `module` on `inputs`, runs `pass` with the verifier after it,
// evaluates again and expects (gtest failures otherwise) the results to
// agree within `tolerance` (Tolerance{}: exactly). Returns whether the
// pass changed the module, or nullopt where a step failed (reported).
std::optional<bool> ExpectSameResultsAfterPass(
    HloPass& pass, HloModule* module, const std::vector<Literal>& inputs,
    const Tolerance& tolerance);

// For passes that insert copies to fix layouts (tuple-layout,
// control-flow-layout): parses and verifies `text`, runs `pass` with the
// verifier after it, and expects (gtest failures otherwise) that it reports
// a change exactly when `changes`, adds exactly `copies` copy
// instructions, and keeps the module's results on MakeTiedInput arguments
// (seed 7 + parameter number), as the evaluator computes them. Returns the
// module after the pass for the caller's own checks; null where a step
// failed.
std::unique_ptr<HloModule> CheckCopyingPass(HloPass& pass,
                                            absl::string_view text,
                                            int64_t copies, bool changes);

}  // namespace hloc

#endif  // PASSES_TEST_UTIL_H_

// Collectives as runtime steps (ExecutableStep::Kind::kCollective): every
// backend hands all-reduce, all-gather, reduce-scatter, all-to-all,
// collective-permute, replica-id and partition-id to its runtime, which
// meets the other devices of the run (host threads on the CPU, NCCL on
// CUDA); no backend generates code for them.
//
// The runtimes move flat buffers, so an all-gather, reduce-scatter or
// all-to-all along a dimension needs that dimension to be the most major
// of its operands' and results' layouts (every more major dimension of
// size 1); the collective-layout pass (passes/collective_layout.h) puts
// them so. An all-reduce or reduce-scatter needs a to_apply that is a sum,
// product, min or max (MatchCollectiveReduction).
#ifndef BACKENDS_COMMON_COLLECTIVE_STEP_H_
#define BACKENDS_COMMON_COLLECTIVE_STEP_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/instruction.h"
#include "hlo/module.h"
#include "runtime/executable.h"

namespace hloc {

// Whether `instr` becomes a collective step.
bool IsCollectiveStep(const HloInstruction& instr);

// The step of `instr` (IsCollectiveStep) in a run of `config`'s
// replica_count x num_partitions devices, on `slots` (operand leaves, then
// result leaves). Unimplemented, saying why, for a form the runtimes do not
// run (a dimension not the most major, a to_apply of another kind, a
// collective-permute with in-place buffers).
absl::StatusOr<ExecutableStep> MakeCollectiveStep(
    const HloInstruction& instr, const HloModuleConfig& config,
    const std::vector<int64_t>& slots);

// What MakeCollectiveStepOrFallback makes of an instruction.
struct CollectiveStepOrFallback {
  // The step, where `instr` is a collective in a form the runtimes run.
  std::optional<ExecutableStep> step;
  // Unimplemented, saying why, where `instr` is a collective in a form the
  // runtimes do not run: the instruction's fallback reason, and it gets no
  // kernel. OK where `instr` is no collective: it is compiled as any other.
  absl::Status fallback;
};

// MakeCollectiveStep for a backend that runs in the evaluator what it does
// not compile (the CPU's JIT and its AArch64 object): a form the runtimes do
// not run becomes the fallback; any other error is returned.
absl::StatusOr<CollectiveStepOrFallback> MakeCollectiveStepOrFallback(
    const HloInstruction& instr, const HloModuleConfig& config,
    const std::vector<int64_t>& slots);

}  // namespace hloc

#endif  // BACKENDS_COMMON_COLLECTIVE_STEP_H_

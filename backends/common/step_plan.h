// What every compiler (the host JIT, the AArch64 ahead-of-time compiler
// and the GPU compiler) settles before generating any code: which shapes it
// accepts, and which entry instructions become steps, with the buffer slots
// each step's kernel receives.
#ifndef BACKENDS_COMMON_STEP_PLAN_H_
#define BACKENDS_COMMON_STEP_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hlo/instruction.h"
#include "runtime/buffer_assignment.h"

namespace hloc {

// Unimplemented for dynamic shapes and layouts with tiling or other extras
// anywhere in `order`; the message starts with `backend`.
absl::Status CheckCodegenShapes(const std::vector<HloInstruction*>& order,
                            absl::string_view backend);

// False for instructions that only name buffers or hold data (parameters,
// constants, after-all, and the buffer aliases: bitcast, tuple,
// get-tuple-element, opt-barrier).
bool RunsAsStep(const HloInstruction& instruction);

struct PlannedStep {
  const HloInstruction* instruction;
  // The leaf buffers of the operands, in order, then the instruction's own.
  std::vector<int64_t> buffers;
};

// The steps of `order` that run, in order.
std::vector<PlannedStep> PlanSteps(const std::vector<HloInstruction*>& order,
                                   const BufferAssignment& assignment);

}  // namespace hloc

#endif  // BACKENDS_COMMON_STEP_PLAN_H_

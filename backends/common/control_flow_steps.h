// while and conditional as host-driven steps (kWhile / kConditional with
// nested step lists; runtime/cuda_executor.cc and hip_executor.cc run
// them, and runtime/cpu_executor.cc those of a CPU executable, where a
// called computation holds a library call that no generated kernel can
// make: backends/cpu/cpu_compiler.cc). The called
// computations get buffer plans of their own (appended to the
// executable's), with their parameters placed on the slots of the values
// they receive, so no copy goes in:
//   while: the loop state lives in the while's output slots. The initial
//     state is copied there before the loop; condition and body read it
//     there; the body writes a new state leaf straight into its slot where
//     nothing reads the old one afterwards (buffer_assignment.h,
//     loop_state_in_place: a scan's dynamic-update-slice of its outputs
//     then writes one slice in place instead of copying the whole array
//     twice an iteration); its other root leaves are copied back after
//     each body run (through a scratch slot where a leaf is another state
//     leaf: a body that swaps two state leaves must not read one it
//     already overwrote).
//     A loop with a known trip count (hlo/while_trip_count.h) carries it,
//     and the runtimes then run the body that many times without the
//     condition.
//   conditional: the branch index is the predicate; branch i reads operand
//     i + 1's slots and its root's leaves are copied to the output slots.
// call is inlined by the pipeline (passes/call_inliner) and never gets here.
#ifndef BACKENDS_COMMON_CONTROL_FLOW_STEPS_H_
#define BACKENDS_COMMON_CONTROL_FLOW_STEPS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "runtime/buffer_assignment.h"
#include "runtime/executable.h"

namespace hloc {

// A called computation compiled: its steps and the slots of its root's
// leaves.
struct NestedSteps {
  std::vector<ExecutableStep> steps;
  std::vector<int64_t> root_slots;
};

// A called computation's own buffer plan, appended to an executable's:
// its instructions in post order, their buffer assignment, each value's
// slot (its parameters' leaves on the slots the caller gave) and its root
// leaves' slots. A NestedCompiler emits the steps from it.
struct NestedPlan {
  std::vector<HloInstruction*> order;
  BufferAssignment assignment;
  std::vector<int64_t> slot_of;
  std::vector<int64_t> root_slots;
};

// Plans `computation` with its parameters' leaves (depth-first, all
// parameters in order) on `parameter_slots`; `loop_body`: it is a while
// body, whose root leaves may take over their state leaves' slots (then
// root_slots names those slots). `backend` names the compiler in errors
// about shapes it cannot compile; `options` are its buffer assignment's
// (loop_state_in_place is set here).
absl::StatusOr<NestedPlan> PlanNestedComputation(
    const HloComputation& computation,
    const std::vector<int64_t>& parameter_slots, bool loop_body,
    absl::string_view backend, const BufferAssignmentOptions& options,
    Executable* executable);

// Compiles `computation` with its parameters' leaves (depth-first, all
// parameters in order) on `parameter_slots`, as a while body where
// `loop_body` (PlanNestedComputation).
using NestedCompiler = std::function<absl::StatusOr<NestedSteps>(
    const HloComputation& computation,
    const std::vector<int64_t>& parameter_slots, bool loop_body)>;

// The steps of a while or conditional `hlo` whose operand leaves and then
// output leaves are `slots`. Adds scratch slots to `executable` if needed.
absl::StatusOr<std::vector<ExecutableStep>> EmitControlFlowSteps(
    const HloInstruction& hlo, const std::vector<int64_t>& slots,
    const NestedCompiler& compile, Executable* executable);

}  // namespace hloc

#endif  // BACKENDS_COMMON_CONTROL_FLOW_STEPS_H_

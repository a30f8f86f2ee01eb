#include "backends/common/control_flow_steps.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/common/step_plan.h"
#include "hlo/status_macros.h"
#include "hlo/while_trip_count.h"

namespace hloc {
namespace {

int64_t CountLeaves(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& element : shape.tuple_shapes()) n += CountLeaves(element);
  return n;
}

ExecutableStep Copy(const HloInstruction& hlo, int64_t from, int64_t to) {
  ExecutableStep step;
  step.kind = ExecutableStep::Kind::kCopy;
  step.instruction = hlo.name();
  step.buffers = {from, to};
  return step;
}

// Whether slots `a` and `b` are the same bytes (a while's state over its
// init: buffer_assignment.h).
bool SameBytes(const Executable& executable, int64_t a, int64_t b) {
  const ExecutableBuffer& x = executable.buffers[a];
  const ExecutableBuffer& y = executable.buffers[b];
  return a == b || (x.allocation == y.allocation && x.offset == y.offset &&
                    x.size == y.size);
}

// Copies `from[i]` to `to[i]` where they differ (and hold bytes).
void AppendCopies(const HloInstruction& hlo, const std::vector<int64_t>& from,
                  const std::vector<int64_t>& to, const Executable& executable,
                  std::vector<ExecutableStep>* steps) {
  for (size_t i = 0; i < from.size(); ++i) {
    if (SameBytes(executable, from[i], to[i]) ||
        executable.buffers[to[i]].size == 0) {
      continue;
    }
    steps->push_back(Copy(hlo, from[i], to[i]));
  }
}

// A slot of its own allocation, shaped like `like`.
int64_t AddScratchSlot(int64_t like, Executable* executable) {
  ExecutableBuffer buffer = executable->buffers[like];
  ExecutableAllocation allocation;
  allocation.kind = BufferAllocation::Kind::kArena;
  allocation.size = buffer.size;
  buffer.allocation = static_cast<int64_t>(executable->allocations.size());
  buffer.offset = 0;
  buffer.name = absl::StrCat(buffer.name, ".scratch");
  executable->allocations.push_back(std::move(allocation));
  executable->buffers.push_back(std::move(buffer));
  return static_cast<int64_t>(executable->buffers.size()) - 1;
}

absl::StatusOr<std::vector<ExecutableStep>> EmitWhile(
    const HloInstruction& hlo, const std::vector<int64_t>& slots,
    const NestedCompiler& compile, Executable* executable) {
  const size_t n = slots.size() / 2;
  const std::vector<int64_t> init(slots.begin(), slots.begin() + n);
  const std::vector<int64_t> state(slots.begin() + n, slots.end());
  std::vector<ExecutableStep> steps;
  AppendCopies(hlo, init, state, *executable, &steps);

  HLOC_ASSIGN_OR_RETURN(NestedSteps condition,
                        compile(*hlo.while_condition(), state, false));
  HLOC_ASSIGN_OR_RETURN(NestedSteps body,
                        compile(*hlo.while_body(), state, true));
  if (condition.root_slots.size() != 1 || body.root_slots.size() != n) {
    return absl::InternalError(
        absl::StrCat(hlo.name(), ": condition or body of the wrong shape"));
  }
  std::vector<int64_t> results = body.root_slots;
  for (size_t i = 0; i < n; ++i) {
    auto it = std::find(state.begin(), state.end(), results[i]);
    if (it == state.end() || it == state.begin() + i) continue;
    const int64_t scratch = AddScratchSlot(results[i], executable);
    body.steps.push_back(Copy(hlo, results[i], scratch));
    results[i] = scratch;
  }
  AppendCopies(hlo, results, state, *executable, &body.steps);

  ExecutableStep loop;
  loop.kind = ExecutableStep::Kind::kWhile;
  loop.instruction = hlo.name();
  loop.buffers = state;
  loop.condition = std::move(condition.steps);
  loop.body = std::move(body.steps);
  loop.predicate_buffer = condition.root_slots[0];
  // known_trip_count in the backend_config: the platform pipelines'
  // while-trip-count-annotator leaves only the counts it proved there.
  loop.trip_count = KnownTripCount(hlo).value_or(-1);
  steps.push_back(std::move(loop));
  return steps;
}

absl::StatusOr<std::vector<ExecutableStep>> EmitConditional(
    const HloInstruction& hlo, const std::vector<int64_t>& slots,
    const NestedCompiler& compile, Executable* executable) {
  const std::vector<HloComputation*>& branches = hlo.called_computations();
  const int64_t outputs = CountLeaves(hlo.shape());
  const std::vector<int64_t> out(slots.end() - outputs, slots.end());
  ExecutableStep step;
  step.kind = ExecutableStep::Kind::kConditional;
  step.instruction = hlo.name();
  step.predicate_buffer = slots[0];
  step.buffers = out;
  size_t next = 1;
  for (size_t b = 0; b < branches.size(); ++b) {
    const int64_t leaves = CountLeaves(hlo.operand(b + 1)->shape());
    std::vector<int64_t> operand(slots.begin() + next,
                                 slots.begin() + next + leaves);
    next += leaves;
    HLOC_ASSIGN_OR_RETURN(NestedSteps branch,
                          compile(*branches[b], operand, false));
    if (static_cast<int64_t>(branch.root_slots.size()) != outputs) {
      return absl::InternalError(
          absl::StrCat(hlo.name(), ": branch ", b, " of the wrong shape"));
    }
    AppendCopies(hlo, branch.root_slots, out, *executable, &branch.steps);
    step.branches.push_back(std::move(branch.steps));
  }
  return std::vector<ExecutableStep>{std::move(step)};
}

}  // namespace

absl::StatusOr<NestedPlan> PlanNestedComputation(
    const HloComputation& computation,
    const std::vector<int64_t>& parameter_slots, bool loop_body,
    absl::string_view backend, const BufferAssignmentOptions& base_options,
    Executable* executable) {
  NestedPlan plan;
  if (loop_body) {
    HLOC_ASSIGN_OR_RETURN(plan.order, LoopBodyOrder(computation, base_options));
  } else {
    plan.order = computation.MakeInstructionPostOrder();
  }
  HLOC_RETURN_IF_ERROR(CheckCodegenShapes(plan.order, backend));
  BufferAssignmentOptions options = base_options;
  options.loop_state_in_place = loop_body;
  HLOC_ASSIGN_OR_RETURN(plan.assignment,
                        AssignBuffers(computation, plan.order, options));
  HLOC_ASSIGN_OR_RETURN(
      plan.slot_of,
      AppendBufferPlan(plan.assignment, /*nested=*/true, executable));
  size_t next = 0;
  for (const HloInstruction* parameter :
       computation.parameter_instructions()) {
    for (int64_t value : plan.assignment.LeafValues(parameter)) {
      if (next == parameter_slots.size()) {
        return absl::InternalError(absl::StrCat(
            computation.name(), " has more parameter leaves than given"));
      }
      plan.slot_of[value] = parameter_slots[next++];
    }
  }
  // Root leaves written into their loop state leaves' slots.
  for (size_t value = 0; value < plan.assignment.values.size(); ++value) {
    const int64_t state = plan.assignment.values[value].state_of;
    if (state >= 0) plan.slot_of[value] = plan.slot_of[state];
  }
  for (int64_t value :
       plan.assignment.LeafValues(computation.root_instruction())) {
    plan.root_slots.push_back(plan.slot_of[value]);
  }
  return plan;
}

absl::StatusOr<std::vector<ExecutableStep>> EmitControlFlowSteps(
    const HloInstruction& hlo, const std::vector<int64_t>& slots,
    const NestedCompiler& compile, Executable* executable) {
  if (hlo.opcode() == HloOpcode::kWhile) {
    return EmitWhile(hlo, slots, compile, executable);
  }
  if (hlo.opcode() == HloOpcode::kConditional) {
    return EmitConditional(hlo, slots, compile, executable);
  }
  return absl::UnimplementedError(
      absl::StrCat(HloOpcodeString(hlo.opcode()), " is no control flow"));
}

}  // namespace hloc

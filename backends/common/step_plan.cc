#include "backends/common/step_plan.h"

#include "absl/strings/str_cat.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

absl::Status CheckShape(const Shape& shape, const HloInstruction& instr,
                        absl::string_view backend) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      HLOC_RETURN_IF_ERROR(CheckShape(s, instr, backend));
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();
  if (!shape.is_static()) {
    return absl::UnimplementedError(
        absl::StrCat(backend, ": dynamic shapes are not supported (",
                     instr.name(), ")"));
  }
  if (shape.has_layout() && !shape.layout().IsPlain()) {
    return absl::UnimplementedError(
        absl::StrCat(backend, ": only plain layouts are supported (",
                     instr.name(), " has ", shape.ToString(), ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckCodegenShapes(const std::vector<HloInstruction*>& order,
                            absl::string_view backend) {
  for (const HloInstruction* instr : order) {
    HLOC_RETURN_IF_ERROR(CheckShape(instr->shape(), *instr, backend));
  }
  return absl::OkStatus();
}

bool RunsAsStep(const HloInstruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kAfterAll:
      return false;
    default:
      return !IsBufferAlias(instruction);
  }
}

std::vector<PlannedStep> PlanSteps(const std::vector<HloInstruction*>& order,
                                   const BufferAssignment& assignment) {
  std::vector<PlannedStep> steps;
  for (const HloInstruction* instr : order) {
    if (!RunsAsStep(*instr)) continue;
    PlannedStep step{instr, {}};
    for (const HloInstruction* operand : instr->operands()) {
      const std::vector<int64_t>& leaves = assignment.LeafValues(operand);
      step.buffers.insert(step.buffers.end(), leaves.begin(), leaves.end());
    }
    const std::vector<int64_t>& leaves = assignment.LeafValues(instr);
    step.buffers.insert(step.buffers.end(), leaves.begin(), leaves.end());
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace hloc

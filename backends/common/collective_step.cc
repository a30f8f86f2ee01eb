#include "backends/common/collective_step.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/collectives.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

using Op = CollectiveConfig::Op;

absl::Status Unimplemented(const HloInstruction& instr,
                           absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(
      HloOpcodeString(instr.opcode()), " ", instr.name(), ": ", why));
}

absl::Status CheckMajorDimension(const HloInstruction& instr) {
  if (CollectiveDimensionIsMajor(instr)) return absl::OkStatus();
  return Unimplemented(
      instr, absl::StrCat("dimension ", instr.dimensions(0),
                          " is not the most major of its layouts (the "
                          "collective-layout pass puts it so)"));
}

}  // namespace

bool IsCollectiveStep(const HloInstruction& instr) {
  switch (instr.opcode()) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<ExecutableStep> MakeCollectiveStep(
    const HloInstruction& instr, const HloModuleConfig& config,
    const std::vector<int64_t>& slots) {
  ExecutableStep step;
  step.kind = ExecutableStep::Kind::kCollective;
  step.instruction = instr.name();
  step.buffers = slots;
  CollectiveConfig& c = step.collective;
  c.replica_count = config.replica_count;
  c.num_partitions = config.num_partitions;
  switch (instr.opcode()) {
    case HloOpcode::kReplicaId:
      c.op = Op::kReplicaId;
      return step;
    case HloOpcode::kPartitionId:
      c.op = Op::kPartitionId;
      return step;
    case HloOpcode::kAllReduce:
      c.op = Op::kAllReduce;
      break;
    case HloOpcode::kAllGather:
      c.op = Op::kAllGather;
      break;
    case HloOpcode::kReduceScatter:
      c.op = Op::kReduceScatter;
      break;
    case HloOpcode::kAllToAll:
      c.op = Op::kAllToAll;
      break;
    case HloOpcode::kCollectivePermute:
      c.op = Op::kCollectivePermute;
      break;
    default:
      return absl::InternalError(
          absl::StrCat(instr.name(), " is not a collective"));
  }
  if (c.op == Op::kAllReduce || c.op == Op::kReduceScatter) {
    if (instr.to_apply() == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(instr.name(), " has no to_apply"));
    }
    absl::StatusOr<CollectiveReduction> reduction =
        MatchCollectiveReduction(*instr.to_apply());
    if (!reduction.ok()) {
      return Unimplemented(instr, reduction.status().message());
    }
    c.reduction = *reduction;
  }
  for (const HloInstruction* operand : instr.operands()) {
    if (!operand->shape().IsArray()) {
      return Unimplemented(instr, "operands must be arrays");
    }
  }
  if (c.op == Op::kCollectivePermute) {
    if (instr.operand_count() != 1) {
      return Unimplemented(instr, "in-place buffers are not supported");
    }
    HLOC_ASSIGN_OR_RETURN(
        c.sources,
        PermuteSources(instr, config.replica_count, config.num_partitions));
    return step;
  }
  if (c.op == Op::kAllGather || c.op == Op::kReduceScatter ||
      c.op == Op::kAllToAll) {
    HLOC_RETURN_IF_ERROR(CheckMajorDimension(instr));
  }
  HLOC_ASSIGN_OR_RETURN(
      c.groups,
      ParticipantGroups(instr, config.replica_count, config.num_partitions));
  return step;
}

absl::StatusOr<CollectiveStepOrFallback> MakeCollectiveStepOrFallback(
    const HloInstruction& instr, const HloModuleConfig& config,
    const std::vector<int64_t>& slots) {
  CollectiveStepOrFallback result;
  if (!IsCollectiveStep(instr)) return result;
  absl::StatusOr<ExecutableStep> step =
      MakeCollectiveStep(instr, config, slots);
  if (step.ok()) {
    result.step = *std::move(step);
  } else if (absl::IsUnimplemented(step.status())) {
    result.fallback = step.status();
  } else {
    return step.status();
  }
  return result;
}

}  // namespace hloc

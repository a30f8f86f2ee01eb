#include "passes/single_device_collectives.h"

#include <memory>
#include <vector>

#include "hlo/collectives.h"
#include "hlo/computation.h"

namespace hloc {
namespace {

// The value `instr` has where every device takes part alone, or null
// (groups of several, shapes that do not say the identity, or groups the
// verifier will reject: left for it to name).
HloInstruction* AloneValue(HloComputation* computation, HloInstruction* instr,
                           int64_t replicas, int64_t partitions) {
  const std::vector<HloInstruction*>& operands = instr->operands();
  const Shape& shape = instr->shape();
  auto zero_of = [&](const Shape& s) {
    HloInstruction* zero =
        computation->AddInstruction(HloInstruction::CreateConstant(
            Literal(Shape::Scalar(s.element_type()))));
    return s.rank() == 0 ? zero
                         : computation->AddInstruction(
                               HloInstruction::CreateBroadcast(s, zero, {}));
  };
  switch (instr->opcode()) {
    case HloOpcode::kPartitionId:
      return partitions == 1 && shape.IsArray() ? zero_of(shape) : nullptr;
    case HloOpcode::kCollectivePermute: {
      if (!instr->attrs().channel_id.has_value() || operands.size() != 1 ||
          operands[0]->shape() != shape)
        return nullptr;
      absl::StatusOr<std::vector<int64_t>> sources =
          PermuteSources(*instr, replicas, partitions);
      if (!sources.ok() || sources->empty()) return nullptr;
      bool from_self = true, from_none = true;
      for (size_t device = 0; device < sources->size(); ++device) {
        from_self &= (*sources)[device] == static_cast<int64_t>(device);
        from_none &= (*sources)[device] == -1;
      }
      if (from_self) return operands[0];
      if (from_none && shape.IsArray()) return zero_of(shape);
      return nullptr;
    }
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll: {
      if (!instr->attrs().channel_id.has_value()) return nullptr;
      absl::StatusOr<std::vector<std::vector<int64_t>>> groups =
          ParticipantGroups(*instr, replicas, partitions);
      if (!groups.ok() || groups->empty()) return nullptr;
      for (const std::vector<int64_t>& group : *groups) {
        if (group.size() != 1) return nullptr;
      }
      if (operands.size() == 1 && operands[0]->shape() == shape) {
        return operands[0];
      }
      if (operands.empty() || !shape.IsTuple() ||
          shape.tuple_shapes().size() != operands.size()) {
        return nullptr;
      }
      for (size_t i = 0; i < operands.size(); ++i) {
        if (operands[i]->shape() != shape.tuple_shapes()[i]) return nullptr;
      }
      return computation->AddInstruction(HloInstruction::CreateTuple(operands));
    }
    default:
      return nullptr;
  }
}

}  // namespace

absl::StatusOr<bool> SingleDeviceCollectives::Run(HloModule* module) {
  const int64_t replicas = module->config().replica_count;
  const int64_t partitions = module->config().num_partitions;
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    bool added = false;
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      const HloOpcode opcode = instruction->opcode();
      if (!IsCrossDeviceCollective(opcode) &&
          opcode != HloOpcode::kPartitionId) {
        continue;
      }
      const int64_t before = computation->instruction_count();
      HloInstruction* value =
          AloneValue(computation, instruction, replicas, partitions);
      if (value == nullptr) continue;
      added |= computation->instruction_count() != before;
      absl::Status status = instruction->ReplaceAllUsesWith(value);
      if (!status.ok()) return status;
      status = computation->RemoveInstruction(instruction);
      if (!status.ok()) return status;
      Count("collectives-removed");
      changed = true;
    }
    // New constants, broadcasts and tuples are stored last; the module's
    // order must stay def-before-use.
    if (added) computation->SortInstructionsInPostOrder();
  }
  return changed;
}

}  // namespace hloc

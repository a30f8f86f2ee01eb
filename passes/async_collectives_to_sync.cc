#include "passes/async_collectives_to_sync.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/collectives.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

// The synchronous opcode of a start, if it is one.
std::optional<HloOpcode> SyncOpcode(HloOpcode start) {
  switch (start) {
    case HloOpcode::kAllReduceStart:
      return HloOpcode::kAllReduce;
    case HloOpcode::kAllGatherStart:
      return HloOpcode::kAllGather;
    case HloOpcode::kCollectivePermuteStart:
      return HloOpcode::kCollectivePermute;
    default:
      return std::nullopt;
  }
}

bool IsDone(HloOpcode opcode) {
  return opcode == HloOpcode::kAllReduceDone ||
         opcode == HloOpcode::kAllGatherDone ||
         opcode == HloOpcode::kCollectivePermuteDone ||
         opcode == HloOpcode::kAsyncDone;
}

// The collective that `done` completes, on its start's operands with the
// done's shape; null when `done` does not complete a collective this pass
// knows.
absl::StatusOr<std::unique_ptr<HloInstruction>> SyncFor(
    const HloInstruction& done) {
  const HloInstruction* start = done.operand(0);
  // async-start's chain may pass through async-update.
  while (start->opcode() == HloOpcode::kAsyncUpdate) start = start->operand(0);
  if (done.opcode() == HloOpcode::kAsyncDone) {
    if (start->opcode() != HloOpcode::kAsyncStart ||
        start->called_computations().size() != 1) {
      return nullptr;
    }
    const HloInstruction* wrapped =
        start->called_computations()[0]->root_instruction();
    if (wrapped == nullptr || !IsCrossDeviceCollective(wrapped->opcode()) ||
        wrapped->operand_count() != start->operand_count()) {
      return nullptr;
    }
    std::vector<HloInstruction*> operands(start->operands().begin(),
                                          start->operands().end());
    std::unique_ptr<HloInstruction> sync =
        wrapped->CloneWithNewOperands(done.shape(), operands);
    *sync->mutable_metadata() = wrapped->metadata();
    return sync;
  }
  std::optional<HloOpcode> opcode = SyncOpcode(start->opcode());
  if (!opcode) {
    return absl::InvalidArgumentError(
        absl::StrCat(done.name(), " completes ", start->name(), ", a ",
                     HloOpcodeString(start->opcode()), ", not its start"));
  }
  std::vector<HloInstruction*> operands(start->operands().begin(),
                                        start->operands().end());
  std::unique_ptr<HloInstruction> sync =
      HloInstruction::Create(*opcode, done.shape(), operands);
  sync->mutable_attrs() = start->attrs();
  sync->set_called_computations(start->called_computations());
  *sync->mutable_metadata() = start->metadata();
  return sync;
}

}  // namespace

absl::StatusOr<bool> AsyncCollectivesToSync::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    if (computation->IsFusionComputation()) continue;
    for (HloInstruction* done : computation->MakeInstructionPostOrder()) {
      if (!IsDone(done->opcode())) continue;
      HLOC_ASSIGN_OR_RETURN(std::unique_ptr<HloInstruction> sync,
                            SyncFor(*done));
      if (sync == nullptr) continue;
      HloInstruction* start = done->operand(0);
      const std::string name = done->name();
      HloInstruction* added = computation->AddInstruction(std::move(sync));
      HLOC_RETURN_IF_ERROR(done->ReplaceAllUsesWith(added));
      HLOC_RETURN_IF_ERROR(computation->RemoveInstruction(done));
      // The collective keeps the done's name (free again): the value's name
      // in the module as written.
      added->SetName(name);
      // The start (and any async-update between) has no other user now.
      while (start != nullptr && start->user_count() == 0) {
        HloInstruction* next = start->opcode() == HloOpcode::kAsyncUpdate
                                   ? start->operand(0)
                                   : nullptr;
        HLOC_RETURN_IF_ERROR(computation->RemoveInstruction(start));
        start = next;
      }
      Count("collectives-made-synchronous");
      changed = true;
    }
    if (changed) computation->SortInstructionsInPostOrder();
  }
  return changed;
}

}  // namespace hloc

#include "passes/fusion/instruction_fusion.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/fusion/fusion_utils.h"

namespace hloc {

absl::StatusOr<bool> InstructionFusion::Run(HloModule* module) {
  FusionReport* report = ResolveFusionReport(report_);
  bool changed = false;
  for (HloComputation* computation : KernelComputations(*module)) {
    absl::StatusOr<bool> c = RunOnComputation(computation, report);
    if (!c.ok()) return c.status();
    changed |= *c;
  }
  return changed;
}

absl::StatusOr<bool> InstructionFusion::RunOnComputation(
    HloComputation* computation, FusionReport* report) {
  bool changed = false;
  std::vector<HloInstruction*> order = computation->MakeInstructionPostOrder();
  // Instructions are known by their unique ids, never by address: a fused
  // instruction is deleted and a new one may get its address, and a stale
  // entry would then give the new one the old one's position (or make a
  // deleted one look alive), so the fusions made would depend on the
  // allocator. Ids are never reused.
  std::vector<int64_t> order_ids;
  for (const HloInstruction* instr : order) {
    order_ids.push_back(instr->unique_id());
  }
  absl::flat_hash_set<int64_t> alive(order_ids.begin(), order_ids.end());
  if (alive.size() != order.size()) {
    // Modules are built (AddInstruction) and imported (proto ids checked)
    // with distinct ids; shared ones would make a deleted instruction
    // look alive.
    return absl::InternalError(absl::StrCat(
        "instruction-fusion: instructions of ", computation->name(),
        " share unique ids"));
  }
  // Post-order positions; a fusion takes its consumer's. A consumer takes
  // its operands latest first, so a producer is fused only after every
  // operand that uses it: the positions fused into one consumer then only
  // decrease, and each producer is fused (or copied) into it at most once.
  // In any other order a copied producer's value is fused again through
  // each path that reaches it, and a DAG of cheap shared values (JAX's
  // unrolled threefry: every round's values feed two ops of the next) took
  // a number of fusions exponential in its depth.
  absl::flat_hash_map<int64_t, int64_t> position;
  for (int64_t i = 0; i < static_cast<int64_t>(order.size()); ++i) {
    position[order_ids[i]] = i;
  }
  // Whether fusions grown in place (appended) left the stored order
  // unsorted; FuseInstructions sorts it, as the end of the pass does.
  bool unsorted = false;
  for (int64_t i = static_cast<int64_t>(order.size()) - 1; i >= 0; --i) {
    if (!alive.contains(order_ids[i])) continue;
    HloInstruction* consumer = order[i];
    const int64_t consumer_position = position.at(order_ids[i]);
    auto position_of = [&](const HloInstruction* instr) {
      auto found = position.find(instr->unique_id());
      return found == position.end() ? consumer_position : found->second;
    };
    bool fused = true;
    while (fused) {
      fused = false;
      // The consumer is unchanged until the next fusion, which ends this
      // round.
      FusionAnalysisCache analysis;
      std::vector<HloInstruction*> operands;
      for (HloInstruction* operand : consumer->operands()) {
        if (std::find(operands.begin(), operands.end(), operand) ==
            operands.end()) {
          operands.push_back(operand);
        }
      }
      std::stable_sort(operands.begin(), operands.end(),
                       [&](const HloInstruction* a, const HloInstruction* b) {
                         return position_of(a) > position_of(b);
                       });
      for (HloInstruction* producer : operands) {
        // Parameters and tuple plumbing are never kernels: not worth a line
        // in the report.
        if (producer->opcode() == HloOpcode::kParameter ||
            producer->opcode() == HloOpcode::kGetTupleElement ||
            producer->opcode() == HloOpcode::kTuple) {
          continue;
        }
        if (consumer->opcode() == HloOpcode::kTuple ||
            consumer->opcode() == HloOpcode::kGetTupleElement) {
          continue;
        }
        FusionDecision decision =
            ShouldFuse(*producer, *consumer, options_, &analysis);
        FusionDecisionRecord record;
        record.pass = std::string(name());
        record.computation = computation->name();
        record.producer = Describe(*producer);
        record.consumer = Describe(*consumer);
        record.fused = decision.fuse;
        record.rule = decision.rule;
        record.bytes_saved = decision.bytes_saved;
        if (!decision.fuse) {
          if (report) report->Record(std::move(record));
          continue;
        }

        HloInstruction* member = producer;
        if (decision.duplicate) {
          absl::StatusOr<HloInstruction*> copy =
              DuplicateFor(producer, consumer);
          if (!copy.ok()) return copy.status();
          member = *copy;
          Count("duplicated");
        }
        // Fusing may delete both.
        const int64_t member_id = member->unique_id();
        const int64_t consumer_id = consumer->unique_id();
        // A fusion that grows keeps its name, unless it changes kind.
        const bool grow = consumer->opcode() == HloOpcode::kFusion &&
                          consumer->fusion_kind() == decision.kind;
        absl::StatusOr<HloInstruction*> fusion = nullptr;
        if (grow) {
          // The common case, a fusion growing by one producer, in place:
          // the same fusion as below, in time linear in its size.
          fusion = FuseProducerIntoFusion(computation, member, consumer);
          if (!fusion.ok()) return fusion.status();
        }
        if (*fusion != nullptr) {
          alive.erase(member_id);
          alive.erase(consumer_id);
          alive.insert((*fusion)->unique_id());
          unsorted = true;
        } else {
          std::string fusion_name =
              grow ? consumer->name()
                   : FusionNameFor(decision.kind, decision.backend_config);
          std::string backend_config =
              grow ? consumer->backend_config() : decision.backend_config;
          fusion = FuseInstructions(computation, {member, consumer},
                                    decision.kind, fusion_name,
                                    /*keep_name=*/grow, backend_config);
          if (!fusion.ok()) return fusion.status();
          unsorted = false;
          alive.clear();
          for (HloInstruction* instr : computation->instructions()) {
            alive.insert(instr->unique_id());
          }
        }
        position[(*fusion)->unique_id()] = consumer_position;
        Count("fusions");
        record.result = (*fusion)->name();
        if (report) report->Record(std::move(record));
        changed = true;
        consumer = *fusion;
        fused = true;
        break;
      }
    }
  }
  if (unsorted) computation->SortInstructionsInPostOrder();
  return changed;
}

}  // namespace hloc

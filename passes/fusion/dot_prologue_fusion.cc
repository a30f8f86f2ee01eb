#include "passes/fusion/dot_prologue_fusion.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "hlo/computation.h"
#include "passes/fusion/fusion_utils.h"

namespace hloc {
namespace {

// The dot and the producers of its operands that join its prologue, in the
// order they were chosen (the dot first).
std::vector<HloInstruction*> ChoosePrologue(HloInstruction* dot,
                                            const FusionOptions& options,
                                            const std::string& pass,
                                            const std::string& computation,
                                            std::vector<FusionDecisionRecord>*
                                                records) {
  std::vector<HloInstruction*> group = {dot};
  absl::flat_hash_set<const HloInstruction*> members = {dot};
  std::vector<std::pair<HloInstruction*, HloInstruction*>> work;
  for (HloInstruction* operand : dot->operands()) work.push_back({operand, dot});
  int64_t fused_instructions = 1;
  while (!work.empty()) {
    auto [producer, consumer] = work.front();
    work.erase(work.begin());
    if (members.contains(producer)) continue;
    bool users_inside = true;
    for (const HloInstruction* user : producer->users()) {
      users_inside &= members.contains(user);
    }
    FusionDecision d =
        ShouldFuseIntoDotPrologue(*producer, *dot, users_inside, options);
    if (d.fuse && fused_instructions + FusedInstructionCount(*producer) >
                      options.max_fused_instructions) {
      d = FusionDecision::No("the fusion would exceed its instruction limit");
    }
    FusionDecisionRecord r;
    r.pass = pass;
    r.computation = computation;
    r.producer = Describe(*producer);
    r.consumer = Describe(*consumer);
    r.fused = d.fuse;
    r.rule = d.rule;
    r.bytes_saved = d.bytes_saved;
    records->push_back(std::move(r));
    if (!d.fuse) continue;
    group.push_back(producer);
    members.insert(producer);
    fused_instructions += FusedInstructionCount(*producer);
    for (HloInstruction* operand : producer->operands()) {
      work.push_back({operand, producer});
    }
  }
  return group;
}

}  // namespace

absl::StatusOr<bool> DotPrologueFusion::Run(HloModule* module) {
  if (options_.dot_prologue_max_flops <= 0) return false;
  FusionReport* report = ResolveFusionReport(report_);
  bool changed = false;
  for (HloComputation* computation : KernelComputations(*module)) {
    std::vector<HloInstruction*> dots;
    for (HloInstruction* instr : computation->MakeInstructionPostOrder()) {
      if (instr->opcode() == HloOpcode::kDot && instr->shape().IsArray()) {
        dots.push_back(instr);
      }
    }
    // A producer joins a prologue only when all its users are inside it,
    // so two dots' prologues never share an instruction and fusing one
    // leaves the others' candidates as they were.
    for (HloInstruction* dot : dots) {
      std::vector<FusionDecisionRecord> records;
      std::vector<HloInstruction*> group =
          ChoosePrologue(dot, options_, std::string(name()),
                         computation->name(), &records);
      std::string result;
      if (group.size() > 1) {
        absl::StatusOr<HloInstruction*> fusion = FuseInstructions(
            computation, group, FusionKind::kOutput,
            "dot_prologue_fusion", /*keep_name=*/false);
        if (!fusion.ok()) return fusion.status();
        result = (*fusion)->name();
        Count("prologues");
        Count("producers-fused", static_cast<int64_t>(group.size()) - 1);
        changed = true;
      }
      if (report != nullptr) {
        for (FusionDecisionRecord& r : records) {
          if (r.fused) r.result = result;
          report->Record(std::move(r));
        }
      }
    }
  }
  return changed;
}

}  // namespace hloc

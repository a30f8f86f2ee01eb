#include "passes/simplifier/algebraic_simplifier.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "passes/simplifier/rules.h"

namespace hloc {
namespace {

constexpr int kMaxRounds = 32;

bool IsDead(const HloInstruction* instruction) {
  return instruction->user_count() == 0 && !instruction->IsRoot();
}

// Removes what a rule added but did not use.
absl::Status RemoveUnused(HloComputation* computation,
                          const std::vector<HloInstruction*>& added) {
  for (auto it = added.rbegin(); it != added.rend(); ++it) {
    if (IsDead(*it)) {
      absl::Status status = computation->RemoveInstruction(*it);
      if (!status.ok()) return status;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> AlgebraicSimplifier::RunOnComputation(
    HloComputation* computation) {
  Rewriter rewriter(computation, options_);
  bool changed = false;
  for (int round = 0; round < kMaxRounds; ++round) {
    bool round_changed = false;
    // Removal only deletes the instruction at hand and operands that became
    // dead, which come earlier in post order: the rest of the walk is safe.
    for (HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (IsDead(instruction)) continue;
      rewriter.set_current(instruction);
      for (const SimplifierRule& rule : AllSimplifierRules()) {
        if (rule.opcode && *rule.opcode != instruction->opcode()) continue;
        HloInstruction* replacement = rule.rewrite(instruction, rewriter);
        std::vector<HloInstruction*> added = rewriter.TakeAdded();
        if (replacement == nullptr || replacement == instruction) {
          absl::Status status = RemoveUnused(computation, added);
          if (!status.ok()) return status;
          continue;
        }
        if (!replacement->shape().Compatible(instruction->shape())) {
          return absl::InternalError(absl::StrCat(
              "rule ", rule.name, " replaced ", instruction->ToShortString(),
              " by ", replacement->ToShortString(), " of another shape"));
        }
        Count(rule.name);
        absl::Status status = instruction->ReplaceAllUsesWith(replacement);
        if (!status.ok()) return status;
        status = computation->RemoveInstructionAndUnusedOperands(instruction);
        if (!status.ok()) return status;
        status = RemoveUnused(computation, added);
        if (!status.ok()) return status;
        round_changed = true;
        break;
      }
    }
    if (!round_changed) break;
    changed = true;
    if (round + 1 == kMaxRounds) Count("round-limit-reached");
  }
  rewriter.set_current(nullptr);
  if (changed) computation->SortInstructionsInPostOrder();
  return changed;
}

absl::StatusOr<bool> AlgebraicSimplifier::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    absl::StatusOr<bool> computation_changed = RunOnComputation(computation);
    if (!computation_changed.ok()) return computation_changed.status();
    changed |= *computation_changed;
  }
  return changed;
}

}  // namespace hloc

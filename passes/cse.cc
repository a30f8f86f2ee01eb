#include "passes/cse.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "hlo/computation.h"

namespace hloc {
namespace {

bool CanMerge(const HloInstruction* instruction) {
  return instruction->opcode() != HloOpcode::kParameter &&
         !(instruction->opcode() == HloOpcode::kCustomCall &&
           instruction->operand_count() == 0) &&
         !instruction->HasSideEffect() &&
         instruction->control_predecessors().empty() &&
         instruction->control_successors().empty();
}

bool IsCommutative(const HloInstruction* instruction) {
  return instruction->operand_count() == 2 &&
         HloOpcodeIsBinaryCommutative(instruction->opcode());
}

// Operands in the order equality and hashing look at them: as given, or
// sorted by id for commutative ops.
std::vector<const HloInstruction*> CanonicalOperands(
    const HloInstruction* instruction) {
  std::vector<const HloInstruction*> operands(instruction->operands().begin(),
                                              instruction->operands().end());
  if (IsCommutative(instruction)) {
    std::sort(operands.begin(), operands.end(),
              [](const HloInstruction* a, const HloInstruction* b) {
                return a->unique_id() < b->unique_id();
              });
  }
  return operands;
}

size_t HashInstruction(const HloInstruction* instruction) {
  size_t hash = absl::Hash<std::pair<int, std::string>>()(
      {static_cast<int>(instruction->opcode()),
       instruction->shape().ToString()});
  for (const HloInstruction* operand : CanonicalOperands(instruction)) {
    hash =
        absl::Hash<std::pair<size_t, int64_t>>()({hash, operand->unique_id()});
  }
  if (instruction->opcode() == HloOpcode::kConstant &&
      instruction->shape().IsArray()) {
    const Literal& literal = instruction->literal();
    absl::string_view bytes(
        reinterpret_cast<const char*>(literal.untyped_data()),
        literal.size_bytes());
    hash = absl::Hash<std::pair<size_t, absl::string_view>>()({hash, bytes});
  }
  return hash;
}

bool ComputationsEqual(const HloComputation* a, const HloComputation* b) {
  return a == b || (a != nullptr && b != nullptr && a->Equal(*b));
}

bool Equivalent(const HloInstruction* a, const HloInstruction* b) {
  return CanonicalOperands(a) == CanonicalOperands(b) &&
         a->IdenticalSlowPath(*b, ComputationsEqual);
}

absl::StatusOr<int64_t> RunOnComputation(HloComputation* computation) {
  absl::flat_hash_map<size_t, std::vector<HloInstruction*>> seen;
  int64_t merged = 0;
  for (HloInstruction* instruction : computation->MakeInstructionPostOrder()) {
    if (!CanMerge(instruction)) continue;
    std::vector<HloInstruction*>& bucket = seen[HashInstruction(instruction)];
    auto match = std::find_if(bucket.begin(), bucket.end(),
                              [&](HloInstruction* earlier) {
                                return Equivalent(earlier, instruction);
                              });
    if (match == bucket.end()) {
      bucket.push_back(instruction);
      continue;
    }
    absl::Status status = instruction->ReplaceAllUsesWith(*match);
    if (!status.ok()) return status;
    status = computation->RemoveInstruction(instruction);
    if (!status.ok()) return status;
    ++merged;
  }
  return merged;
}

}  // namespace

absl::StatusOr<bool> CommonSubexpressionElimination::Run(HloModule* module) {
  int64_t merged = 0;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    absl::StatusOr<int64_t> n = RunOnComputation(computation);
    if (!n.ok()) return n.status();
    if (*n > 0) computation->SortInstructionsInPostOrder();
    merged += *n;
  }
  Count("instructions-merged", merged);
  return merged > 0;
}

}  // namespace hloc

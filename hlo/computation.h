// HloComputation: a function of HLO instructions with parameters and a root.
// It owns its instructions and keeps them in a def-before-use order (the
// order they were added, which the parser and importer keep topological).
#ifndef HLO_COMPUTATION_H_
#define HLO_COMPUTATION_H_

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/instruction.h"

namespace hloc {

class HloModule;

class HloComputation {
 public:
  explicit HloComputation(std::string name);
  ~HloComputation();
  HloComputation(const HloComputation&) = delete;
  HloComputation& operator=(const HloComputation&) = delete;

  const std::string& name() const { return name_; }
  void SetName(std::string name) { name_ = std::move(name); }
  int64_t unique_id() const { return unique_id_; }
  void SetUniqueId(int64_t id) { unique_id_ = id; }
  HloModule* parent() const { return parent_; }
  void set_parent(HloModule* module) { parent_ = module; }

  // Takes ownership and appends; registers it as a user of its operands. If
  // the instruction has no name, or the computation belongs to a module, the
  // module gives it a unique name and id.
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> instruction);
  // Adds a parameter (its parameter_number must be the next free one).
  HloInstruction* AddParameter(std::unique_ptr<HloInstruction> parameter);
  // Removes an instruction that has no users (and is not the root).
  absl::Status RemoveInstruction(HloInstruction* instruction);
  // Removes `instruction` and every operand that becomes unused, unless it
  // is a parameter or has side effects.
  absl::Status RemoveInstructionAndUnusedOperands(HloInstruction* instruction);
  // old->ReplaceAllUsesWith(new), then removes `old` and whatever becomes
  // dead.
  absl::Status ReplaceInstruction(HloInstruction* old_instruction,
                                  HloInstruction* new_instruction);

  HloInstruction* root_instruction() const { return root_; }
  void set_root_instruction(HloInstruction* root) { root_ = root; }

  int64_t num_parameters() const {
    return static_cast<int64_t>(parameters_.size());
  }
  HloInstruction* parameter_instruction(int64_t i) const {
    return parameters_[i];
  }
  const std::vector<HloInstruction*>& parameter_instructions() const {
    return parameters_;
  }

  // Instructions in stored (def-before-use) order.
  int64_t instruction_count() const {
    return static_cast<int64_t>(instructions_.size());
  }
  std::vector<HloInstruction*> instructions() const;
  // A fresh topological order (operands and control predecessors first),
  // including instructions not reachable from the root. Stable: ties keep the
  // stored order.
  std::vector<HloInstruction*> MakeInstructionPostOrder() const;
  // Re-sorts the stored order into MakeInstructionPostOrder().
  void SortInstructionsInPostOrder();
  // Re-sorts the stored order into `order`, which must hold every
  // instruction once, and rebuilds the parameter list from the parameters'
  // numbers (which must be 0..n-1). Lets a pass that edits a computation in
  // place (instruction fusion growing a fusion) give it the order and
  // parameter numbering a rebuilt one would have, in time linear in its size.
  absl::Status SetInstructionOrder(absl::Span<HloInstruction* const> order);
  // Finds an instruction by name (nullptr if none).
  HloInstruction* GetInstructionWithName(absl::string_view name) const;

  ProgramShape ComputeProgramShape() const;

  // For a fusion's computation, the fusion instruction that calls it.
  HloInstruction* FusionInstruction() const { return fusion_instruction_; }
  void SetFusionInstruction(HloInstruction* fusion) {
    fusion_instruction_ = fusion;
  }
  bool IsFusionComputation() const { return fusion_instruction_ != nullptr; }

  // Fuses `instructions` (each an instruction of this computation, given in
  // def-before-use order, the last being the fusion's main result) into a
  // new fusion instruction of `kind` with a new fused computation added to
  // the module. Operands from outside the set become fusion parameters. Any
  // fused instruction other than the last that still has users outside the
  // set makes this a multi-output fusion: the fused root becomes a tuple and
  // those users read get-tuple-elements of the fusion. Returns the
  // instruction that replaces the last one (the fusion, or its element 0).
  absl::StatusOr<HloInstruction*> CreateFusionInstruction(
      absl::Span<HloInstruction* const> instructions, FusionKind kind);

  // A deep copy (instructions renamed with `suffix` if non-empty), belonging
  // to no module. Called computations are replaced through `remap` where it
  // has an entry and shared otherwise.
  std::unique_ptr<HloComputation> Clone(
      const std::string& suffix = "",
      const absl::flat_hash_map<const HloComputation*, HloComputation*>*
          remap = nullptr) const;

  // Structural equality: same parameters, same instructions in the same
  // order with identical attributes and operand positions; called
  // computations compared recursively. Names are ignored.
  bool Equal(const HloComputation& other) const;

 private:
  std::string name_;
  int64_t unique_id_ = -1;
  HloModule* parent_ = nullptr;
  std::list<std::unique_ptr<HloInstruction>> instructions_;
  absl::flat_hash_map<const HloInstruction*,
                      std::list<std::unique_ptr<HloInstruction>>::iterator>
      positions_;
  std::vector<HloInstruction*> parameters_;
  HloInstruction* root_ = nullptr;
  HloInstruction* fusion_instruction_ = nullptr;
};

// If `computation` is `op(parameter(0), parameter(1))` (either order) for a
// commutative reduction opcode (add, multiply, maximum, minimum, and, or,
// xor) on two scalars of one type, that opcode. Such a reducer gives the
// same result whatever order its operands come in; any other may not (an
// argmax whose ties keep the first operand's index), so reductions that
// combine partial results in a tree must keep them in sequence order.
std::optional<HloOpcode> MatchSimpleReducer(const HloComputation& computation);

// True if every value computed from `from` (its users, theirs, ...; only
// those `in_scope` accepts are followed) reads it at its own linear
// position: elementwise ops of the same dimensions, reshapes and bitcasts,
// all row-major with `from`'s element count; and `to` is among them. Then
// a kernel may compute `from` in any order of its elements (a concatenate
// operand by operand) and `to` at the same linear positions.
bool ReadAtOwnLinearPositionUpTo(
    const HloInstruction* from, const HloInstruction* to,
    const std::function<bool(const HloInstruction*)>& in_scope);

}  // namespace hloc

#endif  // HLO_COMPUTATION_H_

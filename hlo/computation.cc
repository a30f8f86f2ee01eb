#include "hlo/computation.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/module.h"

namespace hloc {

namespace {

bool IsDefBeforeUse(const std::vector<HloInstruction*>& order) {
  absl::flat_hash_set<const HloInstruction*> defined;
  for (const HloInstruction* instr : order) {
    for (const HloInstruction* operand : instr->operands()) {
      if (!defined.contains(operand)) return false;
    }
    defined.insert(instr);
  }
  return true;
}

}  // namespace

HloComputation::HloComputation(std::string name) : name_(std::move(name)) {}

HloComputation::~HloComputation() {
  // Instructions point at each other; clear the use lists first so no
  // destructor touches an already-destroyed operand.
  for (auto& instr : instructions_) {
    instr->operands_.clear();
    instr->users_.clear();
    instr->user_set_.clear();
  }
}

HloInstruction* HloComputation::AddInstruction(
    std::unique_ptr<HloInstruction> instruction) {
  HloInstruction* raw = instruction.get();
  raw->parent_ = this;
  if (parent_ != nullptr) {
    if (raw->name().empty()) {
      raw->SetName(parent_->UniquifyName(HloOpcodeString(raw->opcode())));
    } else {
      raw->SetName(parent_->UniquifyName(raw->name()));
    }
    if (raw->unique_id() < 0) raw->SetUniqueId(parent_->NextUniqueId());
  }
  instructions_.push_back(std::move(instruction));
  positions_[raw] = std::prev(instructions_.end());
  if (raw->opcode() == HloOpcode::kFusion && raw->fused_computation()) {
    raw->fused_computation()->SetFusionInstruction(raw);
  }
  return raw;
}

HloInstruction* HloComputation::AddParameter(
    std::unique_ptr<HloInstruction> parameter) {
  HloInstruction* raw = AddInstruction(std::move(parameter));
  int64_t number = raw->parameter_number();
  if (static_cast<int64_t>(parameters_.size()) <= number) {
    parameters_.resize(number + 1, nullptr);
  }
  parameters_[number] = raw;
  return raw;
}

absl::Status HloComputation::RemoveInstruction(HloInstruction* instruction) {
  auto it = positions_.find(instruction);
  if (it == positions_.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        instruction->name(), " is not an instruction of ", name_));
  }
  if (instruction->user_count() != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove ", instruction->name(), ": it has ",
                     instruction->user_count(), " users"));
  }
  if (instruction == root_) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove the root ", instruction->name()));
  }
  if (instruction->opcode() == HloOpcode::kParameter) {
    int64_t number = instruction->parameter_number();
    if (number < num_parameters() && parameters_[number] == instruction) {
      parameters_[number] = nullptr;
    }
  }
  instruction->DetachFromOperands();
  instruction->DropAllControlDeps();
  if (parent_ != nullptr && parent_->has_schedule()) {
    auto sched = parent_->mutable_schedule().find(this);
    if (sched != parent_->mutable_schedule().end()) {
      auto& seq = sched->second;
      seq.erase(std::remove(seq.begin(), seq.end(), instruction), seq.end());
    }
  }
  instructions_.erase(it->second);
  positions_.erase(it);
  return absl::OkStatus();
}

absl::Status HloComputation::RemoveInstructionAndUnusedOperands(
    HloInstruction* instruction) {
  std::vector<HloInstruction*> worklist = {instruction};
  absl::flat_hash_set<HloInstruction*> removed;
  while (!worklist.empty()) {
    HloInstruction* current = worklist.back();
    worklist.pop_back();
    if (removed.contains(current) || current->user_count() != 0 ||
        current == root_ || current->opcode() == HloOpcode::kParameter ||
        (current != instruction && current->HasSideEffect())) {
      continue;
    }
    std::vector<HloInstruction*> operands = current->operands();
    absl::Status status = RemoveInstruction(current);
    if (!status.ok()) return status;
    removed.insert(current);
    for (HloInstruction* operand : operands) worklist.push_back(operand);
  }
  return absl::OkStatus();
}

absl::Status HloComputation::ReplaceInstruction(
    HloInstruction* old_instruction, HloInstruction* new_instruction) {
  absl::Status status = old_instruction->ReplaceAllUsesWith(new_instruction);
  if (!status.ok()) return status;
  return RemoveInstructionAndUnusedOperands(old_instruction);
}

std::vector<HloInstruction*> HloComputation::instructions() const {
  std::vector<HloInstruction*> out;
  out.reserve(instructions_.size());
  for (const auto& instr : instructions_) out.push_back(instr.get());
  return out;
}

std::vector<HloInstruction*> HloComputation::MakeInstructionPostOrder() const {
  // Iterative DFS. Starting points: the root, then the parameters by number,
  // then everything else in stored order, so the order depends on the graph
  // rather than on how the instructions happened to be stored.
  std::vector<HloInstruction*> order;
  order.reserve(instructions_.size());
  absl::flat_hash_set<const HloInstruction*> done;
  absl::flat_hash_set<const HloInstruction*> on_stack;
  auto visit = [&](HloInstruction* start) {
    if (start == nullptr || done.contains(start)) return;
    std::vector<std::pair<HloInstruction*, size_t>> stack = {{start, 0}};
    on_stack.insert(start);
    while (!stack.empty()) {
      auto& [instr, next] = stack.back();
      const size_t n_ops = instr->operands().size();
      const size_t n_total = n_ops + instr->control_predecessors().size();
      if (next < n_total) {
        HloInstruction* dep = next < n_ops
                                  ? instr->operand(next)
                                  : instr->control_predecessors()[next - n_ops];
        ++next;
        // A dependency already on the stack is a cycle; the verifier reports
        // it, here it is simply not followed.
        if (!done.contains(dep) && !on_stack.contains(dep)) {
          on_stack.insert(dep);
          stack.push_back({dep, 0});
        }
        continue;
      }
      done.insert(instr);
      on_stack.erase(instr);
      order.push_back(instr);
      stack.pop_back();
    }
  };
  visit(root_);
  for (HloInstruction* param : parameters_) visit(param);
  for (const auto& instr : instructions_) visit(instr.get());
  return order;
}

void HloComputation::SortInstructionsInPostOrder() {
  std::vector<HloInstruction*> order = MakeInstructionPostOrder();
  std::list<std::unique_ptr<HloInstruction>> sorted;
  for (HloInstruction* instr : order) {
    auto it = positions_[instr];
    sorted.splice(sorted.end(), instructions_, it);
    positions_[instr] = std::prev(sorted.end());
  }
  instructions_.swap(sorted);
}

absl::Status HloComputation::SetInstructionOrder(
    absl::Span<HloInstruction* const> order) {
  if (order.size() != instructions_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        name_, ": an order of ", order.size(), " instructions for ",
        instructions_.size()));
  }
  absl::flat_hash_set<const HloInstruction*> seen;
  seen.reserve(order.size());
  for (HloInstruction* instr : order) {
    if (!positions_.contains(instr) || !seen.insert(instr).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          name_, ": the order repeats or misses ", instr->name()));
    }
  }
  std::vector<HloInstruction*> params;
  std::list<std::unique_ptr<HloInstruction>> sorted;
  for (HloInstruction* instr : order) {
    sorted.splice(sorted.end(), instructions_, positions_[instr]);
    if (instr->opcode() == HloOpcode::kParameter) params.push_back(instr);
  }
  instructions_.swap(sorted);
  std::vector<HloInstruction*> numbered(params.size(), nullptr);
  for (HloInstruction* param : params) {
    int64_t number = param->parameter_number();
    if (number < 0 || number >= static_cast<int64_t>(numbered.size()) ||
        numbered[number] != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(name_, ": parameter numbers are not 0..",
                       params.size() - 1, " (", param->name(), ")"));
    }
    numbered[number] = param;
  }
  parameters_ = std::move(numbered);
  return absl::OkStatus();
}

HloInstruction* HloComputation::GetInstructionWithName(
    absl::string_view name) const {
  for (const auto& instr : instructions_) {
    if (instr->name() == name) return instr.get();
  }
  return nullptr;
}

ProgramShape HloComputation::ComputeProgramShape() const {
  ProgramShape shape;
  for (HloInstruction* param : parameters_) {
    if (param == nullptr) continue;
    shape.parameters.push_back(param->shape());
    shape.parameter_names.push_back(param->name());
  }
  if (root_) shape.result = root_->shape();
  return shape;
}

absl::StatusOr<HloInstruction*> HloComputation::CreateFusionInstruction(
    absl::Span<HloInstruction* const> instructions, FusionKind kind) {
  if (instructions.empty()) {
    return absl::InvalidArgumentError("cannot fuse an empty set");
  }
  if (parent_ == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot fuse in ", name_, ": it belongs to no module"));
  }
  absl::flat_hash_set<HloInstruction*> in_set(instructions.begin(),
                                              instructions.end());
  for (HloInstruction* instr : instructions) {
    if (instr->parent() != this) {
      return absl::InvalidArgumentError(absl::StrCat(
          instr->name(), " is not an instruction of ", name_));
    }
    if (instr->opcode() == HloOpcode::kParameter) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot fuse parameter ", instr->name()));
    }
  }
  HloInstruction* main = instructions.back();

  // Results the fusion must expose: the main instruction, then every other
  // fused instruction still needed outside the set.
  auto needed_outside = [&](HloInstruction* instr) {
    if (instr == root_) return true;
    for (HloInstruction* user : instr->users()) {
      if (!in_set.contains(user)) return true;
    }
    return false;
  };
  std::vector<HloInstruction*> outputs = {main};
  for (HloInstruction* instr : instructions) {
    if (instr != main && needed_outside(instr)) outputs.push_back(instr);
  }

  std::string base = kind == FusionKind::kInput ? "input_fusion" : "fusion";
  auto fused = std::make_unique<HloComputation>(
      absl::StrCat("fused_", base == "fusion" ? "computation" : base));
  absl::flat_hash_map<HloInstruction*, HloInstruction*> clones;
  std::vector<HloInstruction*> fusion_operands;
  for (HloInstruction* instr : instructions) {
    std::vector<HloInstruction*> new_operands;
    for (HloInstruction* operand : instr->operands()) {
      auto it = clones.find(operand);
      if (it == clones.end()) {
        int64_t number = static_cast<int64_t>(fusion_operands.size());
        fusion_operands.push_back(operand);
        HloInstruction* param = fused->AddParameter(
            HloInstruction::CreateParameter(number, operand->shape(),
                                            absl::StrCat("param_", number)));
        it = clones.emplace(operand, param).first;
      }
      new_operands.push_back(it->second);
    }
    clones[instr] = fused->AddInstruction(
        instr->CloneWithNewOperands(instr->shape(), new_operands));
  }
  Shape fusion_shape = main->shape();
  if (outputs.size() == 1) {
    fused->set_root_instruction(clones[main]);
  } else {
    std::vector<HloInstruction*> elements;
    for (HloInstruction* out : outputs) elements.push_back(clones[out]);
    HloInstruction* tuple =
        fused->AddInstruction(HloInstruction::CreateTuple(elements));
    fused->set_root_instruction(tuple);
    fusion_shape = tuple->shape();
  }

  // Callee-first: the fused computation goes just before its caller.
  HloComputation* fused_raw =
      parent_->AddEmbeddedComputation(std::move(fused), /*before=*/this);
  auto fusion_instr = HloInstruction::CreateFusion(fusion_shape, kind,
                                                   fusion_operands, fused_raw);
  fusion_instr->SetName(base);
  HloInstruction* fusion = AddInstruction(std::move(fusion_instr));

  HloInstruction* replacement = fusion;
  for (size_t i = 0; i < outputs.size(); ++i) {
    HloInstruction* out = outputs[i];
    HloInstruction* value = fusion;
    if (outputs.size() > 1) {
      value = AddInstruction(HloInstruction::CreateGetTupleElement(
          out->shape(), fusion, static_cast<int64_t>(i)));
      if (i == 0) replacement = value;
    }
    std::vector<HloInstruction*> external;
    for (HloInstruction* user : out->users()) {
      if (!in_set.contains(user)) external.push_back(user);
    }
    absl::Status status = out->ReplaceUsesWith(external, value);
    if (!status.ok()) return status;
    if (root_ == out) root_ = value;
  }
  // Control dependencies of the fused instructions move to the fusion.
  for (HloInstruction* instr : instructions) {
    for (HloInstruction* pred :
         std::vector<HloInstruction*>(instr->control_predecessors())) {
      if (!in_set.contains(pred)) (void)pred->AddControlDependencyTo(fusion);
    }
    for (HloInstruction* succ :
         std::vector<HloInstruction*>(instr->control_successors())) {
      if (!in_set.contains(succ)) (void)fusion->AddControlDependencyTo(succ);
    }
    instr->DropAllControlDeps();
  }
  for (auto it = instructions.rbegin(); it != instructions.rend(); ++it) {
    absl::Status status = RemoveInstruction(*it);
    if (!status.ok()) return status;
  }
  // The fusion was appended; users that came before it must follow it.
  SortInstructionsInPostOrder();
  return replacement;
}

std::unique_ptr<HloComputation> HloComputation::Clone(
    const std::string& suffix,
    const absl::flat_hash_map<const HloComputation*, HloComputation*>* remap)
    const {
  auto clone = std::make_unique<HloComputation>(
      suffix.empty() ? name_ : absl::StrCat(name_, ".", suffix));
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  // Copy in stored order (so the copy prints the same); if that order is not
  // def-before-use (the verifier reports it), a topological order instead.
  std::vector<HloInstruction*> order = instructions();
  if (!IsDefBeforeUse(order)) order = MakeInstructionPostOrder();
  for (HloInstruction* instr : order) {
    std::vector<HloInstruction*> operands;
    for (HloInstruction* operand : instr->operands()) {
      operands.push_back(map.at(operand));
    }
    auto copy = instr->CloneWithNewOperands(instr->shape(), operands);
    if (!suffix.empty()) copy->SetName(absl::StrCat(instr->name(), ".", suffix));
    if (remap != nullptr) {
      std::vector<HloComputation*> called = copy->called_computations();
      for (HloComputation*& c : called) {
        auto it = remap->find(c);
        if (it != remap->end()) c = it->second;
      }
      copy->set_called_computations(std::move(called));
    }
    HloInstruction* raw = instr->opcode() == HloOpcode::kParameter
                              ? clone->AddParameter(std::move(copy))
                              : clone->AddInstruction(std::move(copy));
    map[instr] = raw;
  }
  for (const auto& instr : instructions_) {
    for (HloInstruction* pred : instr->control_predecessors()) {
      (void)map.at(pred)->AddControlDependencyTo(map.at(instr.get()));
    }
  }
  if (root_) clone->root_ = map.at(root_);
  return clone;
}

bool HloComputation::Equal(const HloComputation& other) const {
  if (num_parameters() != other.num_parameters() ||
      instruction_count() != other.instruction_count()) {
    return false;
  }
  std::vector<HloInstruction*> a = MakeInstructionPostOrder();
  std::vector<HloInstruction*> b = other.MakeInstructionPostOrder();
  if (a.size() != b.size()) return false;
  absl::flat_hash_map<const HloInstruction*, const HloInstruction*> match;
  auto eq_computations = [](const HloComputation* x, const HloComputation* y) {
    return x == y || (x != nullptr && y != nullptr && x->Equal(*y));
  };
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i]->IdenticalSlowPath(*b[i], eq_computations)) return false;
    for (int64_t j = 0; j < a[i]->operand_count(); ++j) {
      auto it = match.find(a[i]->operand(j));
      if (it == match.end() || it->second != b[i]->operand(j)) return false;
    }
    if (a[i]->control_predecessors().size() !=
        b[i]->control_predecessors().size()) {
      return false;
    }
    match[a[i]] = b[i];
  }
  return root_ == nullptr ? other.root_ == nullptr
                          : match.at(root_) == other.root_;
}

std::optional<HloOpcode> MatchSimpleReducer(const HloComputation& computation) {
  if (computation.num_parameters() != 2) return std::nullopt;
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr || root->operand_count() != 2) return std::nullopt;
  switch (root->opcode()) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      break;
    default:
      return std::nullopt;
  }
  const HloInstruction* p0 = computation.parameter_instruction(0);
  const HloInstruction* p1 = computation.parameter_instruction(1);
  const bool direct = root->operand(0) == p0 && root->operand(1) == p1;
  const bool swapped = root->operand(0) == p1 && root->operand(1) == p0;
  if (!direct && !swapped) return std::nullopt;
  const Shape& shape = root->shape();
  if (!shape.IsScalar() || !p0->shape().IsScalar() || !p1->shape().IsScalar() ||
      p0->shape().element_type() != shape.element_type() ||
      p1->shape().element_type() != shape.element_type()) {
    return std::nullopt;
  }
  return root->opcode();
}

bool ReadAtOwnLinearPositionUpTo(
    const HloInstruction* from, const HloInstruction* to,
    const std::function<bool(const HloInstruction*)>& in_scope) {
  const Shape& shape = from->shape();
  if (!shape.IsArray() || !shape.HasDescendingLayout()) return false;
  std::vector<const HloInstruction*> work = {from};
  absl::flat_hash_set<const HloInstruction*> seen = {from};
  while (!work.empty()) {
    const HloInstruction* value = work.back();
    work.pop_back();
    for (const HloInstruction* user : value->users()) {
      if (!in_scope(user)) continue;
      const Shape& s = user->shape();
      if (!s.IsArray() || s.ElementCount() != shape.ElementCount() ||
          !s.HasDescendingLayout()) {
        return false;
      }
      const bool keeps_position =
          user->opcode() == HloOpcode::kReshape ||
          user->opcode() == HloOpcode::kBitcast ||
          (user->IsElementwise() && s.SameDimensions(value->shape()));
      if (!keeps_position) return false;
      if (seen.insert(user).second) work.push_back(user);
    }
  }
  return seen.contains(to);
}

}  // namespace hloc

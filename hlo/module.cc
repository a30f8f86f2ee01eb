#include "hlo/module.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace hloc {

bool StackFrameIndex::FileLocation::operator==(const FileLocation& o) const {
  return file_name_id == o.file_name_id &&
         function_name_id == o.function_name_id && line == o.line &&
         end_line == o.end_line && column == o.column &&
         end_column == o.end_column;
}

bool StackFrameIndex::operator==(const StackFrameIndex& o) const {
  return file_names == o.file_names && function_names == o.function_names &&
         file_locations == o.file_locations && stack_frames == o.stack_frames;
}

HloModule::HloModule(std::string name) : name_(std::move(name)) {}

HloModule::~HloModule() = default;

HloComputation* HloModule::AddEmbeddedComputation(
    std::unique_ptr<HloComputation> computation,
    const HloComputation* before) {
  HloComputation* raw = computation.get();
  raw->set_parent(this);
  if (computation_names_.contains(raw->name())) {
    std::string base = raw->name();
    int64_t& counter = computation_name_counters_[base];
    std::string name;
    do {
      name = absl::StrCat(base, ".", ++counter);
    } while (computation_names_.contains(name));
    raw->SetName(name);
  }
  computation_names_.insert(raw->name());
  // Keep an id given by the producer (a proto's) unless it is taken.
  if (raw->unique_id() < 0 || computation_ids_.contains(raw->unique_id())) {
    while (computation_ids_.contains(next_computation_id_)) {
      ++next_computation_id_;
    }
    raw->SetUniqueId(next_computation_id_++);
  }
  computation_ids_.insert(raw->unique_id());
  for (HloInstruction* instr : raw->instructions()) {
    instr->SetName(UniquifyName(instr->name().empty()
                                    ? std::string(HloOpcodeString(instr->opcode()))
                                    : instr->name()));
    if (instr->unique_id() < 0) instr->SetUniqueId(NextUniqueId());
  }
  auto pos = computations_.end();
  if (before != nullptr) {
    pos = std::find_if(computations_.begin(), computations_.end(),
                       [&](const auto& c) { return c.get() == before; });
  }
  computations_.insert(pos, std::move(computation));
  return raw;
}

HloComputation* HloModule::AddEntryComputation(
    std::unique_ptr<HloComputation> computation) {
  entry_ = AddEmbeddedComputation(std::move(computation));
  return entry_;
}

std::vector<HloComputation*> HloModule::computations() const {
  std::vector<HloComputation*> out;
  for (const auto& c : computations_) out.push_back(c.get());
  return out;
}

std::vector<HloComputation*> HloModule::MakeComputationPostOrder() const {
  std::vector<HloComputation*> order;
  absl::flat_hash_set<const HloComputation*> done;
  // Recursion depth is the call depth of the module, which is small.
  std::function<void(HloComputation*)> visit = [&](HloComputation* c) {
    if (c == nullptr || done.contains(c)) return;
    done.insert(c);
    for (HloInstruction* instr : c->instructions()) {
      for (HloComputation* callee : instr->called_computations()) {
        visit(callee);
      }
    }
    order.push_back(c);
  };
  visit(entry_);
  for (const auto& c : computations_) visit(c.get());
  return order;
}

void HloModule::SortComputationsInPostOrder() {
  std::vector<HloComputation*> order = MakeComputationPostOrder();
  std::vector<std::unique_ptr<HloComputation>> sorted;
  for (HloComputation* c : order) {
    auto it = std::find_if(computations_.begin(), computations_.end(),
                           [&](const auto& p) { return p.get() == c; });
    sorted.push_back(std::move(*it));
  }
  computations_ = std::move(sorted);
}

HloComputation* HloModule::GetComputationWithName(
    absl::string_view name) const {
  for (const auto& c : computations_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

void HloModule::RemoveUnusedComputations() {
  absl::flat_hash_set<const HloComputation*> used;
  std::vector<HloComputation*> stack = {entry_};
  while (!stack.empty()) {
    HloComputation* c = stack.back();
    stack.pop_back();
    if (c == nullptr || !used.insert(c).second) continue;
    for (HloInstruction* instr : c->instructions()) {
      for (HloComputation* callee : instr->called_computations()) {
        stack.push_back(callee);
      }
    }
  }
  computations_.erase(
      std::remove_if(computations_.begin(), computations_.end(),
                     [&](const auto& c) { return !used.contains(c.get()); }),
      computations_.end());
}

void HloModule::MoveComputationBefore(HloComputation* computation,
                                      const HloComputation* before) {
  auto from = std::find_if(computations_.begin(), computations_.end(),
                           [&](const auto& c) { return c.get() == computation; });
  if (from == computations_.end()) return;
  std::unique_ptr<HloComputation> moved = std::move(*from);
  computations_.erase(from);
  auto to = std::find_if(computations_.begin(), computations_.end(),
                         [&](const auto& c) { return c.get() == before; });
  computations_.insert(to, std::move(moved));
}

absl::Status HloModule::RemoveComputation(HloComputation* computation) {
  auto it = std::find_if(computations_.begin(), computations_.end(),
                         [&](const auto& c) { return c.get() == computation; });
  if (it == computations_.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(computation->name(), " is not in module ", name_));
  }
  if (computation == entry_) {
    return absl::FailedPreconditionError("cannot remove the entry computation");
  }
  schedule_.erase(computation);
  computations_.erase(it);
  return absl::OkStatus();
}

std::string HloModule::UniquifyName(absl::string_view base) {
  std::string name(base);
  if (used_names_.insert(name).second) return name;
  int64_t& counter = name_counters_[name];
  std::string candidate;
  do {
    candidate = absl::StrCat(base, ".", ++counter);
  } while (used_names_.contains(candidate));
  used_names_.insert(candidate);
  return candidate;
}

void HloModule::RegisterName(absl::string_view name) {
  used_names_.insert(std::string(name));
}

void HloModule::RegisterUniqueId(int64_t id) {
  next_unique_id_ = std::max(next_unique_id_, id + 1);
}

ProgramShape HloModule::EntryComputationLayout() const {
  if (!config_.entry_computation_layout) {
    return entry_ ? entry_->ComputeProgramShape() : ProgramShape();
  }
  ProgramShape layout = *config_.entry_computation_layout;
  // The text header carries no parameter names; XLA requires one per
  // parameter in a proto, so take them from the entry's parameters.
  if (layout.parameter_names.empty() && entry_ != nullptr &&
      entry_->num_parameters() ==
          static_cast<int64_t>(layout.parameters.size())) {
    for (const HloInstruction* param : entry_->parameter_instructions()) {
      layout.parameter_names.push_back(param ? param->name() : "");
    }
  }
  return layout;
}

std::unique_ptr<HloModule> HloModule::Clone() const {
  auto clone = std::make_unique<HloModule>(name_);
  clone->unique_id_ = unique_id_;
  clone->config_ = config_;
  clone->stack_frames_ = stack_frames_;
  absl::flat_hash_map<const HloComputation*, HloComputation*> remap;
  for (const auto& c : computations_) {
    HloComputation* copy =
        clone->AddEmbeddedComputation(c->Clone("", &remap));
    copy->SetUniqueId(c->unique_id());
    remap[c.get()] = copy;
    if (c.get() == entry_) clone->entry_ = copy;
  }
  for (const auto& [computation, sequence] : schedule_) {
    HloComputation* copy = remap.at(computation);
    std::vector<HloInstruction*> seq;
    for (HloInstruction* instr : sequence) {
      seq.push_back(copy->GetInstructionWithName(instr->name()));
    }
    clone->schedule_[copy] = std::move(seq);
  }
  return clone;
}

bool HloModule::StructurallyEqual(const HloModule& other) const {
  if (computations_.size() != other.computations_.size()) return false;
  for (size_t i = 0; i < computations_.size(); ++i) {
    if ((computations_[i].get() == entry_) !=
        (other.computations_[i].get() == other.entry_)) {
      return false;
    }
    if (!computations_[i]->Equal(*other.computations_[i])) return false;
  }
  ProgramShape a = EntryComputationLayout();
  ProgramShape b = other.EntryComputationLayout();
  if (a.parameters.size() != b.parameters.size() || a.result != b.result) {
    return false;
  }
  for (size_t i = 0; i < a.parameters.size(); ++i) {
    if (a.parameters[i] != b.parameters[i]) return false;
  }
  return config_.is_scheduled == other.config_.is_scheduled &&
         config_.input_output_alias == other.config_.input_output_alias &&
         config_.frontend_attributes == other.config_.frontend_attributes;
}

bool IsDefaultPrecisionF32Contraction(const HloInstruction& instruction) {
  if ((instruction.opcode() != HloOpcode::kDot &&
       instruction.opcode() != HloOpcode::kConvolution) ||
      instruction.operand_count() == 0 ||
      instruction.operand(0)->shape().element_type() != F32) {
    return false;
  }
  const auto& config = instruction.attrs().precision_config;
  if (!config.has_value()) return true;
  for (Precision p : config->operand_precision) {
    if (p == Precision::kHighest) return false;
  }
  return true;
}

}  // namespace hloc

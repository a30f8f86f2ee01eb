#include "passes/fusion/fusion_utils.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "passes/fusion/fusion_kinds.h"

namespace hloc {
namespace {

// Copies made by fusing and re-fusing would otherwise grow names without
// bound ("add.7.1.1.1"): keep the first numeric suffix only.
std::string CanonicalName(const std::string& name) {
  auto is_number = [](absl::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
  };
  std::vector<absl::string_view> parts;
  absl::string_view rest(name);
  size_t pos;
  while ((pos = rest.rfind('.')) != absl::string_view::npos &&
         is_number(rest.substr(pos + 1))) {
    parts.push_back(rest.substr(pos + 1));
    rest = rest.substr(0, pos);
  }
  if (parts.size() < 2) return name;
  return absl::StrCat(rest, ".", parts.back());
}

// Replaces `fusion` by a copy of its fused instructions in its computation;
// returns the copies (parameters excepted).
absl::StatusOr<std::vector<HloInstruction*>> ExpandFusion(
    HloInstruction* fusion) {
  HloComputation* comp = fusion->parent();
  HloComputation* fused = fusion->fused_computation();
  HloModule* module = comp->parent();
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  std::vector<HloInstruction*> copies;
  for (HloInstruction* instr : fused->MakeInstructionPostOrder()) {
    if (instr->opcode() == HloOpcode::kParameter) {
      map[instr] = fusion->operand(instr->parameter_number());
      continue;
    }
    if (instr == fused->root_instruction() &&
        instr->opcode() == HloOpcode::kTuple) {
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (HloInstruction* operand : instr->operands()) {
      operands.push_back(map.at(operand));
    }
    auto copy = instr->CloneWithNewOperands(instr->shape(), operands);
    copy->SetName(module->UniquifyName(CanonicalName(instr->name())));
    HloInstruction* added = comp->AddInstruction(std::move(copy));
    map[instr] = added;
    copies.push_back(added);
  }

  HloInstruction* root = fused->root_instruction();
  if (root->opcode() == HloOpcode::kTuple) {
    HloInstruction* whole = nullptr;
    for (HloInstruction* user : std::vector<HloInstruction*>(fusion->users())) {
      if (user->opcode() == HloOpcode::kGetTupleElement) {
        HloInstruction* value = map.at(root->operand(user->tuple_index()));
        if (absl::Status s = user->ReplaceAllUsesWith(value); !s.ok()) return s;
        user->DropAllControlDeps();
        if (absl::Status s = comp->RemoveInstruction(user); !s.ok()) return s;
        continue;
      }
      if (whole == nullptr) {
        std::vector<HloInstruction*> elements;
        for (HloInstruction* e : root->operands())
          elements.push_back(map.at(e));
        whole = comp->AddInstruction(HloInstruction::CreateTuple(elements));
      }
      for (int64_t i : user->OperandIndices(fusion)) {
        if (absl::Status s = user->ReplaceOperandWith(i, whole); !s.ok()) {
          return s;
        }
      }
    }
    if (fusion->IsRoot()) {
      if (whole == nullptr) {
        std::vector<HloInstruction*> elements;
        for (HloInstruction* e : root->operands())
          elements.push_back(map.at(e));
        whole = comp->AddInstruction(HloInstruction::CreateTuple(elements));
      }
      comp->set_root_instruction(whole);
    }
  } else {
    if (absl::Status s = fusion->ReplaceAllUsesWith(map.at(root)); !s.ok()) {
      return s;
    }
  }
  if (!copies.empty()) {
    for (HloInstruction* pred :
         std::vector<HloInstruction*>(fusion->control_predecessors())) {
      (void)pred->AddControlDependencyTo(copies.front());
    }
    for (HloInstruction* succ :
         std::vector<HloInstruction*>(fusion->control_successors())) {
      (void)copies.back()->AddControlDependencyTo(succ);
    }
  }
  fusion->DropAllControlDeps();
  if (absl::Status s = comp->RemoveInstruction(fusion); !s.ok()) return s;
  if (absl::Status s = module->RemoveComputation(fused); !s.ok()) return s;
  return copies;
}

// Merges identical instructions of a fused computation (copies a
// duplicated producer left behind). The walk is in stored order, which is
// def-before-use: the instruction kept is then stored before every one it
// replaces, so before all of their users. (A post-order walk from the root
// visits a multi-output fusion's tuple operands in output order, not stored
// order, and could keep a copy stored after a user of the one it replaced.)
absl::Status MergeIdenticalInstructions(HloComputation* fused) {
  auto eq_computations = [](const HloComputation* a, const HloComputation* b) {
    return a == b;
  };
  absl::flat_hash_map<HloOpcode, std::vector<HloInstruction*>> by_opcode;
  for (HloInstruction* instr : fused->instructions()) {
    if (instr->opcode() == HloOpcode::kParameter ||
        instr->opcode() == HloOpcode::kTuple || instr->HasSideEffect() ||
        instr->opcode() == HloOpcode::kRngBitGenerator) {
      continue;
    }
    std::vector<HloInstruction*>& candidates = by_opcode[instr->opcode()];
    HloInstruction* same = nullptr;
    for (HloInstruction* other : candidates) {
      if (other->operands() == instr->operands() &&
          other->IdenticalSlowPath(*instr, eq_computations)) {
        same = other;
        break;
      }
    }
    if (same == nullptr) {
      candidates.push_back(instr);
      continue;
    }
    if (absl::Status s = instr->ReplaceAllUsesWith(same); !s.ok()) return s;
    if (absl::Status s = fused->RemoveInstruction(instr); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<HloComputation*> KernelComputations(const HloModule& module) {
  std::vector<HloComputation*> out;
  absl::flat_hash_set<HloComputation*> seen;
  std::vector<HloComputation*> stack;
  if (module.entry_computation() != nullptr) {
    stack.push_back(module.entry_computation());
  }
  while (!stack.empty()) {
    HloComputation* comp = stack.back();
    stack.pop_back();
    if (!seen.insert(comp).second) continue;
    out.push_back(comp);
    for (HloInstruction* instr : comp->instructions()) {
      switch (instr->opcode()) {
        case HloOpcode::kWhile:
        case HloOpcode::kConditional:
        case HloOpcode::kCall:
          for (HloComputation* called : instr->called_computations()) {
            stack.push_back(called);
          }
          break;
        default:
          break;
      }
    }
  }
  // Stored (callee-first) order, so runs are deterministic.
  std::vector<HloComputation*> ordered;
  for (HloComputation* comp : module.computations()) {
    if (seen.contains(comp)) ordered.push_back(comp);
  }
  return ordered;
}

bool Reaches(const HloInstruction* from, const HloInstruction* to) {
  std::vector<const HloInstruction*> stack = {from};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* instr = stack.back();
    stack.pop_back();
    if (instr == to) return true;
    if (!seen.insert(instr).second) continue;
    for (const HloInstruction* user : instr->users()) stack.push_back(user);
    for (const HloInstruction* succ : instr->control_successors()) {
      stack.push_back(succ);
    }
  }
  return false;
}

bool ReachesIndirectly(const HloInstruction* from, const HloInstruction* to) {
  for (const HloInstruction* user : from->users()) {
    if (user != to && Reaches(user, to)) return true;
  }
  for (const HloInstruction* succ : from->control_successors()) {
    if (Reaches(succ, to)) return true;
  }
  return false;
}

absl::StatusOr<HloInstruction*> DuplicateFor(HloInstruction* producer,
                                             HloInstruction* consumer) {
  HloComputation* comp = producer->parent();
  HloModule* module = comp->parent();
  std::unique_ptr<HloInstruction> copy;
  if (producer->opcode() == HloOpcode::kFusion) {
    HloComputation* body = module->AddEmbeddedComputation(
        producer->fused_computation()->Clone(), comp);
    copy = HloInstruction::CreateFusion(
        producer->shape(), producer->fusion_kind(), producer->operands(), body);
    copy->set_backend_config(producer->backend_config());
  } else {
    copy =
        producer->CloneWithNewOperands(producer->shape(), producer->operands());
  }
  copy->SetName(module->UniquifyName(CanonicalName(producer->name())));
  HloInstruction* added = comp->AddInstruction(std::move(copy));
  for (int64_t i : consumer->OperandIndices(producer)) {
    if (absl::Status s = consumer->ReplaceOperandWith(i, added); !s.ok()) {
      return s;
    }
  }
  return added;
}

std::string FusionNameFor(FusionKind kind, absl::string_view backend_config) {
  switch (kind) {
    case FusionKind::kLoop:
      return "loop_fusion";
    case FusionKind::kInput:
      return "reduction_fusion";
    case FusionKind::kOutput:
      return "dot_epilogue_fusion";
    case FusionKind::kCustom:
      if (backend_config == kRowReductionBackendConfig) {
        return "row_reduction_fusion";
      }
      if (backend_config == kScanBackendConfig) return "scan_fusion";
      return backend_config == kScatterBackendConfig ? "scatter_fusion"
                                                     : "custom_fusion";
  }
  return "fusion";
}

absl::StatusOr<HloInstruction*> FuseInstructions(
    HloComputation* computation, const std::vector<HloInstruction*>& group,
    FusionKind kind, absl::string_view name, bool keep_name,
    absl::string_view backend_config) {
  HloModule* module = computation->parent();
  absl::flat_hash_set<HloInstruction*> members;
  for (HloInstruction* instr : group) {
    if (instr->opcode() != HloOpcode::kFusion) {
      members.insert(instr);
      continue;
    }
    absl::StatusOr<std::vector<HloInstruction*>> copies = ExpandFusion(instr);
    if (!copies.ok()) return copies.status();
    members.insert(copies->begin(), copies->end());
  }
  // Tuples an expansion had to materialize for whole-tuple users are not
  // members: they read the fusion's outputs like any outside user.
  std::vector<HloInstruction*> ordered;
  for (HloInstruction* instr : computation->MakeInstructionPostOrder()) {
    if (members.contains(instr)) ordered.push_back(instr);
  }
  if (ordered.empty()) {
    return absl::InvalidArgumentError("nothing to fuse");
  }
  // The main result is the first member no other member uses; moving it
  // last keeps the list def-before-use and the outputs in program order.
  auto is_sink = [&](const HloInstruction* instr) {
    for (const HloInstruction* user : instr->users()) {
      if (members.contains(user)) return false;
    }
    return true;
  };
  auto main = std::find_if(ordered.begin(), ordered.end(), is_sink);
  std::rotate(main, main + 1, ordered.end());
  absl::StatusOr<HloInstruction*> replacement =
      computation->CreateFusionInstruction(ordered, kind);
  if (!replacement.ok()) return replacement.status();
  HloInstruction* fusion = *replacement;
  if (fusion->opcode() != HloOpcode::kFusion) fusion = fusion->operand(0);
  fusion->SetName(keep_name ? std::string(name) : module->UniquifyName(name));
  fusion->set_backend_config(std::string(backend_config));
  if (absl::Status s = MergeIdenticalInstructions(fusion->fused_computation());
      !s.ok()) {
    return s;
  }
  for (HloInstruction* instr : fusion->fused_computation()->instructions()) {
    if (instr->opcode() == HloOpcode::kParameter) continue;
    std::string canonical = CanonicalName(instr->name());
    if (canonical != instr->name()) {
      instr->SetName(module->UniquifyName(canonical));
    }
  }
  return fusion;
}

namespace {

bool Mergeable(const HloInstruction* instr) {
  return instr->opcode() != HloOpcode::kParameter &&
         instr->opcode() != HloOpcode::kTuple && !instr->HasSideEffect() &&
         instr->opcode() != HloOpcode::kRngBitGenerator;
}

bool HasControlDeps(const HloInstruction* instr) {
  return !instr->control_predecessors().empty() ||
         !instr->control_successors().empty();
}

// What MergeIdenticalInstructions does to a fused computation in which
// only `added` can be identical to another instruction: the one of a pair
// stored first is kept, and the users of the one removed are looked at in
// turn (they may have become identical). `order` is the stored order;
// removed instructions are added to `removed`.
absl::Status MergeIdenticalTo(HloComputation* fused, HloInstruction* added,
                              const std::vector<HloInstruction*>& order,
                              absl::flat_hash_set<HloInstruction*>* removed) {
  auto eq_computations = [](const HloComputation* a, const HloComputation* b) {
    return a == b;
  };
  absl::flat_hash_map<const HloInstruction*, size_t> position;
  auto pos = [&](const HloInstruction* instr) {
    if (position.empty()) {
      for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
    }
    return position.at(instr);
  };
  std::vector<HloInstruction*> worklist = {added};
  while (!worklist.empty()) {
    HloInstruction* instr = worklist.back();
    worklist.pop_back();
    if (removed->contains(instr) || !Mergeable(instr)) continue;
    auto same = [&](const HloInstruction* other) {
      return other != instr && other->opcode() == instr->opcode() &&
             other->operands() == instr->operands() &&
             other->IdenticalSlowPath(*instr, eq_computations);
    };
    HloInstruction* twin = nullptr;
    if (instr->operand_count() > 0) {
      for (HloInstruction* user : instr->operand(0)->users()) {
        if (same(user)) {
          twin = user;
          break;
        }
      }
    } else {
      for (HloInstruction* other : order) {
        if (!removed->contains(other) && same(other)) {
          twin = other;
          break;
        }
      }
    }
    if (twin == nullptr) continue;
    HloInstruction* keep = pos(twin) < pos(instr) ? twin : instr;
    HloInstruction* gone = keep == twin ? instr : twin;
    std::vector<HloInstruction*> users = gone->users();
    if (absl::Status s = gone->ReplaceAllUsesWith(keep); !s.ok()) return s;
    if (absl::Status s = fused->RemoveInstruction(gone); !s.ok()) return s;
    removed->insert(gone);
    worklist.insert(worklist.end(), users.begin(), users.end());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HloInstruction*> FuseProducerIntoFusion(
    HloComputation* computation, HloInstruction* producer,
    HloInstruction* fusion) {
  if (fusion->opcode() != HloOpcode::kFusion ||
      producer->opcode() == HloOpcode::kFusion ||
      producer->opcode() == HloOpcode::kParameter ||
      producer == computation->root_instruction() ||
      producer->user_count() != 1 || producer->users()[0] != fusion ||
      HasControlDeps(producer) || HasControlDeps(fusion)) {
    return nullptr;
  }
  HloComputation* fused = fusion->fused_computation();
  HloInstruction* root = fused->root_instruction();
  if (root == nullptr || root->opcode() == HloOpcode::kTuple ||
      root->opcode() == HloOpcode::kParameter ||
      fused->num_parameters() != fusion->operand_count()) {
    return nullptr;
  }
  std::vector<int64_t> indices = fusion->OperandIndices(producer);
  if (indices.size() != 1) return nullptr;
  HloInstruction* replaced = fused->parameter_instruction(indices[0]);
  if (replaced == nullptr) return nullptr;

  // FuseInstructions would copy the fused instructions out, with
  // `replaced` read from `producer`, and fuse them again in the post order
  // of the computation; the fused instructions are reached only through the
  // root, so that order is the post order from the root (operands in
  // order), `producer` where `replaced` is first reached.
  std::vector<HloInstruction*> post;
  post.reserve(fused->instruction_count());
  {
    absl::flat_hash_set<const HloInstruction*> visited;
    visited.reserve(fused->instruction_count());
    std::vector<std::pair<HloInstruction*, int64_t>> stack = {{root, 0}};
    visited.insert(root);
    while (!stack.empty()) {
      auto& [instr, next] = stack.back();
      if (HasControlDeps(instr)) return nullptr;
      if (next < instr->operand_count()) {
        HloInstruction* operand = instr->operand(next++);
        if (visited.insert(operand).second) stack.push_back({operand, 0});
        continue;
      }
      if (instr->opcode() != HloOpcode::kParameter || instr == replaced) {
        post.push_back(instr);
      }
      stack.pop_back();
    }
  }
  // Unreachable fused instructions would be fused in another order.
  if (static_cast<int64_t>(post.size()) !=
      fused->instruction_count() - fused->num_parameters() + 1) {
    return nullptr;
  }

  // Parameters numbered in order of first use, each placed just before
  // its first user, as CreateFusionInstruction numbers and places them.
  HloModule* module = computation->parent();
  std::vector<HloInstruction*> fusion_operands;
  absl::flat_hash_map<HloInstruction*, HloInstruction*> param_for;
  std::vector<HloInstruction*> order;
  order.reserve(post.size() + fused->num_parameters() + 1);
  auto param_of = [&](HloInstruction* outside) {
    auto it = param_for.find(outside);
    if (it != param_for.end()) return it->second;
    int64_t number = static_cast<int64_t>(fusion_operands.size());
    fusion_operands.push_back(outside);
    HloInstruction* param = fused->AddInstruction(HloInstruction::CreateParameter(
        number, outside->shape(), absl::StrCat("param_", number)));
    order.push_back(param);
    param_for.emplace(outside, param);
    return param;
  };
  HloInstruction* added = nullptr;
  for (HloInstruction* instr : post) {
    if (instr == replaced) {
      std::vector<HloInstruction*> operands;
      for (HloInstruction* operand : producer->operands()) {
        operands.push_back(param_of(operand));
      }
      auto copy = producer->CloneWithNewOperands(producer->shape(), operands);
      copy->SetName(CanonicalName(producer->name()));
      added = fused->AddInstruction(std::move(copy));
      order.push_back(added);
      continue;
    }
    for (HloInstruction* operand : instr->operands()) {
      if (operand->opcode() == HloOpcode::kParameter && operand != replaced) {
        param_of(fusion->operand(operand->parameter_number()));
      }
    }
    order.push_back(instr);
  }
  for (HloInstruction* old : fused->parameter_instructions()) {
    if (old->user_count() == 0) continue;
    HloInstruction* now =
        old == replaced ? added
                        : param_for.at(fusion->operand(old->parameter_number()));
    if (absl::Status s = old->ReplaceAllUsesWith(now); !s.ok()) return s;
  }
  for (HloInstruction* old :
       std::vector<HloInstruction*>(fused->parameter_instructions())) {
    if (absl::Status s = fused->RemoveInstruction(old); !s.ok()) return s;
  }
  absl::flat_hash_set<HloInstruction*> removed;
  if (absl::Status s = MergeIdenticalTo(fused, added, order, &removed);
      !s.ok()) {
    return s;
  }
  if (!removed.empty()) {
    order.erase(std::remove_if(order.begin(), order.end(),
                               [&](HloInstruction* instr) {
                                 return removed.contains(instr);
                               }),
                order.end());
  }
  if (absl::Status s = fused->SetInstructionOrder(order); !s.ok()) return s;

  auto grown = HloInstruction::CreateFusion(
      fusion->shape(), fusion->fusion_kind(), fusion_operands, fused);
  grown->set_backend_config(fusion->backend_config());
  std::string name = fusion->name();
  HloInstruction* result = computation->AddInstruction(std::move(grown));
  result->SetName(name);
  if (absl::Status s = fusion->ReplaceAllUsesWith(result); !s.ok()) return s;
  if (absl::Status s = computation->RemoveInstruction(fusion); !s.ok()) {
    return s;
  }
  if (absl::Status s = computation->RemoveInstruction(producer); !s.ok()) {
    return s;
  }
  module->MoveComputationBefore(fused, computation);
  return result;
}

}  // namespace hloc

// The verifier runs in passes, each relying on the ones before it: module
// structure, then every computation's structure (so later passes may follow
// operand and callee pointers), then the call graph, then per-instruction
// semantics, then the module-level configuration. Pointers that may be stale
// (operands or callees outside the module) are compared, never dereferenced.
#include "hlo/verifier.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/collectives.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/shape_inference.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

std::string Str(const Shape& shape) { return shape.ToString(false); }

template <typename... Args>
absl::Status ModuleError(const HloModule& module, const Args&... args) {
  return absl::InvalidArgumentError(
      absl::StrCat("verifier: in module ", module.name(), ": ", args...));
}

template <typename... Args>
absl::Status ComputationError(const HloComputation& computation,
                              const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(
      "verifier: in computation ", computation.name(), ": ", args...));
}

template <typename... Args>
absl::Status InstructionError(const HloInstruction& instruction,
                              const Args&... args) {
  const HloComputation* parent = instruction.parent();
  return absl::InvalidArgumentError(absl::StrCat(
      "verifier: in computation ", parent ? parent->name() : "(none)",
      ", instruction ", instruction.name(), ": ", args...));
}

// Opcodes whose instructions may call computations.
bool MayCallComputations(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kCall:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kConditional:
    case HloOpcode::kCustomCall:
    case HloOpcode::kFusion:
    case HloOpcode::kMap:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kScan:
    case HloOpcode::kScatter:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kSort:
    case HloOpcode::kWhile:
      return true;
    default:
      return false;
  }
}

// True if `index` names a subshape of `shape`.
bool IndexIsValid(const Shape& shape, const std::vector<int64_t>& index) {
  const Shape* current = &shape;
  for (int64_t i : index) {
    if (!current->IsTuple() || i < 0 || i >= current->tuple_shapes_size()) {
      return false;
    }
    current = &current->tuple_shapes(i);
  }
  return true;
}

const Shape& Subshape(const Shape& shape, const std::vector<int64_t>& index) {
  const Shape* current = &shape;
  for (int64_t i : index) current = &current->tuple_shapes(i);
  return *current;
}

std::string IndexStr(const std::vector<int64_t>& index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

absl::string_view ComparisonTypeName(ComparisonType type) {
  return type == ComparisonType::kDefault ? "default"
                                          : ComparisonTypeString(type);
}

class Verifier {
 public:
  explicit Verifier(const HloModule& module) : module_(module) {}

  absl::Status Run() {
    HLOC_RETURN_IF_ERROR(VerifyModuleStructure());
    for (const HloComputation* c : module_.computations()) {
      HLOC_RETURN_IF_ERROR(VerifyComputationStructure(*c));
    }
    for (const HloComputation* c : module_.computations()) {
      HLOC_RETURN_IF_ERROR(VerifyNoCycles(*c));
      HLOC_RETURN_IF_ERROR(VerifyStoredOrder(*c));
    }
    HLOC_RETURN_IF_ERROR(VerifyCallGraph());
    for (const HloComputation* c : module_.computations()) {
      for (const HloInstruction* instr : c->instructions()) {
        HLOC_RETURN_IF_ERROR(VerifyInstruction(*instr));
      }
    }
    HLOC_RETURN_IF_ERROR(VerifyEntryComputationLayout());
    HLOC_RETURN_IF_ERROR(VerifyAliasing());
    return VerifySchedule();
  }

 private:
  absl::Status VerifyModuleStructure() {
    absl::flat_hash_set<std::string> names;
    for (const HloComputation* c : module_.computations()) {
      if (c == nullptr) {
        return ModuleError(module_, "the computation list holds a null entry");
      }
      if (c->parent() != &module_) {
        return ComputationError(*c, "its parent is not this module");
      }
      if (!names.insert(c->name()).second) {
        return ComputationError(*c, "another computation has the same name");
      }
      computations_.insert(c);
      for (const HloInstruction* instr : c->instructions()) {
        owner_[instr] = c;
      }
    }
    const HloComputation* entry = module_.entry_computation();
    if (entry == nullptr) {
      return ModuleError(module_, "there is no entry computation");
    }
    if (!computations_.contains(entry)) {
      return ModuleError(
          module_, "the entry computation is not one of its computations");
    }
    if (entry->IsFusionComputation()) {
      return ComputationError(*entry,
                              "the entry computation is a fusion computation");
    }
    return absl::OkStatus();
  }

  absl::Status VerifyComputationStructure(const HloComputation& c) {
    const std::vector<HloInstruction*> instructions = c.instructions();
    for (const HloInstruction* instr : instructions) {
      if (instr->name().empty()) {
        return ComputationError(c, "a ", HloOpcodeString(instr->opcode()),
                                " instruction has no name");
      }
      if (instr->parent() != &c) {
        return InstructionError(*instr,
                                "its parent is not the computation holding it");
      }
      auto [it, inserted] = instruction_names_.emplace(instr->name(), &c);
      if (!inserted) {
        return InstructionError(*instr, "the name is also used in computation ",
                                it->second->name());
      }
      absl::Status shape_status = ValidateShape(instr->shape());
      if (!shape_status.ok()) {
        return InstructionError(*instr,
                                "invalid shape: ", shape_status.message());
      }
      HLOC_RETURN_IF_ERROR(VerifyEdges(*instr));
    }
    const HloInstruction* root = c.root_instruction();
    if (root == nullptr) {
      return ComputationError(c, "there is no root instruction");
    }
    auto root_owner = owner_.find(root);
    if (root_owner == owner_.end() || root_owner->second != &c) {
      return ComputationError(c, "the root is not one of its instructions");
    }
    return VerifyParameters(c, instructions);
  }

  // Operands, users, control dependencies and callees of one instruction.
  absl::Status VerifyEdges(const HloInstruction& instr) {
    const HloComputation* c = instr.parent();
    for (int64_t i = 0; i < instr.operand_count(); ++i) {
      const HloInstruction* operand = instr.operand(i);
      if (operand == nullptr) {
        return InstructionError(instr, "operand ", i, " is null");
      }
      auto it = owner_.find(operand);
      if (it == owner_.end()) {
        return InstructionError(instr, "operand ", i,
                                " is not an instruction of this module");
      }
      if (it->second != c) {
        return InstructionError(instr, "operand ", i, " (", operand->name(),
                                ") belongs to computation ",
                                it->second->name());
      }
      const std::vector<HloInstruction*>& users = operand->users();
      if (std::find(users.begin(), users.end(), &instr) == users.end()) {
        return InstructionError(instr,
                                "it is not registered as a user of "
                                "operand ",
                                i, " (", operand->name(), ")");
      }
    }
    // A user in another computation is reported from its side, as an
    // operand that crosses computations.
    for (const HloInstruction* user : instr.users()) {
      if (user == nullptr || !owner_.contains(user) ||
          !user->IsUserOf(&instr)) {
        return InstructionError(
            instr, "its user list names an instruction that does not use it");
      }
    }
    for (const HloInstruction* pred : instr.control_predecessors()) {
      auto it = owner_.find(pred);
      if (pred == nullptr || it == owner_.end() || it->second != c) {
        return InstructionError(instr,
                                "a control predecessor is not an "
                                "instruction of this computation");
      }
      const auto& succ = pred->control_successors();
      if (std::find(succ.begin(), succ.end(), &instr) == succ.end()) {
        return InstructionError(instr, "control predecessor ", pred->name(),
                                " does not list it as a successor");
      }
    }
    for (const HloInstruction* succ : instr.control_successors()) {
      auto it = owner_.find(succ);
      if (succ == nullptr || it == owner_.end() || it->second != c) {
        return InstructionError(instr,
                                "a control successor is not an "
                                "instruction of this computation");
      }
      const auto& preds = succ->control_predecessors();
      if (std::find(preds.begin(), preds.end(), &instr) == preds.end()) {
        return InstructionError(instr, "control successor ", succ->name(),
                                " does not list it as a predecessor");
      }
    }
    const std::vector<HloComputation*>& called = instr.called_computations();
    if (!called.empty() && !MayCallComputations(instr.opcode())) {
      return InstructionError(instr, HloOpcodeString(instr.opcode()),
                              " does not call computations but has ",
                              called.size());
    }
    for (size_t i = 0; i < called.size(); ++i) {
      if (called[i] == nullptr || !computations_.contains(called[i])) {
        return InstructionError(instr, "called computation ", i,
                                " is not a computation of this module");
      }
    }
    return absl::OkStatus();
  }

  absl::Status VerifyParameters(
      const HloComputation& c,
      const std::vector<HloInstruction*>& instructions) {
    const int64_t n = c.num_parameters();
    for (int64_t i = 0; i < n; ++i) {
      const HloInstruction* param = c.parameter_instruction(i);
      if (param == nullptr) {
        return ComputationError(c, "parameter ", i, " is missing (", n,
                                " parameters expected)");
      }
      auto it = owner_.find(param);
      if (it == owner_.end() || it->second != &c ||
          param->opcode() != HloOpcode::kParameter) {
        return ComputationError(c, "parameter ", i,
                                " is not a parameter instruction of it");
      }
      if (param->parameter_number() != i) {
        return InstructionError(*param, "it is listed as parameter ", i,
                                " but has parameter number ",
                                param->parameter_number());
      }
    }
    for (const HloInstruction* instr : instructions) {
      if (instr->opcode() != HloOpcode::kParameter) continue;
      const int64_t number = instr->parameter_number();
      if (number < 0 || number >= n) {
        return InstructionError(*instr, "parameter number ", number,
                                " is out of range for ", n, " parameters");
      }
      if (c.parameter_instruction(number) != instr) {
        return InstructionError(*instr, "parameter number ", number,
                                " is also used by ",
                                c.parameter_instruction(number)->name());
      }
    }
    return absl::OkStatus();
  }

  // Depth-first search over operands and control predecessors.
  // The IR keeps each computation's instructions def-before-use (printing,
  // cloning and the backends walk that order); a pass that breaks it is
  // caught here, right after it runs.
  absl::Status VerifyStoredOrder(const HloComputation& c) {
    absl::flat_hash_set<const HloInstruction*> defined;
    for (const HloInstruction* instr : c.instructions()) {
      for (const HloInstruction* operand : instr->operands()) {
        if (!defined.contains(operand)) {
          return InstructionError(*instr, "operand ", operand->name(),
                                  " is stored after its user (the order must "
                                  "be def-before-use)");
        }
      }
      defined.insert(instr);
    }
    return absl::OkStatus();
  }

  absl::Status VerifyNoCycles(const HloComputation& c) {
    enum State { kVisiting, kDone };
    absl::flat_hash_map<const HloInstruction*, State> state;
    for (const HloInstruction* start : c.instructions()) {
      if (state.contains(start)) continue;
      std::vector<std::pair<const HloInstruction*, size_t>> stack = {
          {start, 0}};
      state[start] = kVisiting;
      while (!stack.empty()) {
        auto& [instr, next] = stack.back();
        const size_t num_operands = instr->operands().size();
        const size_t total =
            num_operands + instr->control_predecessors().size();
        if (next == total) {
          state[instr] = kDone;
          stack.pop_back();
          continue;
        }
        const HloInstruction* dep =
            next < num_operands
                ? instr->operand(next)
                : instr->control_predecessors()[next - num_operands];
        ++next;
        auto it = state.find(dep);
        if (it == state.end()) {
          state[dep] = kVisiting;
          stack.push_back({dep, 0});
        } else if (it->second == kVisiting) {
          return InstructionError(*dep,
                                  "it is part of a cycle through "
                                  "operands or control dependencies");
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status VerifyCallGraph() {
    enum State { kVisiting, kDone };
    absl::flat_hash_map<const HloComputation*, State> state;
    auto callees = [](const HloComputation* c) {
      std::vector<const HloComputation*> out;
      for (const HloInstruction* instr : c->instructions()) {
        for (const HloComputation* callee : instr->called_computations()) {
          out.push_back(callee);
        }
      }
      return out;
    };
    for (const HloComputation* start : module_.computations()) {
      if (state.contains(start)) continue;
      std::vector<
          std::pair<const HloComputation*, std::vector<const HloComputation*>>>
          stack;
      stack.push_back({start, callees(start)});
      state[start] = kVisiting;
      while (!stack.empty()) {
        auto& [c, pending] = stack.back();
        if (pending.empty()) {
          state[c] = kDone;
          stack.pop_back();
          continue;
        }
        const HloComputation* callee = pending.back();
        pending.pop_back();
        auto it = state.find(callee);
        if (it == state.end()) {
          state[callee] = kVisiting;
          stack.push_back({callee, callees(callee)});
        } else if (it->second == kVisiting) {
          return ComputationError(*callee,
                                  "it calls itself through the call graph");
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status VerifyInstruction(const HloInstruction& instr) {
    const HloOpcode opcode = instr.opcode();
    if (std::optional<int> arity = HloOpcodeArity(opcode)) {
      if (instr.operand_count() != *arity) {
        return InstructionError(instr, HloOpcodeString(opcode), " takes ",
                                *arity, " operands, got ",
                                instr.operand_count());
      }
    }
    if (HasShapeInference(opcode)) {
      // Every shape of the module is valid by now
      // (VerifyComputationStructure), so a get-tuple-element's inferred
      // shape is its element's: InferInstructionShape would validate the
      // whole tuple again and copy it, once per element a while loop's
      // state tuple is read at, quadratic in the state's size.
      absl::StatusOr<Shape> inferred =
          opcode == HloOpcode::kGetTupleElement
              ? InferGetTupleElementShape(instr.operand(0)->shape(),
                                          instr.attrs().tuple_index)
              : InferInstructionShape(instr);
      if (!inferred.ok()) {
        return InstructionError(instr, inferred.status().message());
      }
      if (!inferred->Compatible(instr.shape())) {
        return InstructionError(instr, "declared shape ", Str(instr.shape()),
                                " does not match inferred shape ",
                                Str(*inferred));
      }
    }
    if (IsCrossDeviceCollective(opcode)) {
      absl::Status groups =
          CheckCollectiveGroups(instr, module_.config().replica_count,
                                module_.config().num_partitions);
      if (!groups.ok()) return InstructionError(instr, groups.message());
    }
    switch (opcode) {
      case HloOpcode::kCompare:
        return VerifyComparisonType(instr);
      case HloOpcode::kFusion: {
        const HloComputation* fused = instr.called_computations()[0];
        if (fused->FusionInstruction() != &instr) {
          return InstructionError(instr, "its fused computation ",
                                  fused->name(),
                                  " is not marked as fused by it");
        }
        return absl::OkStatus();
      }
      case HloOpcode::kCustomCall:
        return VerifyCustomCall(instr);
      default:
        return absl::OkStatus();
    }
  }

  // XLA's rule: floats compare as FLOAT or TOTALORDER, every other type only
  // with its default (complex FLOAT, signed SIGNED, unsigned and pred
  // UNSIGNED).
  absl::Status VerifyComparisonType(const HloInstruction& instr) {
    const ComparisonType type = instr.attrs().comparison_type;
    if (type == ComparisonType::kDefault) return absl::OkStatus();
    const PrimitiveType t = instr.operand(0)->shape().element_type();
    bool ok;
    if (IsFloatingPointType(t)) {
      ok =
          type == ComparisonType::kFloat || type == ComparisonType::kTotalOrder;
    } else if (IsComplexType(t)) {
      ok = type == ComparisonType::kFloat;
    } else if (IsSignedIntegralType(t)) {
      ok = type == ComparisonType::kSigned;
    } else {
      ok = type == ComparisonType::kUnsigned;
    }
    if (!ok) {
      return InstructionError(instr, "comparison type ",
                              ComparisonTypeName(type), " does not apply to ",
                              PrimitiveTypeName(t), " operands");
    }
    return absl::OkStatus();
  }

  absl::Status VerifyCustomCall(const HloInstruction& instr) {
    const HloAttributes& attrs = instr.attrs();
    if (attrs.operand_layout_constraints.has_value()) {
      const std::vector<Shape>& constraints = *attrs.operand_layout_constraints;
      if (static_cast<int64_t>(constraints.size()) != instr.operand_count()) {
        return InstructionError(instr, "it has ", constraints.size(),
                                " operand layout constraints for ",
                                instr.operand_count(), " operands");
      }
      for (size_t i = 0; i < constraints.size(); ++i) {
        absl::Status status = ValidateShape(constraints[i]);
        if (!status.ok()) {
          return InstructionError(instr, "operand layout constraint ", i, ": ",
                                  status.message());
        }
        if (!constraints[i].Compatible(instr.operand(i)->shape())) {
          return InstructionError(instr, "operand layout constraint ", i, " ",
                                  Str(constraints[i]), " differs from operand ",
                                  Str(instr.operand(i)->shape()));
        }
      }
    }
    for (const OutputOperandAlias& alias : attrs.output_to_operand_aliasing) {
      if (alias.operand_index < 0 ||
          alias.operand_index >= instr.operand_count()) {
        return InstructionError(instr,
                                "output_to_operand_aliasing names "
                                "operand ",
                                alias.operand_index, " which does not exist");
      }
      const Shape& operand_shape = instr.operand(alias.operand_index)->shape();
      if (!IndexIsValid(instr.shape(), alias.output_shape_index) ||
          !IndexIsValid(operand_shape, alias.operand_shape_index)) {
        return InstructionError(instr, "output_to_operand_aliasing index ",
                                IndexStr(alias.output_shape_index), " or ",
                                IndexStr(alias.operand_shape_index),
                                " is not valid");
      }
      if (!Subshape(instr.shape(), alias.output_shape_index)
               .Compatible(
                   Subshape(operand_shape, alias.operand_shape_index))) {
        return InstructionError(
            instr, "output ", IndexStr(alias.output_shape_index),
            " aliases operand ", alias.operand_index, " at ",
            IndexStr(alias.operand_shape_index), " of a different shape");
      }
    }
    return absl::OkStatus();
  }

  absl::Status VerifyEntryComputationLayout() {
    const auto& layout = module_.config().entry_computation_layout;
    if (!layout.has_value()) return absl::OkStatus();
    const HloComputation& entry = *module_.entry_computation();
    for (size_t i = 0; i < layout->parameters.size(); ++i) {
      absl::Status status = ValidateShape(layout->parameters[i]);
      if (!status.ok()) {
        return ModuleError(module_, "entry computation layout parameter ", i,
                           ": ", status.message());
      }
    }
    absl::Status status = ValidateShape(layout->result);
    if (!status.ok()) {
      return ModuleError(module_,
                         "entry computation layout result: ", status.message());
    }
    if (static_cast<int64_t>(layout->parameters.size()) !=
        entry.num_parameters()) {
      return ModuleError(module_, "the entry computation layout has ",
                         layout->parameters.size(),
                         " parameters but entry computation ", entry.name(),
                         " has ", entry.num_parameters());
    }
    for (int64_t i = 0; i < entry.num_parameters(); ++i) {
      const Shape& actual = entry.parameter_instruction(i)->shape();
      if (!layout->parameters[i].Compatible(actual)) {
        return ModuleError(module_, "entry computation layout parameter ", i,
                           " is ", Str(layout->parameters[i]),
                           " but parameter ", i, " of ", entry.name(),
                           " has shape ", Str(actual));
      }
    }
    const Shape& root = entry.root_instruction()->shape();
    if (!layout->result.Compatible(root)) {
      return ModuleError(module_, "entry computation layout result is ",
                         Str(layout->result), " but the root of ", entry.name(),
                         " has shape ", Str(root));
    }
    return absl::OkStatus();
  }

  absl::Status VerifyAliasing() {
    const HloComputation& entry = *module_.entry_computation();
    const Shape& result = entry.root_instruction()->shape();
    auto check_parameter = [&](int64_t number,
                               const std::vector<int64_t>& index,
                               absl::string_view what) -> absl::Status {
      if (number < 0 || number >= entry.num_parameters()) {
        return ModuleError(module_, what, " names parameter ", number,
                           " but the entry has ", entry.num_parameters());
      }
      const Shape& shape = entry.parameter_instruction(number)->shape();
      if (!IndexIsValid(shape, index)) {
        return ModuleError(module_, what, " index ", IndexStr(index),
                           " is not valid in parameter ", number, " shape ",
                           Str(shape));
      }
      return absl::OkStatus();
    };
    for (const InputOutputAlias& alias : module_.config().input_output_alias) {
      if (!IndexIsValid(result, alias.output_index)) {
        return ModuleError(module_, "input_output_alias output index ",
                           IndexStr(alias.output_index),
                           " is not valid in result shape ", Str(result));
      }
      HLOC_RETURN_IF_ERROR(check_parameter(
          alias.parameter_number, alias.parameter_index, "input_output_alias"));
    }
    for (const BufferDonor& donor : module_.config().buffer_donor) {
      HLOC_RETURN_IF_ERROR(check_parameter(
          donor.parameter_number, donor.parameter_index, "buffer_donor"));
    }
    return absl::OkStatus();
  }

  absl::Status VerifySchedule() {
    for (const auto& [computation, sequence] : module_.schedule()) {
      if (!computations_.contains(computation)) {
        return ModuleError(module_,
                           "the schedule names a computation that is "
                           "not in the module");
      }
      const HloComputation& c = *computation;
      absl::flat_hash_set<const HloInstruction*> scheduled;
      for (const HloInstruction* instr : sequence) {
        auto it = owner_.find(instr);
        if (instr == nullptr || it == owner_.end() || it->second != &c) {
          return ComputationError(c,
                                  "the schedule lists an instruction of "
                                  "another computation");
        }
        if (!scheduled.insert(instr).second) {
          return ComputationError(c, "the schedule lists ", instr->name(),
                                  " twice");
        }
        for (const HloInstruction* operand : instr->operands()) {
          if (!scheduled.contains(operand)) {
            return ComputationError(c, "the schedule lists ", instr->name(),
                                    " before its operand ", operand->name());
          }
        }
        for (const HloInstruction* pred : instr->control_predecessors()) {
          if (!scheduled.contains(pred)) {
            return ComputationError(c, "the schedule lists ", instr->name(),
                                    " before its control predecessor ",
                                    pred->name());
          }
        }
      }
      if (static_cast<int64_t>(scheduled.size()) != c.instruction_count()) {
        for (const HloInstruction* instr : c.instructions()) {
          if (!scheduled.contains(instr)) {
            return ComputationError(c, "the schedule misses ", instr->name());
          }
        }
      }
    }
    return absl::OkStatus();
  }

  const HloModule& module_;
  absl::flat_hash_set<const HloComputation*> computations_;
  // Every instruction of the module and the computation holding it.
  absl::flat_hash_map<const HloInstruction*, const HloComputation*> owner_;
  absl::flat_hash_map<std::string, const HloComputation*> instruction_names_;
};

}  // namespace

absl::Status VerifyModule(const HloModule& module) {
  return Verifier(module).Run();
}

}  // namespace hloc

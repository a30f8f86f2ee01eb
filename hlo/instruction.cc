#include "hlo/instruction.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/computation.h"

namespace hloc {
namespace {

bool AttributesEqual(const HloAttributes& a, const HloAttributes& b) {
  auto key = [](const HloAttributes& x) {
    return std::tie(
        x.dimensions, x.slice_starts, x.slice_limits, x.slice_strides,
        x.dynamic_slice_sizes, x.window, x.padding_config,
        x.dot_dimension_numbers, x.ragged_dot_dimension_numbers,
        x.convolution_dimension_numbers, x.feature_group_count,
        x.batch_group_count, x.precision_config, x.result_accuracy,
        x.gather_dimension_numbers,
        x.gather_slice_sizes, x.scatter_dimension_numbers,
        x.indices_are_sorted, x.unique_indices, x.comparison_direction,
        x.comparison_type, x.comparison_order, x.fusion_kind, x.tuple_index, x.parameter_number,
        x.literal, x.iota_dimension, x.exponent_bits, x.mantissa_bits,
        x.is_stable, x.k, x.largest, x.num_carries, x.is_reverse,
        x.is_associative, x.epsilon, x.feature_index, x.distribution,
        x.rng_algorithm, x.fft_type, x.fft_length,
        x.triangular_solve_options, x.cholesky_lower);
  };
  auto key2 = [](const HloAttributes& x) {
    return std::tie(x.custom_call_target, x.api_version,
                    x.custom_call_has_side_effect,
                    x.operand_layout_constraints,
                    x.output_to_operand_aliasing, x.custom_call_schedule,
                    x.channel_id, x.replica_groups, x.iota_replica_groups,
                    x.use_global_device_ids, x.constrain_layout,
                    x.source_target_pairs, x.infeed_config, x.outfeed_config,
                    x.outfeed_shape, x.is_host_transfer,
                    x.parameter_replication, x.async_execution_thread);
  };
  return key(a) == key(b) && key2(a) == key2(b);
}

}  // namespace

HloInstruction::HloInstruction(HloOpcode opcode, const Shape& shape)
    : opcode_(opcode), shape_(shape) {}

HloInstruction::~HloInstruction() = default;

std::unique_ptr<HloInstruction> HloInstruction::Create(
    HloOpcode opcode, const Shape& shape,
    absl::Span<HloInstruction* const> operands) {
  std::unique_ptr<HloInstruction> instr(new HloInstruction(opcode, shape));
  for (HloInstruction* operand : operands) instr->AppendOperand(operand);
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateParameter(
    int64_t number, const Shape& shape, std::string name) {
  auto instr = Create(HloOpcode::kParameter, shape, {});
  instr->attrs_.parameter_number = number;
  instr->name_ = std::move(name);
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateConstant(
    Literal literal) {
  auto instr = Create(HloOpcode::kConstant, literal.shape(), {});
  instr->attrs_.literal = std::move(literal);
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateUnary(
    const Shape& shape, HloOpcode opcode, HloInstruction* operand) {
  return Create(opcode, shape, {operand});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateBinary(
    const Shape& shape, HloOpcode opcode, HloInstruction* lhs,
    HloInstruction* rhs) {
  return Create(opcode, shape, {lhs, rhs});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateCompare(
    const Shape& shape, HloInstruction* lhs, HloInstruction* rhs,
    ComparisonDirection direction, ComparisonType type) {
  auto instr = Create(HloOpcode::kCompare, shape, {lhs, rhs});
  instr->attrs_.comparison_direction = direction;
  instr->attrs_.comparison_type = type;
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateBroadcast(
    const Shape& shape, HloInstruction* operand,
    std::vector<int64_t> dimensions) {
  auto instr = Create(HloOpcode::kBroadcast, shape, {operand});
  instr->attrs_.dimensions = std::move(dimensions);
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateReshape(
    const Shape& shape, HloInstruction* operand) {
  return Create(HloOpcode::kReshape, shape, {operand});
}

std::unique_ptr<HloInstruction> HloInstruction::CreateTranspose(
    const Shape& shape, HloInstruction* operand,
    std::vector<int64_t> dimensions) {
  auto instr = Create(HloOpcode::kTranspose, shape, {operand});
  instr->attrs_.dimensions = std::move(dimensions);
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateGetTupleElement(
    const Shape& shape, HloInstruction* operand, int64_t index) {
  auto instr = Create(HloOpcode::kGetTupleElement, shape, {operand});
  instr->attrs_.tuple_index = index;
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateTuple(
    absl::Span<HloInstruction* const> elements) {
  std::vector<Shape> shapes;
  for (HloInstruction* e : elements) shapes.push_back(e->shape());
  return Create(HloOpcode::kTuple, Shape::Tuple(std::move(shapes)), elements);
}

std::unique_ptr<HloInstruction> HloInstruction::CreateReduce(
    const Shape& shape, absl::Span<HloInstruction* const> operands_and_inits,
    std::vector<int64_t> dimensions, HloComputation* to_apply) {
  auto instr = Create(HloOpcode::kReduce, shape, operands_and_inits);
  instr->attrs_.dimensions = std::move(dimensions);
  instr->called_computations_ = {to_apply};
  return instr;
}

std::unique_ptr<HloInstruction> HloInstruction::CreateFusion(
    const Shape& shape, FusionKind kind,
    absl::Span<HloInstruction* const> operands, HloComputation* fused) {
  auto instr = Create(HloOpcode::kFusion, shape, operands);
  instr->attrs_.fusion_kind = kind;
  instr->called_computations_ = {fused};
  fused->SetFusionInstruction(instr.get());
  return instr;
}

bool HloInstruction::IsUserOf(const HloInstruction* operand) const {
  return std::find(operands_.begin(), operands_.end(), operand) !=
         operands_.end();
}

std::vector<int64_t> HloInstruction::OperandIndices(
    const HloInstruction* operand) const {
  std::vector<int64_t> indices;
  for (int64_t i = 0; i < operand_count(); ++i) {
    if (operands_[i] == operand) indices.push_back(i);
  }
  return indices;
}

void HloInstruction::AddUser(HloInstruction* user) {
  if (user_set_.insert(user).second) users_.push_back(user);
}

void HloInstruction::RemoveUser(HloInstruction* user) {
  if (user_set_.erase(user) == 0) return;
  users_.erase(std::find(users_.begin(), users_.end(), user));
}

void HloInstruction::AppendOperand(HloInstruction* operand) {
  operands_.push_back(operand);
  operand->AddUser(this);
}

void HloInstruction::DetachFromOperands() {
  for (HloInstruction* operand : operands_) {
    if (operand) operand->RemoveUser(this);
  }
  operands_.clear();
}

absl::Status HloInstruction::ReplaceOperandWith(int64_t i,
                                                HloInstruction* new_operand) {
  if (i < 0 || i >= operand_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat("operand index ", i, " out of range for ", name_));
  }
  HloInstruction* old = operands_[i];
  if (old == new_operand) return absl::OkStatus();
  operands_[i] = new_operand;
  new_operand->AddUser(this);
  if (!IsUserOf(old)) old->RemoveUser(this);
  return absl::OkStatus();
}

absl::Status HloInstruction::ReplaceUsesWith(
    absl::Span<HloInstruction* const> users, HloInstruction* new_producer) {
  if (!new_producer->shape().Compatible(shape_)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot replace ", name_, " (", shape_.ToString(), ") with ",
        new_producer->name(), " (", new_producer->shape().ToString(), ")"));
  }
  std::vector<HloInstruction*> to_update(users.begin(), users.end());
  for (HloInstruction* user : to_update) {
    if (user == new_producer) continue;  // would create a cycle
    for (int64_t i = 0; i < user->operand_count(); ++i) {
      if (user->operands_[i] == this) {
        user->operands_[i] = new_producer;
        new_producer->AddUser(user);
      }
    }
    RemoveUser(user);
  }
  return absl::OkStatus();
}

absl::Status HloInstruction::ReplaceAllUsesWith(HloInstruction* new_producer) {
  std::vector<HloInstruction*> users = users_;
  absl::Status status = ReplaceUsesWith(users, new_producer);
  if (!status.ok()) return status;
  if (parent_ && parent_->root_instruction() == this) {
    parent_->set_root_instruction(new_producer);
  }
  return absl::OkStatus();
}

absl::Status HloInstruction::AddControlDependencyTo(HloInstruction* successor) {
  if (successor == this) {
    return absl::InvalidArgumentError(
        absl::StrCat(name_, " cannot be its own control predecessor"));
  }
  if (std::find(control_successors_.begin(), control_successors_.end(),
                successor) == control_successors_.end()) {
    control_successors_.push_back(successor);
    successor->control_predecessors_.push_back(this);
  }
  return absl::OkStatus();
}

absl::Status HloInstruction::RemoveControlDependencyTo(
    HloInstruction* successor) {
  auto& succ = control_successors_;
  succ.erase(std::remove(succ.begin(), succ.end(), successor), succ.end());
  auto& pred = successor->control_predecessors_;
  pred.erase(std::remove(pred.begin(), pred.end(), this), pred.end());
  return absl::OkStatus();
}

void HloInstruction::DropAllControlDeps() {
  for (HloInstruction* pred : std::vector<HloInstruction*>(
           control_predecessors_)) {
    (void)pred->RemoveControlDependencyTo(this);
  }
  for (HloInstruction* succ :
       std::vector<HloInstruction*>(control_successors_)) {
    (void)RemoveControlDependencyTo(succ);
  }
}

HloComputation* HloInstruction::to_apply() const {
  return called_computations_.empty() ? nullptr : called_computations_[0];
}

HloComputation* HloInstruction::fused_computation() const {
  return opcode_ == HloOpcode::kFusion ? called_computations_[0] : nullptr;
}

HloInstruction* HloInstruction::fused_expression_root() const {
  return fused_computation()->root_instruction();
}

HloInstruction* HloInstruction::fused_parameter(int64_t i) const {
  return fused_computation()->parameter_instruction(i);
}

bool HloInstruction::IsMultiOutputFusion() const {
  return opcode_ == HloOpcode::kFusion &&
         fused_expression_root()->opcode() == HloOpcode::kTuple;
}

bool HloInstruction::IsElementwise() const {
  if (opcode_ == HloOpcode::kFusion) {
    for (HloInstruction* instr : fused_computation()->instructions()) {
      if (instr->opcode() != HloOpcode::kParameter &&
          !instr->IsElementwise()) {
        return false;
      }
    }
    return true;
  }
  return HloOpcodeIsElementwise(opcode_);
}

bool HloInstruction::HasSideEffect() const {
  if (HloOpcodeHasSideEffect(opcode_)) return true;
  if (opcode_ == HloOpcode::kCustomCall) {
    return attrs_.custom_call_has_side_effect;
  }
  for (HloComputation* called : called_computations_) {
    for (HloInstruction* instr : called->instructions()) {
      if (instr->HasSideEffect()) return true;
    }
  }
  return false;
}

bool HloInstruction::IsRoot() const {
  return parent_ != nullptr && parent_->root_instruction() == this;
}

std::unique_ptr<HloInstruction> HloInstruction::CloneWithNewOperands(
    const Shape& shape, absl::Span<HloInstruction* const> operands) const {
  auto clone = Create(opcode_, shape, operands);
  clone->name_ = name_;
  clone->called_computations_ = called_computations_;
  clone->attrs_ = attrs_;
  clone->metadata_ = metadata_;
  clone->frontend_attributes_ = frontend_attributes_;
  clone->backend_config_ = backend_config_;
  clone->sharding_ = sharding_;
  clone->raw_attributes_ = raw_attributes_;
  return clone;
}

bool HloInstruction::IdenticalSlowPath(
    const HloInstruction& other,
    const std::function<bool(const HloComputation*, const HloComputation*)>&
        eq_computations) const {
  if (opcode_ != other.opcode_ || !(shape_ == other.shape_) ||
      operands_.size() != other.operands_.size() ||
      called_computations_.size() != other.called_computations_.size() ||
      !AttributesEqual(attrs_, other.attrs_) ||
      sharding_ != other.sharding_ ||
      !(raw_attributes_ == other.raw_attributes_)) {
    return false;
  }
  // A custom call's backend_config is part of what it computes (a typed
  // FFI call's attributes, potrf's `lower`; an opaque payload); on other
  // instructions it is a backend's hint and leaves the value alone.
  if (opcode_ == HloOpcode::kCustomCall &&
      backend_config_ != other.backend_config_) {
    return false;
  }
  for (size_t i = 0; i < called_computations_.size(); ++i) {
    if (!eq_computations(called_computations_[i],
                         other.called_computations_[i])) {
      return false;
    }
  }
  return true;
}

std::string HloInstruction::ToShortString() const {
  std::vector<std::string> operand_names;
  for (HloInstruction* operand : operands_) {
    operand_names.push_back(absl::StrCat("%", operand->name()));
  }
  return absl::StrCat("%", name_, " = ", shape_.ToString(), " ",
                      HloOpcodeString(opcode_), "(",
                      absl::StrJoin(operand_names, ", "), ")");
}

}  // namespace hloc

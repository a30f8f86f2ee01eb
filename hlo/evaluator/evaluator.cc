// The evaluator's walk over computations: values live in per-call frames,
// each instruction is evaluated once in post order, a value is freed after
// its last use (and handed over instead of copied to a last user that can
// reuse it), and control flow (call, fusion, while, conditional, scan)
// recurses into called computations.
#include "hlo/evaluator/evaluator.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/annotation_custom_calls.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/rendezvous.h"
#include "hlo/evaluator/strided_copy.h"
#include "hlo/host_callbacks.h"
#include "hlo/host_memory.h"
#include "hlo/sparse_custom_call.h"
#include "hlo/status_macros.h"
#include "hlo/sub_byte_int.h"

namespace hloc {
namespace eval {

namespace {

// An annotation custom call (hlo/annotation_custom_calls.h) is the identity
// of its operands on one device, as the pipelines' sharding-remover makes
// it; dce_sink is an empty tuple, AllocateBuffer zeros. nullopt for every other
// custom call, and for a sharding call whose shapes say it partitions.
std::optional<Literal> EvaluateAnnotation(const HloInstruction& instr,
                                          OperandValues& operands) {
  const std::string& target = instr.attrs().custom_call_target;
  if (IsDceSinkCustomCallTarget(target)) return Literal::MakeTuple({});
  if (IsAllocateBufferCustomCallTarget(target) && instr.operand_count() == 0 &&
      instr.shape().IsArray()) {
    return Literal(instr.shape());
  }
  if (!IsShardingCustomCallTarget(target)) return std::nullopt;
  const int64_t n = instr.operand_count();
  if (n == 1 && instr.operand(0)->shape() == instr.shape()) {
    return operands.TakeOrCopy(0);
  }
  const Shape& shape = instr.shape();
  if (n == 0 || !shape.IsTuple() ||
      static_cast<int64_t>(shape.tuple_shapes().size()) != n) {
    return std::nullopt;
  }
  std::vector<Literal> elements;
  for (int64_t i = 0; i < n; ++i) {
    if (instr.operand(i)->shape() != shape.tuple_shapes()[i]) {
      return std::nullopt;
    }
    elements.push_back(operands.TakeOrCopy(i));
  }
  return Literal::MakeTuple(std::move(elements));
}

}  // namespace

absl::Status InstructionError(const HloInstruction& instr,
                              absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat(message, " (", instr.name(), ")"));
}

absl::Status Unsupported(const HloInstruction& instr) {
  return absl::UnimplementedError(absl::StrCat(
      "not supported by the evaluator: ", HloOpcodeString(instr.opcode()), " (",
      instr.name(), ")"));
}

Literal BroadcastScalar(const Literal& scalar, const Shape& shape) {
  Shape array_shape = shape;
  array_shape.set_element_type(scalar.element_type());
  Literal out(array_shape);
  FillElements(out.untyped_data(), out.element_count(), scalar.untyped_data(),
               ByteWidth(scalar.element_type()));
  return out;
}

bool ValidDimensions(absl::Span<const int64_t> dims, int64_t rank) {
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

int64_t IndexValue(const Literal& literal, int64_t i) {
  switch (literal.element_type()) {
    case PRED:
      return literal.data<bool>()[i] ? 1 : 0;
    case S8:
      return literal.data<int8_t>()[i];
    case S16:
      return literal.data<int16_t>()[i];
    case S32:
      return literal.data<int32_t>()[i];
    case S64:
      return literal.data<int64_t>()[i];
    case U8:
      return literal.data<uint8_t>()[i];
    case U16:
      return literal.data<uint16_t>()[i];
    case U32:
      return literal.data<uint32_t>()[i];
    case U64: {
      uint64_t v = literal.data<uint64_t>()[i];
      return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX
                                                  : static_cast<int64_t>(v);
    }
    default:
      return literal.GetAsInt64(i);
  }
}

namespace {

bool IsElementwiseOpcode(HloOpcode opcode) {
  return HloOpcodeIsElementwise(opcode) &&
         opcode != HloOpcode::kStochasticConvert;
}

// Operand access for one instruction of a running frame.
class FrameOperands : public OperandValues {
 public:
  FrameOperands(std::vector<Literal>& owned,
                std::vector<const Literal*>& values,
                std::vector<int>& remaining, const std::vector<int>& slots)
      : owned_(owned), values_(values), remaining_(remaining), slots_(slots) {}

  const Literal& Get(int64_t i) const override { return *values_[slots_[i]]; }

  bool CanTake(int64_t i) const override {
    const int s = slots_[i];
    return remaining_[s] == 1 && values_[s] == &owned_[s];
  }

  Literal TakeOrCopy(int64_t i) override {
    const int s = slots_[i];
    if (CanTake(i)) {
      values_[s] = nullptr;
      return std::move(owned_[s]);
    }
    return *values_[s];
  }

 private:
  std::vector<Literal>& owned_;
  std::vector<const Literal*>& values_;
  std::vector<int>& remaining_;
  const std::vector<int>& slots_;
};

absl::Status CheckArgument(const HloInstruction& parameter,
                           const Literal& arg) {
  if (!arg.shape().Compatible(parameter.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argument ", parameter.parameter_number(), " has shape ",
        arg.shape().ToString(false), " but parameter ", parameter.name(),
        " has shape ", parameter.shape().ToString(false)));
  }
  return absl::OkStatus();
}

// Gives an array result the instruction's exact shape (its layout), after
// checking that type and dimensions agree.
absl::Status FixResultShape(const HloInstruction& instr, Literal& result) {
  const Shape& shape = instr.shape();
  if (!shape.IsArray()) return absl::OkStatus();
  if (!result.shape().IsArray() ||
      result.element_type() != shape.element_type() ||
      result.shape().dimensions() != shape.dimensions()) {
    return absl::InternalError(absl::StrCat("evaluator produced ",
                                            result.shape().ToString(false),
                                            " for ", instr.ToShortString()));
  }
  *result.mutable_shape_do_not_use() = shape;
  return absl::OkStatus();
}

// Whether every sub-byte integer in `value` is canonical (its value in a
// byte: hlo/sub_byte_int.h).
bool IsCanonical(const Literal& value) {
  if (value.shape().IsTuple()) {
    for (const Literal& element : value.tuple_elements()) {
      if (!IsCanonical(element)) return false;
    }
    return true;
  }
  if (!value.shape().IsArray() ||
      !IsSubByteIntegralType(value.element_type())) {
    return true;
  }
  const int bits = BitWidth(value.element_type());
  const bool is_signed = IsSignedIntegralType(value.element_type());
  const uint8_t* data = value.untyped_data();
  for (int64_t i = 0; i < value.element_count(); ++i) {
    if (static_cast<uint8_t>(WrapToBits(data[i], bits, is_signed)) !=
        data[i]) {
      return false;
    }
  }
  return true;
}

// Wraps sub-byte integer values to their bits (hlo/sub_byte_int.h): the
// elementwise kernels wrap their own results, but reductions, dots, iota,
// rng and bitcast-convert compute them as 8-bit values, and arguments may
// come in ml_dtypes' form.
void WrapSubByteInts(Literal& value) {
  if (value.shape().IsTuple()) {
    for (Literal& element : value.tuple_elements()) WrapSubByteInts(element);
  } else if (value.shape().IsArray()) {
    CanonicalizeSubByteInts(value.element_type(), value.untyped_data(),
                            value.element_count());
  }
}

}  // namespace

const Evaluator::Plan& Evaluator::PlanFor(const HloComputation& computation) {
  auto it = plans_.find(&computation);
  if (it != plans_.end()) return *it->second;
  auto plan = std::make_unique<Plan>();
  absl::flat_hash_map<const HloInstruction*, int> slot;
  // Iterative post order over operands, from the root.
  std::vector<std::pair<const HloInstruction*, size_t>> stack;
  const HloInstruction* root = computation.root_instruction();
  if (root != nullptr) stack.push_back({root, 0});
  while (!stack.empty()) {
    auto& [instr, next] = stack.back();
    if (next == 0 && slot.contains(instr)) {
      stack.pop_back();
      continue;
    }
    if (next < instr->operands().size()) {
      const HloInstruction* operand = instr->operand(next++);
      if (!slot.contains(operand)) stack.push_back({operand, 0});
      continue;
    }
    slot[instr] = static_cast<int>(plan->order.size());
    plan->order.push_back(instr);
    stack.pop_back();
  }
  plan->uses.assign(plan->order.size(), 0);
  for (const HloInstruction* instr : plan->order) {
    std::vector<int> slots;
    for (const HloInstruction* operand : instr->operands()) {
      slots.push_back(slot.at(operand));
      ++plan->uses[slots.back()];
    }
    plan->operand_slots.push_back(std::move(slots));
  }
  if (root != nullptr) {
    plan->root = slot.at(root);
    ++plan->uses[plan->root];
  }
  plan->lazy.assign(plan->order.size(), false);
  for (size_t p = 0; p < plan->order.size(); ++p) {
    const HloInstruction* instr = plan->order[p];
    if (instr->opcode() != HloOpcode::kBroadcast || instr == root ||
        instr->users().empty() || !instr->operand(0)->shape().IsArray() ||
        instr->operand(0)->shape().ElementCount() != 1) {
      continue;
    }
    bool elementwise_users = true;
    for (const HloInstruction* user : instr->users()) {
      elementwise_users &= IsElementwiseOpcode(user->opcode());
    }
    plan->lazy[p] = elementwise_users;
  }
  plan->moves_element.assign(plan->order.size(), false);
  for (size_t p = 0; p < plan->order.size(); ++p) {
    const HloInstruction* instr = plan->order[p];
    if (instr->opcode() != HloOpcode::kGetTupleElement) continue;
    const HloInstruction* tuple = instr->operand(0);
    if (tuple == root) continue;
    bool sole = true;
    for (const HloInstruction* user : tuple->users()) {
      sole &= user->opcode() == HloOpcode::kGetTupleElement &&
              (user == instr || user->tuple_index() != instr->tuple_index());
    }
    plan->moves_element[p] = sole;
  }
  const Plan& result = *plan;
  plans_[&computation] = std::move(plan);
  return result;
}

ScalarFn& Evaluator::ScalarFnFor(const HloComputation& computation) {
  auto it = scalar_fns_.find(&computation);
  if (it != scalar_fns_.end()) return *it->second;
  auto fn = std::make_unique<ScalarFn>(computation, this);
  ScalarFn& result = *fn;
  scalar_fns_[&computation] = std::move(fn);
  return result;
}

absl::StatusOr<Literal> Evaluator::Evaluate(
    const HloComputation& computation, absl::Span<const Literal* const> args) {
  return Run(computation, nullptr, args);
}

absl::StatusOr<Literal> Evaluator::EvaluateOwned(
    const HloComputation& computation, std::vector<Literal> args) {
  return Run(computation, &args, {});
}

absl::StatusOr<Literal> Evaluator::EvaluateTaking(
    const HloComputation& computation, OperandValues& operands,
    absl::Span<const int64_t> operand_indices) {
  std::vector<Literal> owned_args(operand_indices.size());
  std::vector<const Literal*> borrowed_args(operand_indices.size());
  for (size_t k = 0; k < operand_indices.size(); ++k) {
    const int64_t i = operand_indices[k];
    if (operands.CanTake(i)) {
      owned_args[k] = operands.TakeOrCopy(i);
    } else {
      borrowed_args[k] = &operands.Get(i);
    }
  }
  return Run(computation, &owned_args, borrowed_args);
}

absl::StatusOr<Literal> Evaluator::Run(
    const HloComputation& computation, std::vector<Literal>* owned_args,
    absl::Span<const Literal* const> borrowed_args) {
  // Both given: argument k is borrowed_args[k], or owned_args[k] where that
  // is null.
  const bool mixed = owned_args != nullptr && !borrowed_args.empty();
  const int64_t num_args = owned_args != nullptr && !mixed
                               ? static_cast<int64_t>(owned_args->size())
                               : static_cast<int64_t>(borrowed_args.size());
  if (num_args != computation.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "computation ", computation.name(), " takes ",
        computation.num_parameters(), " arguments but was given ", num_args));
  }
  const Plan& plan = PlanFor(computation);
  if (plan.root < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("computation ", computation.name(), " has no root"));
  }
  const size_t n = plan.order.size();
  std::vector<Literal> owned(n);
  std::vector<const Literal*> values(n, nullptr);
  std::vector<int> remaining = plan.uses;
  for (size_t p = 0; p < n; ++p) {
    const HloInstruction* instr = plan.order[p];
    if (instr->opcode() == HloOpcode::kParameter) {
      const int64_t k = instr->parameter_number();
      if (k < 0 || k >= num_args) {
        return InstructionError(*instr, "parameter number out of range");
      }
      if (owned_args != nullptr && (!mixed || borrowed_args[k] == nullptr)) {
        absl::Status status = CheckArgument(*instr, (*owned_args)[k]);
        if (!status.ok()) return status;
        owned[p] = std::move((*owned_args)[k]);
        WrapSubByteInts(owned[p]);
        values[p] = &owned[p];
      } else {
        absl::Status status = CheckArgument(*instr, *borrowed_args[k]);
        if (!status.ok()) return status;
        values[p] = borrowed_args[k];
        // Sub-byte integers in ml_dtypes' form (a caller's NumPy buffer)
        // are wrapped in a copy: the caller's buffer is only read.
        if (!IsCanonical(*borrowed_args[k])) {
          owned[p] = *borrowed_args[k];
          WrapSubByteInts(owned[p]);
          values[p] = &owned[p];
        }
      }
      continue;
    }
    if (instr->opcode() == HloOpcode::kConstant &&
        instr->attrs().literal.has_value()) {
      values[p] = &instr->literal();  // Borrowed: constants are never copied.
      continue;
    }
    if (plan.moves_element[p]) {
      const int s = plan.operand_slots[p][0];
      const int64_t index = instr->tuple_index();
      if (values[s] == &owned[s] && owned[s].shape().IsTuple() && index >= 0 &&
          index < static_cast<int64_t>(owned[s].tuple_elements().size())) {
        owned[p] = std::move(owned[s].tuple_elements()[index]);
        values[p] = &owned[p];
        absl::Status status = FixResultShape(*instr, owned[p]);
        if (!status.ok()) return status;
        if (--remaining[s] == 0) {
          owned[s] = Literal();
          values[s] = nullptr;
        }
        continue;
      }
    }
    FrameOperands operands(owned, values, remaining, plan.operand_slots[p]);
    absl::StatusOr<Literal> result =
        plan.lazy[p] ? operands.TakeOrCopy(0)
                     : EvaluateInstruction(*instr, operands);
    if (!result.ok()) return result.status();
    if (!plan.lazy[p]) {
      absl::Status status = FixResultShape(*instr, *result);
      if (!status.ok()) return status;
      WrapSubByteInts(*result);
    }
    owned[p] = std::move(*result);
    values[p] = &owned[p];
    for (int s : plan.operand_slots[p]) {
      if (--remaining[s] == 0) {
        owned[s] = Literal();
        values[s] = nullptr;
      }
    }
  }
  const int root = plan.root;
  if (values[root] == &owned[root]) return std::move(owned[root]);
  Literal result = *values[root];
  absl::Status status = FixResultShape(*plan.order[root], result);
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<Literal> Evaluator::EvaluateCalled(const HloInstruction& instr,
                                                  OperandValues& operands) {
  const HloComputation* callee = instr.to_apply();
  if (callee == nullptr)
    return InstructionError(instr, "no called computation");
  std::vector<int64_t> indices(instr.operand_count());
  for (int64_t i = 0; i < instr.operand_count(); ++i) indices[i] = i;
  return EvaluateTaking(*callee, operands, indices);
}

absl::StatusOr<Literal> Evaluator::EvaluateWhile(const HloInstruction& instr,
                                                 OperandValues& operands) {
  if (instr.called_computations().size() != 2) {
    return InstructionError(instr, "while needs a condition and a body");
  }
  Literal state = operands.TakeOrCopy(0);
  for (int64_t iteration = 0;; ++iteration) {
    const Literal* arg = &state;
    absl::StatusOr<Literal> cond =
        Evaluate(*instr.while_condition(), {&arg, 1});
    if (!cond.ok()) return cond.status();
    if (cond->element_type() != PRED || cond->element_count() != 1) {
      return InstructionError(instr, "while condition must return pred[]");
    }
    if (!cond->data<bool>()[0]) break;
    // Checked once the condition asks for one more iteration, so a loop of
    // exactly N iterations finishes within a limit of N (the compiled CPU
    // loops count the same way: runtime/while_limit.h).
    if (options_.max_while_iterations > 0 &&
        iteration >= options_.max_while_iterations) {
      return absl::DeadlineExceededError(absl::StrCat(
          "while loop ", instr.name(), " did not finish within ",
          options_.max_while_iterations,
          " iterations (the limit given; --max-while-iterations)"));
    }
    std::vector<Literal> args;
    args.push_back(std::move(state));
    absl::StatusOr<Literal> next =
        EvaluateOwned(*instr.while_body(), std::move(args));
    if (!next.ok()) return next.status();
    state = std::move(*next);
  }
  return state;
}

absl::StatusOr<Literal> Evaluator::EvaluateConditional(
    const HloInstruction& instr, OperandValues& operands) {
  const auto& branches = instr.called_computations();
  const int64_t num_branches = static_cast<int64_t>(branches.size());
  if (num_branches == 0 || instr.operand_count() != num_branches + 1) {
    return InstructionError(instr, "conditional needs one operand per branch");
  }
  const Literal& selector = operands.Get(0);
  int64_t branch;
  if (selector.element_type() == PRED) {
    branch = selector.data<bool>()[0] ? 0 : 1;
  } else {
    branch = IndexValue(selector, 0);
  }
  if (branch < 0 || branch >= num_branches) branch = num_branches - 1;
  const int64_t operand = branch + 1;
  return EvaluateTaking(*branches[branch], operands, {&operand, 1});
}

absl::StatusOr<Literal> Evaluator::EvaluateScan(const HloInstruction& instr,
                                                OperandValues& operands) {
  const HloComputation* body = instr.to_apply();
  if (body == nullptr) return InstructionError(instr, "scan needs to_apply");
  const int64_t num_operands = instr.operand_count();
  int64_t num_carries = instr.attrs().num_carries;
  if (num_carries == 0) {
    // Carries are the trailing operands the body takes whole (inputs lose
    // the scan dimension).
    for (int64_t i = num_operands - 1; i >= 0; --i) {
      if (i >= body->num_parameters() ||
          !body->parameter_instruction(i)->shape().Compatible(
              instr.operand(i)->shape())) {
        break;
      }
      ++num_carries;
    }
  }
  const int64_t num_inputs = num_operands - num_carries;
  if (num_inputs < 1 || !instr.shape().IsTuple() ||
      instr.shape().tuple_shapes_size() < num_carries) {
    return InstructionError(instr, "scan needs inputs and a tuple result");
  }
  const int64_t num_outputs = instr.shape().tuple_shapes_size() - num_carries;
  const int64_t scan_dim = instr.dimensions().empty() ? 0 : instr.dimensions(0);
  const Shape& first = instr.operand(0)->shape();
  if (scan_dim < 0 || scan_dim >= first.rank()) {
    return InstructionError(instr, "scan dimension out of range");
  }
  const int64_t length = first.dimensions(scan_dim);

  // Copies slice `index` of `array` along the scan dimension into (or out
  // of) a literal without that dimension.
  auto slice_dims = [&](const Shape& shape) {
    std::vector<int64_t> dims = shape.dimensions();
    dims.erase(dims.begin() + scan_dim);
    return dims;
  };
  auto strides_without = [&](const Shape& shape) {
    std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
    int64_t step = strides[scan_dim];
    strides.erase(strides.begin() + scan_dim);
    return std::make_pair(strides, step);
  };

  std::vector<Literal> outputs;
  for (int64_t o = 0; o < num_outputs; ++o) {
    const Shape& out_shape = instr.shape().tuple_shapes(o);
    if (!out_shape.IsArray() || out_shape.rank() <= scan_dim ||
        out_shape.dimensions(scan_dim) != length) {
      return InstructionError(instr, "scan output lacks the scan dimension");
    }
    outputs.emplace_back(out_shape);
  }
  std::vector<Literal> carries;
  for (int64_t c = 0; c < num_carries; ++c) {
    carries.push_back(operands.TakeOrCopy(num_inputs + c));
  }
  for (int64_t step = 0; step < length; ++step) {
    const int64_t index = instr.attrs().is_reverse ? length - 1 - step : step;
    std::vector<Literal> args;
    for (int64_t i = 0; i < num_inputs; ++i) {
      const Literal& input = operands.Get(i);
      const Shape& shape = instr.operand(i)->shape();
      if (shape.rank() <= scan_dim || shape.dimensions(scan_dim) != length) {
        return InstructionError(instr, "scan inputs differ in length");
      }
      Literal slice(Shape::Array(shape.element_type(), slice_dims(shape)));
      auto [strides, stride] = strides_without(shape);
      CopyStrided(slice.shape().dimensions(), input.untyped_data(),
                  index * stride, strides, slice.untyped_data(), 0,
                  RowMajorStrides(slice.shape().dimensions()),
                  ByteWidth(shape.element_type()));
      args.push_back(std::move(slice));
    }
    for (Literal& carry : carries) args.push_back(std::move(carry));
    carries.clear();
    absl::StatusOr<Literal> result = EvaluateOwned(*body, std::move(args));
    if (!result.ok()) return result.status();
    std::vector<Literal> parts;
    if (result->shape().IsTuple()) {
      parts = std::move(result->tuple_elements());
    } else {
      parts.push_back(std::move(*result));
    }
    if (static_cast<int64_t>(parts.size()) != num_outputs + num_carries) {
      return InstructionError(instr, "scan body returns the wrong arity");
    }
    for (int64_t o = 0; o < num_outputs; ++o) {
      const Shape& out_shape = outputs[o].shape();
      if (parts[o].element_count() * length != outputs[o].element_count()) {
        return InstructionError(instr, "scan body output has the wrong size");
      }
      auto [strides, stride] = strides_without(out_shape);
      std::vector<int64_t> dims = slice_dims(out_shape);
      CopyStrided(dims, parts[o].untyped_data(), 0, RowMajorStrides(dims),
                  outputs[o].untyped_data(), index * stride, strides,
                  ByteWidth(out_shape.element_type()));
    }
    for (int64_t c = 0; c < num_carries; ++c) {
      carries.push_back(std::move(parts[num_outputs + c]));
    }
  }
  for (Literal& carry : carries) outputs.push_back(std::move(carry));
  return Literal::MakeTuple(std::move(outputs));
}

absl::StatusOr<Literal> Evaluator::EvaluateInstruction(
    const HloInstruction& instr, OperandValues& operands) {
  const HloOpcode opcode = instr.opcode();
  // Its result is allocated whole: refuse what cannot fit rather than die
  // of std::bad_alloc.
  if (!FitsInHostMemory(instr.shape())) {
    return CheckFitsInHostMemory(instr.shape(),
                                 absl::StrCat("the result of ", instr.name()));
  }
  std::optional<int> arity = HloOpcodeArity(opcode);
  if (arity.has_value() && instr.operand_count() != *arity) {
    return InstructionError(instr,
                            absl::StrCat("expected ", *arity, " operands, got ",
                                         instr.operand_count()));
  }
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const Literal& value = operands.Get(i);
    const Shape& expected = instr.operand(i)->shape();
    if (value.shape().IsArray() && expected.IsArray() &&
        value.element_type() != expected.element_type()) {
      return InstructionError(
          instr,
          absl::StrCat("operand ", i, " is ", value.shape().ToString(false),
                       " but should be ", expected.ToString(false)));
    }
  }
  if (IsElementwiseOpcode(opcode)) return EvaluateElementwise(instr, operands);
  switch (opcode) {
    case HloOpcode::kConstant:
      if (!instr.attrs().literal.has_value()) {
        return InstructionError(instr, "constant without a value");
      }
      return instr.literal();
    case HloOpcode::kTuple: {
      std::vector<Literal> elements;
      for (int64_t i = 0; i < instr.operand_count(); ++i) {
        elements.push_back(operands.TakeOrCopy(i));
      }
      return Literal::MakeTuple(std::move(elements));
    }
    case HloOpcode::kGetTupleElement: {
      const int64_t index = instr.tuple_index();
      const Literal& tuple = operands.Get(0);
      if (!tuple.shape().IsTuple() || index < 0 ||
          index >= static_cast<int64_t>(tuple.tuple_elements().size())) {
        return InstructionError(instr, "tuple index out of range");
      }
      if (operands.CanTake(0)) {
        Literal taken = operands.TakeOrCopy(0);
        return std::move(taken.tuple_elements()[index]);
      }
      return tuple.tuple_elements()[index];
    }
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
    case HloOpcode::kCopy:
      return operands.TakeOrCopy(0);
    case HloOpcode::kAfterAll:
      return Literal(Shape::Token());
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId: {
      Literal out(instr.shape());
      const int64_t id = opcode == HloOpcode::kReplicaId
                             ? device_->device / device_->num_partitions
                             : device_->device % device_->num_partitions;
      out.SetFromInt64(0, id);
      return out;
    }
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute:
      return EvaluateCollective(instr, operands);
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
      return EvaluateCalled(instr, operands);
    case HloOpcode::kWhile:
      return EvaluateWhile(instr, operands);
    case HloOpcode::kConditional:
      return EvaluateConditional(instr, operands);
    case HloOpcode::kScan:
      return EvaluateScan(instr, operands);
    case HloOpcode::kMap:
      return EvaluateMap(instr, operands, *this);
    case HloOpcode::kBroadcast:
      return EvaluateBroadcast(instr, operands);
    case HloOpcode::kReshape:
      return EvaluateReshape(instr, operands);
    case HloOpcode::kBitcast:
      return EvaluateBitcast(instr, operands);
    case HloOpcode::kBitcastConvert:
      return EvaluateBitcastConvert(instr, operands);
    case HloOpcode::kTranspose:
      return EvaluateTranspose(instr, operands);
    case HloOpcode::kSlice:
      return EvaluateSlice(instr, operands);
    case HloOpcode::kDynamicSlice:
      return EvaluateDynamicSlice(instr, operands);
    case HloOpcode::kDynamicUpdateSlice:
      return EvaluateDynamicUpdateSlice(instr, operands);
    case HloOpcode::kConcatenate:
      return EvaluateConcatenate(instr, operands);
    case HloOpcode::kPad:
      return EvaluatePad(instr, operands);
    case HloOpcode::kReverse:
      return EvaluateReverse(instr, operands);
    case HloOpcode::kIota:
      return EvaluateIota(instr);
    case HloOpcode::kGetDimensionSize: {
      const Shape& shape = instr.operand(0)->shape();
      const int64_t dim = instr.dimensions().empty() ? 0 : instr.dimensions(0);
      if (dim < 0 || dim >= shape.rank()) {
        return InstructionError(instr, "dimension out of range");
      }
      Literal out(instr.shape());
      out.SetFromInt64(0, shape.dimensions(dim));
      return out;
    }
    case HloOpcode::kSetDimensionSize:
      return operands.TakeOrCopy(0);
    case HloOpcode::kGather:
      return EvaluateGather(instr, operands);
    case HloOpcode::kScatter:
      return EvaluateScatter(instr, operands, *this);
    case HloOpcode::kReduce:
      return EvaluateReduce(instr, operands, *this);
    case HloOpcode::kReduceWindow:
      return EvaluateReduceWindow(instr, operands, *this);
    case HloOpcode::kSelectAndScatter:
      return EvaluateSelectAndScatter(instr, operands, *this);
    case HloOpcode::kSort:
      return EvaluateSort(instr, operands, *this);
    case HloOpcode::kTopK:
      return EvaluateTopK(instr, operands);
    case HloOpcode::kDot:
      return EvaluateDot(instr, operands);
    case HloOpcode::kRaggedDot:
      return EvaluateRaggedDot(instr, operands);
    case HloOpcode::kConvolution:
      return EvaluateConvolution(instr, operands);
    case HloOpcode::kFft:
      return EvaluateFft(instr, operands);
    case HloOpcode::kCholesky:
      return EvaluateCholesky(instr, operands);
    case HloOpcode::kTriangularSolve:
      return EvaluateTriangularSolve(instr, operands);
    case HloOpcode::kCustomCall:
      if (std::optional<Literal> value = EvaluateAnnotation(instr, operands)) {
        return *std::move(value);
      }
      if (IsCsrSparseDenseCustomCall(instr)) {
        return EvaluateCsrSparseDense(instr, operands);
      }
      return EvaluateCustomCall(instr, operands);
    case HloOpcode::kRngBitGenerator:
      return EvaluateRngBitGenerator(instr, operands);
    default:
      return Unsupported(instr);
  }
}

}  // namespace eval

absl::StatusOr<Literal> EvaluateComputation(
    const HloComputation& computation, absl::Span<const Literal> arguments,
    const EvaluateOptions& options) {
  eval::Evaluator evaluator(options);
  std::vector<const Literal*> args;
  for (const Literal& arg : arguments) args.push_back(&arg);
  return evaluator.Evaluate(computation, args);
}

absl::StatusOr<Literal> EvaluateModule(const HloModule& module,
                                       absl::Span<const Literal> arguments,
                                       const EvaluateOptions& options) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("module ", module.name(), " has no entry computation"));
  }
  // The evaluator never reaches a callback whose results are unused, but
  // it refuses one as every platform does (hlo/host_callbacks.h).
  HLOC_RETURN_IF_ERROR(CheckNoPythonCallbacks(module));
  return EvaluateComputation(*entry, arguments, options);
}

absl::StatusOr<std::vector<Literal>> EvaluateReplicated(
    const HloModule& module,
    absl::Span<const std::vector<Literal>> arguments,
    const EvaluateOptions& options) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("module ", module.name(), " has no entry computation"));
  }
  HLOC_RETURN_IF_ERROR(CheckNoPythonCallbacks(module));
  const int64_t replica_count = module.config().replica_count;
  const int64_t num_partitions = module.config().num_partitions;
  if (replica_count < 1 || num_partitions < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "module ", module.name(), " has replica_count=", replica_count,
        " and num_partitions=", num_partitions, "; both must be at least 1"));
  }
  const int64_t num_devices = replica_count * num_partitions;
  if (static_cast<int64_t>(arguments.size()) != num_devices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "module ", module.name(), " runs on ", num_devices,
        " devices (replica_count=", replica_count,
        ", num_partitions=", num_partitions, ") but ", arguments.size(),
        " argument lists were given"));
  }
  eval::Rendezvous rendezvous(num_devices);
  std::vector<absl::StatusOr<Literal>> results(
      num_devices, absl::UnknownError("not run"));
  auto run = [&](int64_t d) {
    eval::DeviceContext device;
    device.device = d;
    device.replica_count = replica_count;
    device.num_partitions = num_partitions;
    device.rendezvous = &rendezvous;
    eval::Evaluator evaluator(options, &device);
    std::vector<const Literal*> args;
    for (const Literal& arg : arguments[d]) args.push_back(&arg);
    results[d] = evaluator.Evaluate(*entry, args);
    rendezvous.Finish(d, !results[d].ok());
  };
  std::vector<std::thread> threads;
  for (int64_t d = 1; d < num_devices; ++d) threads.emplace_back(run, d);
  run(0);
  for (std::thread& t : threads) t.join();
  // A device's own error first: the others' only say that it stopped.
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t d = 0; d < num_devices; ++d) {
      const absl::Status& s = results[d].status();
      if (s.ok() || (pass == 0 && absl::IsAborted(s))) continue;
      return absl::Status(
          s.code(), absl::StrCat("device ", d, " (replica ", d / num_partitions,
                                 ", partition ", d % num_partitions,
                                 "): ", s.message()));
    }
  }
  std::vector<Literal> out;
  for (auto& r : results) out.push_back(std::move(*r));
  return out;
}

}  // namespace hloc

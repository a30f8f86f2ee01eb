#include "hlo/evaluator/program.h"

#include <cstring>
#include <functional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/strided_copy.h"

namespace hloc {
namespace eval {
namespace {

bool IsSingleElementArray(const Shape& shape) {
  return shape.IsArray() && shape.ElementCount() == 1;
}

// Number of array leaves of a shape.
int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}

class Compiler {
 public:
  explicit Compiler(ScalarProgram* program) : program_(program) {}

  // Compiles `computation` with its parameters bound to `params` (one slot
  // list per parameter); returns the root's slots, or false.
  bool CompileComputation(const HloComputation& computation,
                          const std::vector<std::vector<int>>& params,
                          std::vector<int>* result,
                          const HloInstruction* root = nullptr) {
    if (root == nullptr) root = computation.root_instruction();
    absl::flat_hash_map<const HloInstruction*, std::vector<int>> slots;
    std::vector<const HloInstruction*> order;
    PostOrder(root, &order);
    for (const HloInstruction* instr : order) {
      std::vector<int> out;
      if (!CompileInstruction(*instr, params, slots, &out)) return false;
      slots[instr] = std::move(out);
    }
    *result = slots[root];
    return true;
  }

 private:
  static void PostOrder(const HloInstruction* root,
                        std::vector<const HloInstruction*>* order) {
    absl::flat_hash_map<const HloInstruction*, bool> done;
    std::function<void(const HloInstruction*)> visit =
        [&](const HloInstruction* instr) {
          if (done.contains(instr)) return;
          done[instr] = true;
          for (const HloInstruction* operand : instr->operands())
            visit(operand);
          order->push_back(instr);
        };
    visit(root);
  }

  int NewSlot(PrimitiveType type) {
    program_->slot_types.push_back(type);
    return static_cast<int>(program_->slot_types.size()) - 1;
  }

  bool CompileInstruction(
      const HloInstruction& instr, const std::vector<std::vector<int>>& params,
      const absl::flat_hash_map<const HloInstruction*, std::vector<int>>& slots,
      std::vector<int>* out) {
    auto operand_slots = [&](int64_t i) -> const std::vector<int>& {
      return slots.at(instr.operand(i));
    };
    const HloOpcode opcode = instr.opcode();
    switch (opcode) {
      case HloOpcode::kParameter: {
        const int64_t k = instr.parameter_number();
        if (k < 0 || k >= static_cast<int64_t>(params.size())) return false;
        *out = params[k];
        return true;
      }
      case HloOpcode::kConstant: {
        if (!IsSingleElementArray(instr.shape()) ||
            !instr.attrs().literal.has_value()) {
          return false;
        }
        const int slot = NewSlot(instr.shape().element_type());
        program_->constants.push_back({slot, instr.literal()});
        *out = {slot};
        return true;
      }
      case HloOpcode::kTuple:
        for (int64_t i = 0; i < instr.operand_count(); ++i) {
          const std::vector<int>& s = operand_slots(i);
          out->insert(out->end(), s.begin(), s.end());
        }
        return true;
      case HloOpcode::kGetTupleElement: {
        const Shape& tuple = instr.operand(0)->shape();
        if (!tuple.IsTuple() ||
            instr.tuple_index() >= tuple.tuple_shapes_size()) {
          return false;
        }
        int64_t begin = 0;
        for (int64_t i = 0; i < instr.tuple_index(); ++i) {
          begin += LeafCount(tuple.tuple_shapes(i));
        }
        const int64_t count =
            LeafCount(tuple.tuple_shapes(instr.tuple_index()));
        const std::vector<int>& s = operand_slots(0);
        out->assign(s.begin() + begin, s.begin() + begin + count);
        return true;
      }
      case HloOpcode::kBroadcast:
      case HloOpcode::kReshape:
      case HloOpcode::kCopy:
      case HloOpcode::kBitcast:
      case HloOpcode::kTranspose:
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kBitcastConvert:
        if (!IsSingleElementArray(instr.shape()) ||
            !IsSingleElementArray(instr.operand(0)->shape()) ||
            ByteWidth(instr.shape().element_type()) !=
                ByteWidth(instr.operand(0)->shape().element_type())) {
          return false;
        }
        *out = operand_slots(0);
        return true;
      case HloOpcode::kCall: {
        const HloComputation* callee = instr.to_apply();
        if (callee == nullptr) return false;
        std::vector<std::vector<int>> args;
        for (int64_t i = 0; i < instr.operand_count(); ++i) {
          args.push_back(operand_slots(i));
        }
        return CompileComputation(*callee, args, out);
      }
      default:
        break;
    }
    if (!HloOpcodeIsElementwise(opcode) ||
        !IsSingleElementArray(instr.shape()) || instr.operand_count() > 3) {
      return false;
    }
    ScalarProgram::Step step;
    step.num_in = static_cast<int>(instr.operand_count());
    for (int64_t i = 0; i < instr.operand_count(); ++i) {
      const std::vector<int>& s = operand_slots(i);
      if (s.size() != 1 || !IsSingleElementArray(instr.operand(i)->shape())) {
        return false;
      }
      step.in[i] = s[0];
    }
    absl::StatusOr<ElementwiseFn> fn = SelectElementwiseKernel(instr);
    if (!fn.ok()) return false;
    step.fn = *fn;
    step.attrs = KernelAttrsOf(instr);
    step.out = NewSlot(instr.shape().element_type());
    program_->steps.push_back(step);
    *out = {step.out};
    return true;
  }

  ScalarProgram* program_;
};

}  // namespace

std::unique_ptr<ScalarProgram> ScalarProgram::Compile(
    const HloComputation& computation, const HloInstruction* root) {
  auto program = std::make_unique<ScalarProgram>();
  std::vector<std::vector<int>> params;
  for (int64_t i = 0; i < computation.num_parameters(); ++i) {
    const Shape& shape = computation.parameter_instruction(i)->shape();
    if (!IsSingleElementArray(shape)) return nullptr;
    program->slot_types.push_back(shape.element_type());
    program->param_slots.push_back(static_cast<int>(i));
    params.push_back({static_cast<int>(i)});
  }
  if (root == nullptr) root = computation.root_instruction();
  if (root == nullptr) return nullptr;
  Compiler compiler(program.get());
  if (!compiler.CompileComputation(computation, params, &program->result_slots,
                                   root)) {
    return nullptr;
  }
  return program;
}

namespace {

std::vector<PrimitiveType> LeafTypes(const Shape& shape) {
  std::vector<PrimitiveType> types;
  std::function<void(const Shape&)> leaves = [&](const Shape& s) {
    if (s.IsTuple()) {
      for (const Shape& e : s.tuple_shapes()) leaves(e);
    } else {
      types.push_back(s.element_type());
    }
  };
  leaves(shape);
  return types;
}

}  // namespace

ScalarFn::ScalarFn(const HloComputation& computation, Evaluator* evaluator)
    : computation_(computation), evaluator_(evaluator) {
  for (int64_t i = 0; i < computation.num_parameters(); ++i) {
    param_types_.push_back(
        computation.parameter_instruction(i)->shape().element_type());
  }
  if (computation.root_instruction() != nullptr) {
    result_types_ = LeafTypes(computation.root_instruction()->shape());
  }
  program_ = ScalarProgram::Compile(computation);
  if (program_ != nullptr) ptrs_.assign(program_->slot_types.size(), nullptr);
}

ScalarFn::ScalarFn(const HloComputation& computation,
                   const HloInstruction* root)
    : computation_(computation), evaluator_(nullptr) {
  for (int64_t i = 0; i < computation.num_parameters(); ++i) {
    param_types_.push_back(
        computation.parameter_instruction(i)->shape().element_type());
  }
  result_types_ = LeafTypes(root->shape());
  program_ = ScalarProgram::Compile(computation, root);
  if (program_ != nullptr) ptrs_.assign(program_->slot_types.size(), nullptr);
}

void ScalarFn::EnsureCapacity(int64_t lanes) {
  if (lanes <= capacity_) return;
  capacity_ = std::max<int64_t>(lanes, 2 * capacity_);
  const size_t num_slots = program_->slot_types.size();
  buffers_.assign(num_slots, {});
  for (size_t s = program_->param_slots.size(); s < num_slots; ++s) {
    buffers_[s].resize(capacity_ * ByteWidth(program_->slot_types[s]));
    ptrs_[s] = buffers_[s].data();
  }
  for (const auto& [slot, value] : program_->constants) {
    FillElements(buffers_[slot].data(), capacity_, value.untyped_data(),
                 ByteWidth(program_->slot_types[slot]));
  }
}

absl::Status ScalarFn::Call(absl::Span<const void* const> args,
                            absl::Span<void* const> results, int64_t n) {
  if (static_cast<int64_t>(args.size()) != num_params() ||
      static_cast<int64_t>(results.size()) != num_results()) {
    return absl::InternalError(absl::StrCat(
        "computation ", computation_.name(), " called with ", args.size(),
        " arguments and ", results.size(), " results"));
  }
  if (n <= 0) return absl::OkStatus();
  if (program_ != nullptr) {
    EnsureCapacity(n);
    for (size_t i = 0; i < args.size(); ++i) {
      ptrs_[program_->param_slots[i]] = const_cast<void*>(args[i]);
    }
    for (const ScalarProgram::Step& step : program_->steps) {
      const void* ins[3] = {ptrs_[step.in[0]],
                            step.num_in > 1 ? ptrs_[step.in[1]] : nullptr,
                            step.num_in > 2 ? ptrs_[step.in[2]] : nullptr};
      step.fn(ins, ptrs_[step.out], n, step.attrs);
    }
    const int num_params = static_cast<int>(program_->param_slots.size());
    bool stage = false;
    if (results.size() > 1) {
      for (size_t j = 0; j < results.size(); ++j) {
        const int slot = program_->result_slots[j];
        stage |= slot < num_params && ptrs_[slot] != results[j];
      }
    }
    if (!stage) {
      for (size_t j = 0; j < results.size(); ++j) {
        const void* src = ptrs_[program_->result_slots[j]];
        if (src != results[j]) {
          std::memmove(results[j], src, n * ByteWidth(result_types_[j]));
        }
      }
      return absl::OkStatus();
    }
    // A result read from a parameter could be overwritten by an earlier
    // result written over that parameter's buffer: copy those out first.
    std::vector<std::vector<uint8_t>> staged(results.size());
    for (size_t j = 0; j < results.size(); ++j) {
      const auto* p =
          static_cast<const uint8_t*>(ptrs_[program_->result_slots[j]]);
      staged[j].assign(p, p + n * ByteWidth(result_types_[j]));
    }
    for (size_t j = 0; j < results.size(); ++j) {
      std::memcpy(results[j], staged[j].data(), staged[j].size());
    }
    return absl::OkStatus();
  }
  // Not compilable: evaluate the computation once per lane.
  if (evaluator_ == nullptr) {
    return absl::InternalError("uncompiled partial computation called");
  }
  std::vector<Literal> lane_args(args.size());
  std::vector<const Literal*> arg_ptrs(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const Shape& shape = computation_.parameter_instruction(i)->shape();
    if (!IsSingleElementArray(shape)) {
      return absl::UnimplementedError(
          absl::StrCat("computation ", computation_.name(),
                       " applied per element must take scalars"));
    }
    lane_args[i] = Literal(shape);
    arg_ptrs[i] = &lane_args[i];
  }
  for (int64_t lane = 0; lane < n; ++lane) {
    for (size_t i = 0; i < args.size(); ++i) {
      const int64_t w = ByteWidth(param_types_[i]);
      std::memcpy(lane_args[i].untyped_data(),
                  static_cast<const uint8_t*>(args[i]) + lane * w, w);
    }
    absl::StatusOr<Literal> value =
        evaluator_->Evaluate(computation_, arg_ptrs);
    if (!value.ok()) return value.status();
    std::vector<const Literal*> leaves;
    std::function<void(const Literal&)> collect = [&](const Literal& l) {
      if (l.shape().IsTuple()) {
        for (const Literal& e : l.tuple_elements()) collect(e);
      } else {
        leaves.push_back(&l);
      }
    };
    collect(*value);
    if (leaves.size() != results.size()) {
      return absl::InternalError("computation result arity changed");
    }
    for (size_t j = 0; j < results.size(); ++j) {
      const int64_t w = ByteWidth(result_types_[j]);
      if (leaves[j]->element_count() != 1) {
        return absl::UnimplementedError(
            absl::StrCat("computation ", computation_.name(),
                         " applied per element must return scalars"));
      }
      std::memcpy(static_cast<uint8_t*>(results[j]) + lane * w,
                  leaves[j]->untyped_data(), w);
    }
  }
  return absl::OkStatus();
}

}  // namespace eval
}  // namespace hloc

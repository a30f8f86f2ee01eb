#include "runtime/evaluator_step.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/instruction.h"
#include "hlo/text/parser.h"
#include "hlo/verifier.h"
#include "runtime/dense_buffer.h"

namespace hloc {
namespace {

void LeafShapes(const Shape& shape, std::vector<const Shape*>* out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) LeafShapes(s, out);
  } else {
    out->push_back(&shape);
  }
}

bool SameLeafShape(const Shape& a, const Shape& b) {
  if (!a.Compatible(b)) return false;
  return !a.IsArray() || a.MinorToMajor() == b.MinorToMajor();
}

// A literal of `shape` whose leaves come from `slots` in order.
Literal ReadLiteral(const Shape& shape, const std::vector<uint8_t*>& address,
                    const std::vector<int64_t>& slots, size_t* next) {
  if (!shape.IsTuple()) {
    return BufferToLiteral(address[slots[(*next)++]], shape);
  }
  std::vector<Literal> elements;
  for (const Shape& s : shape.tuple_shapes()) {
    elements.push_back(ReadLiteral(s, address, slots, next));
  }
  return Literal::MakeTuple(std::move(elements));
}

}  // namespace

absl::StatusOr<std::unique_ptr<EvaluatorStep>> EvaluatorStep::Create(
    const Executable& executable, const ExecutableStep& step,
    const std::string& what) {
  const std::vector<ExecutableBuffer>& slots = executable.buffers;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(step.fallback_hlo, what);
  if (!module.ok()) return module.status();
  absl::Status status = VerifyModule(**module);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", status.message()));
  }
  // Its parameters' leaves, then its result's, are the step's slots.
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<const Shape*> leaves;
  for (const HloInstruction* p : entry->parameter_instructions()) {
    LeafShapes(p->shape(), &leaves);
  }
  const size_t num_operand_slots = leaves.size();
  LeafShapes(entry->root_instruction()->shape(), &leaves);
  if (leaves.size() != step.buffers.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": its module has ", leaves.size(),
                     " leaves, the step ", step.buffers.size(), " slots"));
  }
  for (size_t l = 0; l < leaves.size(); ++l) {
    if (!SameLeafShape(*leaves[l], slots[step.buffers[l]].shape)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": leaf ", l, " is ", leaves[l]->ToString(), " but slot ",
          step.buffers[l], " holds ", slots[step.buffers[l]].shape.ToString()));
    }
  }
  // It writes its result leaves: never a parameter's or a constant's.
  for (size_t l = num_operand_slots; l < leaves.size(); ++l) {
    const BufferAllocation::Kind kind =
        executable.allocations[slots[step.buffers[l]].allocation].kind;
    if (kind == BufferAllocation::Kind::kParameter ||
        kind == BufferAllocation::Kind::kConstant) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": writes into a ", AllocationKindName(kind)));
    }
  }
  std::unique_ptr<EvaluatorStep> evaluator(new EvaluatorStep());
  evaluator->module_ = *std::move(module);
  evaluator->num_operand_slots_ = num_operand_slots;
  return evaluator;
}

absl::Status EvaluatorStep::Run(const Executable& executable,
                                const ExecutableStep& step,
                                const std::vector<uint8_t*>& address,
                                int64_t max_while_iterations) const {
  const HloComputation* entry = module_->entry_computation();
  std::vector<Literal> arguments;
  size_t next = 0;
  for (const HloInstruction* p : entry->parameter_instructions()) {
    arguments.push_back(ReadLiteral(p->shape(), address, step.buffers, &next));
  }
  EvaluateOptions options;
  options.max_while_iterations = max_while_iterations;
  absl::StatusOr<Literal> result = EvaluateModule(*module_, arguments, options);
  if (!result.ok()) {
    return absl::Status(
        result.status().code(),
        absl::StrCat("evaluator fallback for ", step.instruction, ": ",
                     result.status().message()));
  }
  const std::vector<const Literal*> values = LiteralLeaves(*result);
  for (size_t l = 0; l < values.size() && next < step.buffers.size();
       ++l, ++next) {
    const ExecutableBuffer& slot = executable.buffers[step.buffers[next]];
    if (slot.size > 0) {
      CopyLiteralToBuffer(*values[l], slot.shape, address[step.buffers[next]]);
    }
  }
  return absl::OkStatus();
}

}  // namespace hloc

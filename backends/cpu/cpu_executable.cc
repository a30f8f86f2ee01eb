#include "backends/cpu/cpu_executable.h"

#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/common/status_macros.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"

namespace hloc {
namespace {

struct AlignedFree {
  void operator()(uint8_t* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<uint8_t[], AlignedFree>;

AlignedBuffer Allocate(int64_t bytes) {
  size_t size = static_cast<size_t>(((bytes + 63) / 64) * 64);
  if (size == 0) size = 64;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, size));
  return AlignedBuffer(p);
}

// Depth-first array leaves of a shape.
void Leaves(const Shape& shape, std::vector<const Shape*>* out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) Leaves(s, out);
  } else {
    out->push_back(&shape);
  }
}

void LiteralLeaves(const Literal& literal, std::vector<const Literal*>* out) {
  if (literal.shape().IsTuple()) {
    for (const Literal& e : literal.tuple_elements()) LiteralLeaves(e, out);
  } else {
    out->push_back(&literal);
  }
}

}  // namespace

void CopyLiteralToBuffer(const Literal& literal, const Shape& shape,
                         uint8_t* buffer) {
  int64_t width = ByteWidth(shape.element_type());
  if (shape.HasDescendingLayout() || shape.rank() <= 1) {
    std::memcpy(
        buffer, literal.untyped_data(),
        std::min<int64_t>(literal.size_bytes(), shape.ElementCount() * width));
    return;
  }
  std::vector<int64_t> strides = LayoutStrides(shape);
  const uint8_t* src = literal.untyped_data();
  ForEachIndex(shape.dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
    std::memcpy(buffer + offset * width, src, width);
    src += width;
    return true;
  });
}

Literal BufferToLiteral(const uint8_t* buffer, const Shape& shape) {
  Literal literal(shape);
  int64_t width = ByteWidth(shape.element_type());
  if (shape.HasDescendingLayout() || shape.rank() <= 1) {
    std::memcpy(literal.untyped_data(), buffer, literal.size_bytes());
    return literal;
  }
  std::vector<int64_t> strides = LayoutStrides(shape);
  uint8_t* dst = literal.untyped_data();
  ForEachIndex(shape.dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += index[d] * strides[d];
    std::memcpy(dst, buffer + offset * width, width);
    dst += width;
    return true;
  });
  return literal;
}

CpuExecutable::CpuExecutable(std::unique_ptr<HloModule> module, BufferPlan plan,
                             std::vector<CpuStep> steps,
                             std::unique_ptr<JitModule> jit)
    : module_(std::move(module)),
      plan_(std::move(plan)),
      steps_(std::move(steps)),
      jit_(std::move(jit)) {}

CpuExecutable::~CpuExecutable() = default;

std::vector<std::string> CpuExecutable::fallback_instructions() const {
  std::vector<std::string> names;
  for (const CpuStep& step : steps_) {
    if (step.kind == CpuStep::Kind::kEvaluator) {
      names.push_back(step.instruction->name());
    }
  }
  return names;
}

int64_t CpuExecutable::kernel_count() const {
  int64_t n = 0;
  for (const CpuStep& step : steps_) n += step.kind == CpuStep::Kind::kKernel;
  return n;
}

absl::StatusOr<Literal> CpuExecutable::Run(
    absl::Span<const Literal> arguments) {
  const HloComputation* entry = module_->entry_computation();
  if (static_cast<int64_t>(arguments.size()) != entry->num_parameters()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the entry computation takes ", entry->num_parameters(),
                     " arguments, given ", arguments.size()));
  }
  std::vector<AlignedBuffer> allocations;
  std::vector<uint8_t*> address;
  for (int64_t bytes : plan_.allocation_bytes) {
    allocations.push_back(Allocate(bytes));
    address.push_back(allocations.back().get());
  }
  auto leaves_of =
      [&](const HloInstruction* instr) -> const std::vector<int64_t>& {
    return plan_.leaves.at(instr);
  };
  // Parameters and constants.
  for (const HloInstruction* instr : entry->instructions()) {
    std::vector<const Shape*> shapes;
    Leaves(instr->shape(), &shapes);
    std::vector<const Literal*> values;
    if (instr->opcode() == HloOpcode::kParameter) {
      const Literal& arg = arguments[instr->parameter_number()];
      if (!arg.shape().Compatible(instr->shape())) {
        return absl::InvalidArgumentError(
            absl::StrCat("argument ", instr->parameter_number(), " has shape ",
                         arg.shape().ToString(), ", the parameter ",
                         instr->shape().ToString()));
      }
      LiteralLeaves(arg, &values);
    } else if (instr->opcode() == HloOpcode::kConstant) {
      LiteralLeaves(instr->literal(), &values);
    } else {
      continue;
    }
    const std::vector<int64_t>& ids = leaves_of(instr);
    for (size_t i = 0; i < ids.size(); ++i) {
      CopyLiteralToBuffer(*values[i], *shapes[i], address[ids[i]]);
    }
  }
  for (const CpuStep& step : steps_) {
    const HloInstruction* instr = step.instruction;
    if (step.kind == CpuStep::Kind::kKernel) {
      std::vector<void*> buffers;
      for (int64_t id : step.buffers) buffers.push_back(address[id]);
      step.kernel(buffers.data());
      continue;
    }
    // Evaluator fallback: this instruction alone, on literals of its operands.
    fallback_runs_.fetch_add(1);
    HloComputation computation(absl::StrCat("fallback.", instr->name()));
    std::vector<HloInstruction*> params;
    std::vector<Literal> args;
    for (int64_t i = 0; i < instr->operand_count(); ++i) {
      const HloInstruction* operand = instr->operand(i);
      params.push_back(computation.AddParameter(HloInstruction::CreateParameter(
          i, operand->shape(), absl::StrCat("p", i))));
      std::vector<const Shape*> shapes;
      Leaves(operand->shape(), &shapes);
      const std::vector<int64_t>& ids = leaves_of(operand);
      std::vector<Literal> leaf_values;
      for (size_t j = 0; j < ids.size(); ++j) {
        leaf_values.push_back(BufferToLiteral(address[ids[j]], *shapes[j]));
      }
      if (operand->shape().IsTuple()) {
        // Rebuild the tuple structure from the flat leaves.
        size_t next = 0;
        std::function<Literal(const Shape&)> build = [&](const Shape& s) {
          if (!s.IsTuple()) return std::move(leaf_values[next++]);
          std::vector<Literal> elements;
          for (const Shape& e : s.tuple_shapes()) elements.push_back(build(e));
          return Literal::MakeTuple(std::move(elements));
        };
        args.push_back(build(operand->shape()));
      } else {
        args.push_back(std::move(leaf_values[0]));
      }
    }
    HloInstruction* clone = computation.AddInstruction(
        instr->CloneWithNewOperands(instr->shape(), params));
    computation.set_root_instruction(clone);
    absl::StatusOr<Literal> result = EvaluateComputation(computation, args);
    if (!result.ok()) {
      return absl::Status(result.status().code(),
                          absl::StrCat("evaluator fallback for ", instr->name(),
                                       ": ", result.status().message()));
    }
    std::vector<const Literal*> values;
    LiteralLeaves(*result, &values);
    std::vector<const Shape*> shapes;
    Leaves(instr->shape(), &shapes);
    const std::vector<int64_t>& ids = leaves_of(instr);
    for (size_t i = 0; i < ids.size(); ++i) {
      CopyLiteralToBuffer(*values[i], *shapes[i], address[ids[i]]);
    }
  }
  // The result, rebuilt from the root's leaves.
  const HloInstruction* root = entry->root_instruction();
  const std::vector<int64_t>& ids = leaves_of(root);
  size_t next = 0;
  std::function<Literal(const Shape&)> build = [&](const Shape& s) {
    if (!s.IsTuple()) {
      Literal leaf = BufferToLiteral(address[ids[next++]], s);
      return leaf;
    }
    std::vector<Literal> elements;
    for (const Shape& e : s.tuple_shapes()) elements.push_back(build(e));
    return Literal::MakeTuple(std::move(elements));
  };
  return build(root->shape());
}

}  // namespace hloc

#include "backends/cpu/cpu_compiler.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/common/status_macros.h"
#include "hlo/computation.h"
#include "hlo/verifier.h"

namespace hloc {
namespace {

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}

void LeafBytes(const Shape& shape, std::vector<int64_t>* out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) LeafBytes(s, out);
  } else {
    out->push_back(shape.IsArray()
                       ? shape.ElementCount() * ByteWidth(shape.element_type())
                       : 0);
  }
}

absl::Status CheckShape(const Shape& shape, const HloInstruction* instr) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      HLOC_RETURN_IF_ERROR(CheckShape(s, instr));
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();
  if (!shape.is_static()) {
    return absl::UnimplementedError(absl::StrCat(
        "CPU backend: dynamic shapes are not supported (", instr->name(), ")"));
  }
  if (shape.has_layout() && !shape.layout().IsPlain()) {
    return absl::UnimplementedError(
        absl::StrCat("CPU backend: only plain layouts are supported (",
                     instr->name(), " has ", shape.ToString(), ")"));
  }
  return absl::OkStatus();
}

// Instructions that only name buffers and need no code.
bool IsBufferAlias(const HloInstruction* instr) {
  switch (instr->opcode()) {
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAddDependency:
      return true;
    case HloOpcode::kBitcast: {
      const Shape& in = instr->operand(0)->shape();
      return in.IsArray() &&
             in.element_type() == instr->shape().element_type() &&
             in.ElementCount() == instr->shape().ElementCount();
    }
    default:
      return false;
  }
}

BufferPlan MakeBufferPlan(const std::vector<HloInstruction*>& order) {
  BufferPlan plan;
  for (const HloInstruction* instr : order) {
    std::vector<int64_t>& leaves = plan.leaves[instr];
    if (IsBufferAlias(instr)) {
      if (instr->opcode() == HloOpcode::kTuple) {
        for (const HloInstruction* operand : instr->operands()) {
          const std::vector<int64_t>& l = plan.leaves[operand];
          leaves.insert(leaves.end(), l.begin(), l.end());
        }
      } else if (instr->opcode() == HloOpcode::kGetTupleElement) {
        const HloInstruction* tuple = instr->operand(0);
        int64_t start = 0;
        for (int64_t i = 0; i < instr->tuple_index(); ++i) {
          start += LeafCount(tuple->shape().tuple_shapes(i));
        }
        const std::vector<int64_t>& l = plan.leaves[tuple];
        leaves.assign(l.begin() + start,
                      l.begin() + start + LeafCount(instr->shape()));
      } else {
        leaves = plan.leaves[instr->operand(0)];
      }
      continue;
    }
    std::vector<int64_t> bytes;
    LeafBytes(instr->shape(), &bytes);
    for (int64_t b : bytes) {
      leaves.push_back(static_cast<int64_t>(plan.allocation_bytes.size()));
      plan.allocation_bytes.push_back(b);
    }
  }
  return plan;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileForCpu(
    const HloModule& original, const CpuCompileOptions& options) {
  // Code generation trusts shapes and attributes: check them first.
  HLOC_RETURN_IF_ERROR(VerifyModule(original));
  std::unique_ptr<HloModule> module = original.Clone();
  HloComputation* entry = module->entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError("module has no entry computation");
  }
  std::vector<HloInstruction*> order = entry->MakeInstructionPostOrder();
  for (const HloInstruction* instr : order) {
    HLOC_RETURN_IF_ERROR(CheckShape(instr->shape(), instr));
  }
  BufferPlan plan = MakeBufferPlan(order);

  CpuModuleEmitter emitter(module->name(), options.codegen);
  std::vector<CpuStep> steps;
  for (const HloInstruction* instr : order) {
    switch (instr->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kAfterAll:
        continue;
      default:
        break;
    }
    if (IsBufferAlias(instr)) continue;
    CpuStep step;
    step.instruction = instr;
    absl::StatusOr<std::string> symbol =
        emitter.EmitKernel(*instr, absl::StrCat("hloc.", instr->name()));
    absl::Status status = symbol.status();
    if (status.ok()) {
      step.kind = CpuStep::Kind::kKernel;
      step.kernel_name = *symbol;
      for (const HloInstruction* operand : instr->operands()) {
        const std::vector<int64_t>& l = plan.leaves.at(operand);
        step.buffers.insert(step.buffers.end(), l.begin(), l.end());
      }
      const std::vector<int64_t>& l = plan.leaves.at(instr);
      step.buffers.insert(step.buffers.end(), l.begin(), l.end());
    } else if (absl::IsUnimplemented(status)) {
      step.kind = CpuStep::Kind::kEvaluator;
      step.fallback_reason = std::string(status.message());
      if (options.log_fallbacks) {
        std::fprintf(stderr, "hloc cpu: %s (%s) runs in the evaluator: %s\n",
                     instr->name().c_str(),
                     std::string(HloOpcodeString(instr->opcode())).c_str(),
                     step.fallback_reason.c_str());
      }
    } else {
      return status;
    }
    steps.push_back(std::move(step));
  }
  HLOC_ASSIGN_OR_RETURN(std::unique_ptr<JitModule> jit,
                        emitter.Finish(options.jit));
  for (CpuStep& step : steps) {
    if (step.kind != CpuStep::Kind::kKernel) continue;
    HLOC_ASSIGN_OR_RETURN(void* address, jit->Lookup(step.kernel_name));
    step.kernel = reinterpret_cast<void (*)(void**)>(address);
  }
  return std::make_unique<CpuExecutable>(std::move(module), std::move(plan),
                                         std::move(steps), std::move(jit));
}

absl::StatusOr<Literal> RunOnCpu(const HloModule& fused_module,
                                 absl::Span<const Literal> args) {
  HLOC_ASSIGN_OR_RETURN(std::unique_ptr<CpuExecutable> executable,
                        CompileForCpu(fused_module));
  return executable->Run(args);
}

absl::StatusOr<std::string> EmitCpuLlvmIr(const HloModule& module,
                                          const CpuCodegenOptions& options) {
  HLOC_RETURN_IF_ERROR(VerifyModule(module));
  CpuModuleEmitter emitter(module.name(), options);
  for (const HloInstruction* instr :
       module.entry_computation()->MakeInstructionPostOrder()) {
    switch (instr->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kAfterAll:
        continue;
      default:
        break;
    }
    if (IsBufferAlias(instr)) continue;
    absl::Status status =
        emitter.EmitKernel(*instr, absl::StrCat("hloc.", instr->name()))
            .status();
    if (!status.ok() && !absl::IsUnimplemented(status)) return status;
  }
  return emitter.ModuleText();
}

}  // namespace hloc

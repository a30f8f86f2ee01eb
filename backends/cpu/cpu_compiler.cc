#include "backends/cpu/cpu_compiler.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/common/collective_step.h"
#include "backends/common/compile_phase_times.h"
#include "backends/common/custom_call_support.h"
#include "backends/common/evaluator_fallback.h"
#include "backends/common/step_plan.h"
#include "backends/cpu/custom_call_targets.h"
#include "backends/cpu/library_calls.h"
#include "backends/cpu/target_cpu.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "hlo/text/printer.h"
#include "hlo/verifier.h"
#include "passes/tuple_layout.h"

namespace hloc {
namespace {

// The host runs the custom calls both CPU targets implement and, through
// its library calls (FFTW, LAPACK), the LAPACK targets JAX emits, which
// AArch64 ahead of time does not have yet.
bool HostSupportsCustomCall(absl::string_view target) {
  if (CpuSupportsCustomCall(target)) return true;
  static const std::vector<std::string>* library =
      new std::vector<std::string>(CpuLibraryCustomCallTargets());
  return std::find(library->begin(), library->end(), target) !=
         library->end();
}

}  // namespace

absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileForCpu(
    const HloModule& original, const CpuCompileOptions& options) {
  // Code generation trusts shapes and attributes: check them first.
  HLOC_RETURN_IF_ERROR(VerifyModule(original));
  HLOC_RETURN_IF_ERROR(
      CheckCustomCallTargets(original, HostSupportsCustomCall, "cpu"));
  std::unique_ptr<HloModule> module = original.Clone();
  HloComputation* entry = module->entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError("module has no entry computation");
  }
  // A valid module may hold a tuple element in another layout than its
  // operand's; the buffer plan needs the copy the pipeline would add.
  HLOC_RETURN_IF_ERROR(TupleLayout().Run(module.get()).status());
  std::vector<HloInstruction*> order = entry->MakeInstructionPostOrder();
  HLOC_RETURN_IF_ERROR(CheckCodegenShapes(order, "CPU backend"));
  HLOC_ASSIGN_OR_RETURN(BufferAssignment assignment,
                        AssignBuffers(*entry, order));
  Executable executable;
  executable.name = module->name();
  HLOC_RETURN_IF_ERROR(SetBufferPlan(assignment, *entry, &executable));
  if (options.keep_executable) {
    PrintOptions print_options;
    print_options.print_metadata = false;
    executable.hlo_module = PrintModule(*module, print_options);
  }

  // One resolved CPU for both the emitters' tiling and the JIT.
  HLOC_ASSIGN_OR_RETURN(
      TargetCpu cpu,
      ResolveTargetCpu(options.jit.cpu, options.jit.cpu_features));
  CpuCodegenOptions codegen = options.codegen;
  codegen.cpu_features = cpu.features;
  JitOptions jit_options = options.jit;
  jit_options.cpu = cpu.name;
  jit_options.cpu_features = cpu.features;
  jit_options.keep_object |= options.keep_executable;

  std::optional<ScopedPhaseTimer> emit_timer;
  emit_timer.emplace(
      PhaseField(options.jit.phase_times, &CompilePhaseTimes::emit_s));
  CpuModuleEmitter emitter(module->name(), codegen);
  FallbackReport fallbacks(
      "cpu", "runs in the evaluator",
      FallbackPolicy{options.allow_fallback, options.log_fallbacks});
  std::vector<CpuStep> steps;
  for (PlannedStep& planned : PlanSteps(order, assignment)) {
    const HloInstruction* instr = planned.instruction;
    CpuStep step;
    step.instruction = instr;
    step.buffers = std::move(planned.buffers);
    ExecutableStep runtime_step;
    runtime_step.instruction = instr->name();
    runtime_step.buffers = step.buffers;
    // Collectives run in the runtime, between the device threads of a
    // replicated run (runtime/host_collectives.h); a form the step maker
    // declines goes to the evaluator with its reason, like any other.
    HLOC_ASSIGN_OR_RETURN(
        CollectiveStepOrFallback collective,
        MakeCollectiveStepOrFallback(*instr, module->config(), step.buffers));
    if (collective.step.has_value()) {
      step.kind = CpuStep::Kind::kCollective;
      steps.push_back(std::move(step));
      executable.steps.push_back(*std::move(collective.step));
      continue;
    }
    HLOC_ASSIGN_OR_RETURN(bool library_call,
                          MakeCpuLibraryCall(*instr, executable,
                                             &runtime_step));
    if (library_call) {
      step.kind = CpuStep::Kind::kLibraryCall;
      step.library = runtime_step.library;
      steps.push_back(std::move(step));
      executable.steps.push_back(std::move(runtime_step));
      continue;
    }
    absl::StatusOr<std::string> symbol =
        collective.fallback.ok()
            ? emitter.EmitKernel(*instr, absl::StrCat("hloc.", instr->name()))
            : absl::StatusOr<std::string>(collective.fallback);
    absl::Status status = symbol.status();
    if (status.ok()) {
      step.kind = CpuStep::Kind::kKernel;
      step.kernel_name = *symbol;
      runtime_step.kind = ExecutableStep::Kind::kKernel;
      runtime_step.kernel_name = *symbol;
    } else if (absl::IsUnimplemented(status)) {
      step.kind = CpuStep::Kind::kEvaluator;
      step.fallback_reason = std::string(status.message());
      fallbacks.Add(*instr, step.fallback_reason);
      // Strict: the list of every such instruction is all that is left.
      if (!options.allow_fallback) continue;
      HLOC_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> fallback,
                            MakeFallbackModule(*instr));
      PrintOptions print_options;
      print_options.print_metadata = false;
      runtime_step.kind = ExecutableStep::Kind::kEvaluator;
      runtime_step.fallback_hlo = PrintModule(*fallback, print_options);
      runtime_step.fallback_reason = step.fallback_reason;
    } else {
      return status;
    }
    steps.push_back(std::move(step));
    executable.steps.push_back(std::move(runtime_step));
  }
  HLOC_RETURN_IF_ERROR(fallbacks.Check());
  emit_timer.reset();
  HLOC_ASSIGN_OR_RETURN(std::unique_ptr<JitModule> jit,
                        emitter.Finish(jit_options));
  for (CpuStep& step : steps) {
    if (step.kind != CpuStep::Kind::kKernel) continue;
    HLOC_ASSIGN_OR_RETURN(void* address, jit->Lookup(step.kernel_name));
    step.kernel = reinterpret_cast<void (*)(void**)>(address);
  }
  executable.target_triple = jit->target_triple();
  executable.cpu_name = jit->cpu_name();
  executable.cpu_features = jit->cpu_features();
  executable.object_code = jit->object_code();
  JitModule* kernels = jit.get();
  HLOC_ASSIGN_OR_RETURN(
      std::unique_ptr<CpuExecutor> executor,
      CpuExecutor::Create(std::move(executable),
                          [kernels](const std::string& symbol) {
                            return kernels->Lookup(symbol);
                          }));
  return std::make_unique<CpuExecutable>(
      std::move(module), std::move(assignment), std::move(steps),
      std::move(jit), std::move(executor));
}

absl::StatusOr<BufferAssignment> AssignCpuBuffers(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError("module has no entry computation");
  }
  return AssignBuffers(*entry, entry->MakeInstructionPostOrder());
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
    if (!RunsAsStep(*instr)) continue;
    absl::Status status =
        emitter.EmitKernel(*instr, absl::StrCat("hloc.", instr->name()))
            .status();
    if (!status.ok() && !absl::IsUnimplemented(status)) return status;
  }
  return emitter.ModuleText();
}

}  // namespace hloc

#include "backends/cpu/cpu_compiler.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/common/collective_step.h"
#include "backends/common/compile_phase_times.h"
#include "backends/common/control_flow_steps.h"
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

// Emits the runtime steps of one instruction on its slots: a collective
// step, a host library call, a generated kernel, or, for a while or a
// conditional no kernel can hold (a library call in its body or a branch),
// host-driven control flow whose nested steps are made the same way
// (backends/common/control_flow_steps.h); what none of these can do runs
// in the evaluator.
class CpuStepEmitter {
 public:
  CpuStepEmitter(const HloModule& module, CpuModuleEmitter* emitter,
                 Executable* executable)
      : module_(module), emitter_(emitter), executable_(executable) {}

  // The steps of `instr` on `slots` (its operands' leaves, then its
  // outputs'); fills `step`'s kind and what that kind needs. `in_place`:
  // the buffer plan put its output in the operand it updates
  // (UpdatesOperandInPlace), so its kernel stores only the update.
  absl::StatusOr<std::vector<ExecutableStep>> Emit(
      const HloInstruction& instr, const std::vector<int64_t>& slots,
      bool in_place, CpuStep* step) {
    ExecutableStep runtime_step;
    runtime_step.instruction = instr.name();
    runtime_step.buffers = slots;
    // Collectives run in the runtime, between the device threads of a
    // replicated run (runtime/host_collectives.h), only as top-level
    // steps; a form the step maker declines goes to the evaluator with
    // its reason, like any other.
    HLOC_ASSIGN_OR_RETURN(
        CollectiveStepOrFallback collective,
        MakeCollectiveStepOrFallback(instr, module_.config(), slots));
    if (collective.step.has_value()) {
      if (nesting_ > 0) {
        return absl::UnimplementedError(absl::StrCat(
            "collective ", instr.name(), " inside a while or a conditional"));
      }
      step->kind = CpuStep::Kind::kCollective;
      return std::vector<ExecutableStep>{*std::move(collective.step)};
    }
    HLOC_ASSIGN_OR_RETURN(
        bool library_call,
        MakeCpuLibraryCall(instr, *executable_, &runtime_step));
    if (library_call) {
      step->kind = CpuStep::Kind::kLibraryCall;
      step->library = runtime_step.library;
      return std::vector<ExecutableStep>{std::move(runtime_step)};
    }
    absl::StatusOr<std::string> symbol =
        collective.fallback.ok()
            ? (in_place ? emitter_->EmitInPlaceUpdateKernel(
                              instr,
                              absl::StrCat("hloc.", instr.name(), ".in_place"))
                        : emitter_->EmitKernel(
                              instr, absl::StrCat("hloc.", instr.name())))
            : absl::StatusOr<std::string>(collective.fallback);
    if (symbol.ok()) {
      step->kind = CpuStep::Kind::kKernel;
      step->kernel_name = *symbol;
      runtime_step.kind = ExecutableStep::Kind::kKernel;
      runtime_step.kernel_name = *symbol;
      return std::vector<ExecutableStep>{std::move(runtime_step)};
    }
    if (!absl::IsUnimplemented(symbol.status())) return symbol.status();
    if (instr.opcode() == HloOpcode::kWhile ||
        instr.opcode() == HloOpcode::kConditional) {
      // The nested instructions' fallbacks count only if the whole op is
      // driven from the host; otherwise the op itself is evaluated.
      const size_t reported = fallbacks_.size();
      const size_t slots_before = executable_->buffers.size();
      const size_t allocations_before = executable_->allocations.size();
      ++nesting_;
      absl::StatusOr<std::vector<ExecutableStep>> control =
          EmitControlFlowSteps(
              instr, slots,
              [this](const HloComputation& computation,
                     const std::vector<int64_t>& parameter_slots,
                     bool loop_body) {
                return EmitNested(computation, parameter_slots, loop_body);
              },
              executable_);
      --nesting_;
      if (control.ok()) {
        step->kind = CpuStep::Kind::kControlFlow;
        return control;
      }
      if (!absl::IsUnimplemented(control.status())) return control.status();
      fallbacks_.resize(reported);
      executable_->buffers.resize(slots_before);
      executable_->allocations.resize(allocations_before);
    }
    step->kind = CpuStep::Kind::kEvaluator;
    step->fallback_reason = std::string(symbol.status().message());
    fallbacks_.emplace_back(&instr, step->fallback_reason);
    HLOC_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> fallback,
                          MakeFallbackModule(instr));
    PrintOptions print_options;
    print_options.print_metadata = false;
    runtime_step.kind = ExecutableStep::Kind::kEvaluator;
    runtime_step.fallback_hlo = PrintModule(*fallback, print_options);
    runtime_step.fallback_reason = step->fallback_reason;
    return std::vector<ExecutableStep>{std::move(runtime_step)};
  }

  // The instructions that went to the evaluator since the last call, with
  // why.
  std::vector<std::pair<const HloInstruction*, std::string>> TakeFallbacks() {
    return std::exchange(fallbacks_, {});
  }

 private:
  // A called computation with its own buffer plan, its parameters' leaves
  // on `parameter_slots`.
  absl::StatusOr<NestedSteps> EmitNested(
      const HloComputation& computation,
      const std::vector<int64_t>& parameter_slots, bool loop_body) {
    HLOC_ASSIGN_OR_RETURN(
        NestedPlan plan,
        PlanNestedComputation(computation, parameter_slots, loop_body,
                              "CPU backend", BufferAssignmentOptions{},
                              executable_));
    NestedSteps nested;
    for (const PlannedStep& planned : PlanSteps(plan.order, plan.assignment)) {
      std::vector<int64_t> slots;
      for (int64_t value : planned.buffers) {
        slots.push_back(plan.slot_of[value]);
      }
      CpuStep step;
      HLOC_ASSIGN_OR_RETURN(
          std::vector<ExecutableStep> steps,
          Emit(*planned.instruction, slots,
               UpdatesOperandInPlace(*planned.instruction, plan.assignment),
               &step));
      for (ExecutableStep& s : steps) nested.steps.push_back(std::move(s));
    }
    nested.root_slots = std::move(plan.root_slots);
    return nested;
  }

  const HloModule& module_;
  CpuModuleEmitter* emitter_;
  Executable* executable_;
  // How many host-driven whiles and conditionals enclose what is emitted.
  int nesting_ = 0;
  std::vector<std::pair<const HloInstruction*, std::string>> fallbacks_;
};

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
  CpuStepEmitter step_emitter(*module, &emitter, &executable);
  std::vector<CpuStep> steps;
  for (PlannedStep& planned : PlanSteps(order, assignment)) {
    CpuStep step;
    step.instruction = planned.instruction;
    step.buffers = std::move(planned.buffers);
    // Slot i is value i (SetBufferPlan).
    HLOC_ASSIGN_OR_RETURN(
        std::vector<ExecutableStep> runtime_steps,
        step_emitter.Emit(*step.instruction, step.buffers,
                          UpdatesOperandInPlace(*step.instruction, assignment),
                          &step));
    for (const auto& [instr, reason] : step_emitter.TakeFallbacks()) {
      fallbacks.Add(*instr, reason);
    }
    // Strict: the list of every evaluated instruction is all that is left.
    if (step.kind == CpuStep::Kind::kEvaluator && !options.allow_fallback) {
      continue;
    }
    // One compiler step per runtime step (a host-driven while is its
    // initial copies and the loop).
    for (ExecutableStep& runtime_step : runtime_steps) {
      steps.push_back(step);
      executable.steps.push_back(std::move(runtime_step));
    }
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

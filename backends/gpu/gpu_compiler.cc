#include "backends/gpu/gpu_compiler.h"

#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/common/collective_step.h"
#include "backends/common/control_flow_steps.h"
#include "backends/common/custom_call_support.h"
#include "backends/common/step_plan.h"
#include "backends/gpu/amdgpu_target.h"
#include "backends/gpu/convolution_lowering.h"
#include "backends/gpu/custom_call_targets.h"
#include "backends/gpu/depthwise_conv.h"
#include "backends/gpu/dot_fusion_split.h"
#include "backends/gpu/fft_lowering.h"
#include "backends/gpu/gemm_lowering.h"
#include "backends/gpu/gpu_kernel_emitter.h"
#include "backends/gpu/nvptx_target.h"
#include "backends/gpu/ptxas.h"
#include "backends/gpu/solver_lowering.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "hlo/text/printer.h"
#include "hlo/verifier.h"
#include "runtime/buffer_assignment.h"

namespace hloc {
namespace {

// How the buffers of one step relate: which parameters share memory with
// another (so their pointers must not be noalias) and which output is its
// operand's buffer (an in-place dynamic-update-slice).
KernelBuffers AnalyzeStepBuffers(const HloInstruction& instr,
                                 const std::vector<int64_t>& slots,
                                 const BufferAssignment& assignment) {
  KernelBuffers result;
  size_t num_inputs = slots.size() - assignment.LeafValues(&instr).size();
  auto overlaps = [&](int64_t a, int64_t b) {
    const BufferValue& x = assignment.values[a];
    const BufferValue& y = assignment.values[b];
    return x.allocation == y.allocation && x.offset < y.offset + y.size &&
           y.offset < x.offset + x.size;
  };
  result.may_alias.assign(slots.size(), false);
  for (size_t i = 0; i < slots.size(); ++i) {
    for (size_t j = 0; j < slots.size(); ++j) {
      if (i == j) continue;
      // Two reads of one buffer are harmless; a write is not.
      bool written = i >= num_inputs || j >= num_inputs;
      if (written && overlaps(slots[i], slots[j])) result.may_alias[i] = true;
    }
  }
  bool array_operands =
      num_inputs == static_cast<size_t>(instr.operand_count());
  for (size_t o = num_inputs; o < slots.size(); ++o) {
    int64_t in_place = -1;
    if (array_operands) {
      for (size_t i = 0; i < num_inputs; ++i) {
        const BufferValue& x = assignment.values[slots[i]];
        const BufferValue& y = assignment.values[slots[o]];
        if (x.allocation == y.allocation && x.offset == y.offset) in_place = i;
      }
    }
    result.output_in_place_of.push_back(in_place);
  }
  return result;
}

// The GPU's buffer plans: scatters update their operand in place where it
// dies there (the scatter kernels then skip their copy of it;
// scatter_emitter.cc, OutputsInPlace): a scatter on a loop's state no
// longer copies the whole state every iteration.
BufferAssignmentOptions GpuBufferOptions() {
  BufferAssignmentOptions options;
  options.in_place_scatter = true;
  // Independent branches run side by side in the runtime's graphs.
  options.reuse_in_dataflow_order = true;
  return options;
}

std::string Arch(const GpuCompileOptions& options) {
  return options.arch.empty() ? DefaultGpuArch(options.platform) : options.arch;
}

absl::StatusOr<std::unique_ptr<GpuTarget>> MakeTarget(
    const GpuCompileOptions& options) {
  if (options.platform == "rocm") {
    return CreateAmdgpuTarget(Arch(options),
                              FindRocmDeviceLibs(options.rocm_device_libs));
  }
  if (options.platform != "cuda") {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown GPU platform '", options.platform, "' (cuda or rocm)"));
  }
  return CreateNvptxTarget(Arch(options), FindCudaPath(options.cuda_path));
}

// Whether dots and convolutions may become library calls (cuBLASLt and
// cuDNN on cuda); on rocm there is no BLAS or convolution library to call
// (Debian has neither rocBLAS nor MIOpen), so every dot is a tiled kernel
// from the shared emitters, its epilogue fused with it, and every
// convolution a dot (the rocm pipeline's convolution-to-gemm) or, where
// that does not pay, a direct kernel.
bool UsesVendorLibraries(const GpuTarget& target) {
  return target.platform() == "cuda";
}

struct CompiledModule {
  Executable executable;
  std::string llvm_ir;
  std::string assembly;
};

// Emits the steps of a computation (the entry, or one that a while or a
// conditional calls) on the slots of `executable`, collecting what cannot
// be compiled.
class StepEmitter {
 public:
  StepEmitter(GpuModuleEmitter* emitter, Executable* executable,
              bool vendor_libraries)
      : emitter_(emitter),
        executable_(executable),
        vendor_libraries_(vendor_libraries) {}

  const std::vector<std::string>& unsupported() const { return unsupported_; }

  // `slot_of` maps the assignment's values to the executable's slots.
  absl::StatusOr<std::vector<ExecutableStep>> Emit(
      const std::vector<HloInstruction*>& order,
      const BufferAssignment& assignment, const std::vector<int64_t>& slot_of) {
    std::vector<ExecutableStep> steps;
    for (const PlannedStep& planned : PlanSteps(order, assignment)) {
      const HloInstruction* instr = planned.instruction;
      std::vector<int64_t> slots;
      for (int64_t value : planned.buffers) slots.push_back(slot_of[value]);
      absl::Status status =
          EmitStep(*instr, planned.buffers, slots, assignment, &steps);
      if (absl::IsUnimplemented(status)) {
        unsupported_.push_back(absl::StrCat(instr->name(), " (",
                                            HloOpcodeString(instr->opcode()),
                                            "): ", status.message()));
      } else if (!status.ok()) {
        return status;
      }
    }
    return steps;
  }

  // A called computation with its own buffer plan, its parameters' leaves
  // on `parameter_slots` (control_flow_steps.h).
  absl::StatusOr<NestedSteps> EmitNested(
      const HloComputation& computation,
      const std::vector<int64_t>& parameter_slots, bool loop_body) {
    HLOC_ASSIGN_OR_RETURN(
        NestedPlan plan,
        PlanNestedComputation(computation, parameter_slots, loop_body,
                              "GPU backend", GpuBufferOptions(), executable_));
    NestedSteps nested;
    HLOC_ASSIGN_OR_RETURN(nested.steps,
                          Emit(plan.order, plan.assignment, plan.slot_of));
    nested.root_slots = std::move(plan.root_slots);
    return nested;
  }

 private:
  // The steps of one instruction, appended to `steps`.
  absl::Status EmitStep(const HloInstruction& instr,
                        const std::vector<int64_t>& values,
                        const std::vector<int64_t>& slots,
                        const BufferAssignment& assignment,
                        std::vector<ExecutableStep>* steps) {
    if (instr.opcode() == HloOpcode::kWhile ||
        instr.opcode() == HloOpcode::kConditional) {
      HLOC_ASSIGN_OR_RETURN(
          std::vector<ExecutableStep> control,
          EmitControlFlowSteps(
              instr, slots,
              [this](const HloComputation& computation,
                     const std::vector<int64_t>& parameter_slots,
                     bool loop_body) {
                return EmitNested(computation, parameter_slots, loop_body);
              },
              executable_));
      for (ExecutableStep& step : control) steps->push_back(std::move(step));
      return absl::OkStatus();
    }
    // Collectives meet the other devices in the runtime (NCCL).
    if (IsCollectiveStep(instr)) {
      HLOC_ASSIGN_OR_RETURN(
          ExecutableStep step,
          MakeCollectiveStep(instr, instr.parent()->parent()->config(),
                             slots));
      steps->push_back(std::move(step));
      return absl::OkStatus();
    }
    // Why no library call fits, where a dot or a convolution falls back
    // to a kernel.
    std::string no_gemm;
    // Depthwise convolutions are kernels of their own (depthwise_conv.h):
    // memory-bound, where cuDNN's engines are several times slower.
    if (vendor_libraries_ && instr.opcode() == HloOpcode::kConvolution &&
        !MatchDepthwiseConvolution(instr).has_value()) {
      absl::StatusOr<ExecutableStep> conv = MakeConvolutionStep(instr, slots);
      if (conv.ok()) {
        steps->push_back(*std::move(conv));
        return absl::OkStatus();
      }
      if (!absl::IsUnimplemented(conv.status())) return conv.status();
      no_gemm = absl::StrCat(conv.status().message(), "; ");
    }
    if (instr.opcode() == HloOpcode::kFft) {
      if (!vendor_libraries_) {
        // No kernel computes an FFT; cuFFT is cuda's, and Debian packages
        // no rocFFT.
        return absl::UnimplementedError(
            "fft: no FFT library on this platform (cuFFT on cuda only)");
      }
      absl::StatusOr<ExecutableStep> fft = MakeFftStep(instr, slots);
      if (!fft.ok()) return fft.status();
      steps->push_back(*std::move(fft));
      return absl::OkStatus();
    }
    // The triangular solves the cuda pipeline left unexpanded
    // (passes/pipelines.cc) are cuBLAS's trsm.
    if (vendor_libraries_ && instr.opcode() == HloOpcode::kTriangularSolve) {
      HLOC_ASSIGN_OR_RETURN(ExecutableStep trsm, MakeTrsmStep(instr, slots));
      steps->push_back(std::move(trsm));
      return absl::OkStatus();
    }
    if (vendor_libraries_ && instr.opcode() == HloOpcode::kCustomCall) {
      HLOC_ASSIGN_OR_RETURN(std::optional<ExecutableStep> solver,
                            MakeSolverStep(instr, slots));
      if (solver.has_value()) {
        steps->push_back(*std::move(solver));
        return absl::OkStatus();
      }
    }
    // JAX's host-LAPACK calls run on the host whatever the GPU (the
    // simulated one too).
    if (instr.opcode() == HloOpcode::kCustomCall) {
      HLOC_ASSIGN_OR_RETURN(std::optional<ExecutableStep> host,
                            MakeHostLapackStep(instr, slots));
      if (host.has_value()) {
        steps->push_back(*std::move(host));
        return absl::OkStatus();
      }
    }
    if (vendor_libraries_ && HasDot(instr)) {
      absl::StatusOr<std::optional<ExecutableStep>> gemm =
          MakeGemmStep(instr, slots);
      if (gemm.ok()) {
        if (gemm->has_value()) steps->push_back(std::move(**gemm));
        return absl::OkStatus();
      }
      if (!absl::IsUnimplemented(gemm.status())) return gemm.status();
      // An integer dot, a layout cuBLAS cannot read, a prologue: a kernel
      // from the shared emitters (the tiled dot kernel where it applies,
      // gpu_kernel_emitter.h).
      no_gemm = absl::StrCat(gemm.status().message(), "; ");
    }
    KernelBuffers buffers = AnalyzeStepBuffers(instr, values, assignment);
    absl::StatusOr<std::vector<GpuKernel>> kernels =
        emitter_->EmitKernels(instr, instr.name(), buffers);
    if (!kernels.ok()) {
      return absl::Status(kernels.status().code(),
                          absl::StrCat(no_gemm, kernels.status().message()));
    }
    for (const GpuKernel& kernel : *kernels) {
      ExecutableStep step;
      step.kind = ExecutableStep::Kind::kKernel;
      step.instruction = instr.name();
      step.kernel_name = kernel.name;
      step.buffers = slots;
      step.output_buffers =
          static_cast<int64_t>(assignment.LeafValues(&instr).size());
      step.launch = kernel.launch;
      steps->push_back(std::move(step));
    }
    return absl::OkStatus();
  }

  GpuModuleEmitter* emitter_;
  Executable* executable_;
  bool vendor_libraries_;
  std::vector<std::string> unsupported_;
};

// Emits every step's kernels; `stop_at_llvm` skips code generation,
// `stop_at_assembly` stops at the target's assembly text.
absl::StatusOr<CompiledModule> Compile(const HloModule& original,
                                       const GpuCompileOptions& options,
                                       bool stop_at_llvm,
                                       bool stop_at_assembly = false) {
  std::optional<ScopedPhaseTimer> emit_timer;
  emit_timer.emplace(
      PhaseField(options.phase_times, &CompilePhaseTimes::emit_s));
  HLOC_RETURN_IF_ERROR(VerifyModule(original));
  std::unique_ptr<HloModule> module = original.Clone();
  HloComputation* entry = module->entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError("module has no entry computation");
  }
  // What no kernel can run is named before anything is compiled.
  HLOC_RETURN_IF_ERROR(
      CheckCustomCallTargets(*module,
                             [&](absl::string_view custom_call_target) {
                               return GpuSupportsCustomCall(custom_call_target,
                                                            options.platform);
                             },
                             options.platform));
  std::unique_ptr<GpuTarget> owned_target;
  if (options.target == nullptr) {
    HLOC_ASSIGN_OR_RETURN(owned_target, MakeTarget(options));
  }
  const GpuTarget* target =
      options.target != nullptr ? options.target : owned_target.get();
  if (UsesVendorLibraries(*target)) {
    HLOC_RETURN_IF_ERROR(SplitDotFusions(module.get()));
  }
  std::vector<HloInstruction*> order = entry->MakeInstructionPostOrder();
  HLOC_RETURN_IF_ERROR(CheckCodegenShapes(order, "GPU backend"));
  HLOC_ASSIGN_OR_RETURN(BufferAssignment assignment,
                        AssignBuffers(*entry, order, GpuBufferOptions()));
  CompiledModule compiled;
  Executable& executable = compiled.executable;
  executable.name = module->name();
  executable.platform = target->platform();
  executable.target_triple = target->triple();
  HLOC_RETURN_IF_ERROR(SetBufferPlan(assignment, *entry, &executable));
  PrintOptions print_options;
  print_options.print_metadata = false;
  executable.hlo_module = PrintModule(*module, print_options);

  GpuModuleEmitter emitter(module->name(), *target);
  StepEmitter steps(&emitter, &executable, UsesVendorLibraries(*target));
  std::vector<int64_t> identity(assignment.values.size());
  for (size_t v = 0; v < identity.size(); ++v) identity[v] = v;
  HLOC_ASSIGN_OR_RETURN(executable.steps,
                        steps.Emit(order, assignment, identity));
  const std::vector<std::string>& unsupported = steps.unsupported();
  if (!unsupported.empty()) {
    return absl::UnimplementedError(
        absl::StrCat("the GPU backend cannot compile:\n  ",
                     absl::StrJoin(unsupported, "\n  ")));
  }
  if (stop_at_llvm) {
    compiled.llvm_ir = emitter.ModuleText();
    return compiled;
  }
  emit_timer.reset();
  if (stop_at_assembly) {
    HLOC_ASSIGN_OR_RETURN(compiled.assembly,
                          emitter.Finish(options.phase_times, true));
    return compiled;
  }
  HLOC_ASSIGN_OR_RETURN(std::string ptx, emitter.Finish(options.phase_times));
  executable.device_code.push_back(
      {target->code_format(), target->device().arch, ptx});
  if (options.emit_cubin && target->code_format() == "ptx") {
    std::string ptxas = FindPtxas(FindCudaPath(options.cuda_path));
    if (!ptxas.empty()) {
      std::optional<ScopedPhaseTimer> assemble_timer;
      assemble_timer.emplace(
          PhaseField(options.phase_times, &CompilePhaseTimes::assemble_s));
      HLOC_ASSIGN_OR_RETURN(std::string cubin,
                            RunPtxas(ptxas, ptx, target->device().arch));
      assemble_timer.reset();
      executable.device_code.push_back({"cubin", target->device().arch, cubin});
    }
  }
  if (options.target == nullptr) {
    HLOC_RETURN_IF_ERROR(ValidateExecutable(executable));
  }
  return compiled;
}

}  // namespace

absl::StatusOr<Executable> CompileForGpu(const HloModule& module,
                                         const GpuCompileOptions& options) {
  HLOC_ASSIGN_OR_RETURN(CompiledModule compiled,
                        Compile(module, options, /*stop_at_llvm=*/false));
  return std::move(compiled.executable);
}

std::string DefaultGpuArch(const std::string& platform) {
  return platform == "rocm" ? "gfx942" : "sm_90";
}

const std::vector<std::pair<std::string, std::string>>& GpuStages(
    const std::string& platform) {
  static const auto* cuda =
      new std::vector<std::pair<std::string, std::string>>{
          {"llvm", "the kernels' LLVM IR as emitted"},
          {"ptx", "the kernels' PTX (after the O3 pipeline and libdevice)"},
          {"executable",
           "the executable the CUDA runtime runs (-o FILE.hloexe; without -o, "
           "a summary)"},
      };
  static const auto* rocm =
      new std::vector<std::pair<std::string, std::string>>{
          {"llvm", "the kernels' LLVM IR as emitted"},
          {"asm", "the kernels' GCN assembly (after the O3 pipeline and ocml)"},
          {"hsaco", "the HSA code object lld links (-o FILE.hsaco)"},
          {"executable",
           "the executable the HIP runtime runs (-o FILE.hloexe; without -o, "
           "a summary)"},
      };
  return platform == "rocm" ? *rocm : *cuda;
}

absl::StatusOr<std::string> GpuStageOutput(const HloModule& module,
                                           const std::string& stage,
                                           const GpuCompileOptions& options,
                                           bool summary) {
  bool known = false;
  for (const auto& entry : GpuStages(options.platform)) {
    known |= entry.first == stage;
  }
  if (!known) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown ", options.platform, " stage '", stage, "'"));
  }
  if (stage == "llvm") {
    HLOC_ASSIGN_OR_RETURN(CompiledModule compiled,
                          Compile(module, options, /*stop_at_llvm=*/true));
    return compiled.llvm_ir;
  }
  if (stage == "asm") {
    HLOC_ASSIGN_OR_RETURN(CompiledModule compiled,
                          Compile(module, options, /*stop_at_llvm=*/false,
                                  /*stop_at_assembly=*/true));
    return compiled.assembly;
  }
  GpuCompileOptions compile_options = options;
  if (stage == "ptx") compile_options.emit_cubin = false;
  HLOC_ASSIGN_OR_RETURN(Executable executable,
                        CompileForGpu(module, compile_options));
  if (stage == "ptx" || stage == "hsaco") {
    return executable.device_code[0].code;
  }
  if (summary) return DescribeExecutable(executable);
  return SerializeExecutable(executable);
}

}  // namespace hloc

#include "python/program.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/cpu_compiler.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/printer.h"
#include "passes/host_callbacks.h"
#include "passes/pipelines.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_executor.h"
#include "runtime/denormals.h"
#include "runtime/executable.h"
#include "runtime/object_loader.h"
#include "tools/compile_stages.h"
#include "tools/hlo_run_lib.h"

namespace hloc {

struct Program::State {
  // Exactly one of these runs the program.
  std::unique_ptr<HloModule> interpreted;
  std::unique_ptr<CpuExecutable> compiled;
  std::unique_ptr<LoadedCpuExecutable> loaded;
  std::unique_ptr<CudaExecutor> cuda;
  // Whether `compiled` kept its object code for Save.
  bool saveable = false;
};

namespace {

absl::Status CheckPlatform(const std::string& platform) {
  for (const std::string& known : ProgramPlatforms()) {
    if (platform == known) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown platform '", platform,
      "' (available: ", absl::StrJoin(ProgramPlatforms(), ", "), ")"));
}

// The fallback choice means something only where a backend compiles with
// an evaluator beside it (hlo-run's --fallback / --no-fallback rules).
absl::Status CheckFallbackChoice(const ProgramOptions& options) {
  if (!options.allow_fallback.has_value()) return absl::OkStatus();
  if (options.platform == "interpreter") {
    return absl::InvalidArgumentError(
        "fallback: the interpreter platform compiles nothing");
  }
  if (options.platform == "cuda" && *options.allow_fallback) {
    return absl::InvalidArgumentError(
        "fallback: the cuda backend has no evaluator fallback (it is always "
        "strict)");
  }
  return absl::OkStatus();
}

absl::Status CudaNotAvailable(absl::string_view why) {
  return absl::FailedPreconditionError(
      absl::StrCat("the cuda platform is not available: ", why));
}

// The cuda compiler and a device, or why not: both reasons when both are
// missing, so a user on a machine without a GPU learns of both at once.
absl::StatusOr<Executable> CompileForCuda(const HloModule& module) {
  const CudaModuleCompiler compiler = CudaCompiler();
  absl::StatusOr<cuda::CudaDriver*> driver = cuda::CudaDriver::Get();
  if (!compiler) {
    std::string why =
        "this build of hloc has no cuda compiler (backends/gpu)";
    if (!driver.ok()) {
      absl::StrAppend(&why,
                      "; and no CUDA device here: ", driver.status().message());
    }
    return CudaNotAvailable(why);
  }
  if (!driver.ok()) return CudaNotAvailable(driver.status().message());
  return compiler(module);
}

}  // namespace

std::vector<std::string> ProgramPlatforms() {
  return {"interpreter", "cpu", "cuda"};
}

absl::StatusOr<OptimizedModule> OptimizeModule(const HloModule& module,
                                               const ProgramOptions& options) {
  absl::Status known = CheckPlatform(options.platform);
  if (!known.ok()) return known;
  absl::Status fallback = CheckFallbackChoice(options);
  if (!fallback.ok()) return fallback;
  OptimizedModule optimized;
  optimized.module = module.Clone();
  optimized.options = options;
  // The evaluator is the oracle: it runs the module as JAX gave it, but
  // for the Python callbacks no platform runs (refused here, as the
  // pipelines refuse them, or dropped).
  if (options.platform == "interpreter") {
    absl::StatusOr<bool> changed =
        HostCallbacks(options.drop_debug_callbacks).Run(optimized.module.get());
    if (!changed.ok()) return changed.status();
    return optimized;
  }
  PipelineOptions pipeline_options;
  pipeline_options.verify = options.verify_each;
  pipeline_options.drop_debug_callbacks = options.drop_debug_callbacks;
  absl::StatusOr<HloPassPipeline> pipeline = MakePipeline(
      options.platform, pipeline_options, &optimized.fusion_report);
  if (!pipeline.ok()) return pipeline.status();
  absl::StatusOr<bool> changed = pipeline->Run(optimized.module.get());
  if (!changed.ok()) return changed.status();
  return optimized;
}

absl::StatusOr<std::string> ModuleStage(const OptimizedModule& optimized,
                                        const std::string& stage) {
  if (stage == "hlo") return PrintModule(*optimized.module);
  const std::string& platform = optimized.options.platform;
  if (!HasStage(BackendStages(platform), stage)) {
    std::vector<std::string> names;
    for (const auto& entry : CommonStages()) names.push_back(entry.first);
    for (const auto& entry : BackendStages(platform)) {
      names.push_back(entry.first);
    }
    return absl::InvalidArgumentError(
        absl::StrCat("unknown stage '", stage, "' for platform '", platform,
                     "' (stages: ", absl::StrJoin(names, ", "), ")"));
  }
  // A stage compiles as Program::Compile would, strict or not.
  StageOptions options;
  options.cpu.allow_fallback =
      optimized.options.allow_fallback.value_or(options.cpu.allow_fallback);
  return BackendStageOutput(*optimized.module, platform, stage,
                            /*summary=*/true, options);
}

absl::StatusOr<std::string> SerializedExecutable(
    const OptimizedModule& optimized) {
  const std::string& platform = optimized.options.platform;
  if (platform == "interpreter") {
    return absl::InvalidArgumentError(
        "the interpreter platform has no executable");
  }
  StageOptions options;
  options.cpu.allow_fallback =
      optimized.options.allow_fallback.value_or(options.cpu.allow_fallback);
  return BackendStageOutput(*optimized.module, platform, "executable",
                            /*summary=*/false, options);
}

absl::StatusOr<std::unique_ptr<Program>> Program::Compile(
    const OptimizedModule& optimized) {
  const std::string& platform = optimized.options.platform;
  absl::Status known = CheckPlatform(platform);
  if (!known.ok()) return known;
  std::unique_ptr<Program> program(new Program());
  program->platform_ = platform;
  program->state_ = std::make_shared<State>();
  State& state = *program->state_;
  const HloComputation& entry = *optimized.module->entry_computation();
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    program->parameter_shapes_.push_back(
        entry.parameter_instruction(i)->shape());
  }
  program->result_shape_ = entry.root_instruction()->shape();
  if (platform == "interpreter") {
    state.interpreted = optimized.module->Clone();
  } else if (platform == "cpu") {
    CpuCompileOptions options;
    options.keep_executable = optimized.options.saveable;
    options.allow_fallback =
        optimized.options.allow_fallback.value_or(options.allow_fallback);
    absl::StatusOr<std::unique_ptr<CpuExecutable>> compiled =
        CompileForCpu(*optimized.module, options);
    if (!compiled.ok()) return compiled.status();
    state.compiled = *std::move(compiled);
    state.saveable = options.keep_executable;
  } else {
    absl::StatusOr<Executable> executable = CompileForCuda(*optimized.module);
    if (!executable.ok()) return executable.status();
    absl::StatusOr<std::unique_ptr<CudaExecutor>> executor =
        CudaExecutor::Create(*std::move(executable));
    if (!executor.ok()) {
      if (cuda::IsNoCudaDevice(executor.status())) {
        return CudaNotAvailable(executor.status().message());
      }
      return executor.status();
    }
    state.cuda = *std::move(executor);
  }
  return program;
}

absl::StatusOr<std::unique_ptr<Program>> Program::Load(
    const std::string& path) {
  absl::StatusOr<std::unique_ptr<LoadedCpuExecutable>> loaded =
      LoadCpuExecutableFile(path);
  if (!loaded.ok()) return loaded.status();
  std::unique_ptr<Program> program(new Program());
  program->platform_ = "cpu";
  const Executable& executable = (*loaded)->executable();
  program->parameter_shapes_ = executable.parameter_shapes;
  program->result_shape_ = executable.result_shape;
  program->state_ = std::make_shared<State>();
  program->state_->loaded = *std::move(loaded);
  return program;
}

absl::StatusOr<Literal> Program::Run(
    absl::Span<const Literal> arguments) const {
  if (arguments.size() != parameter_shapes_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the program takes ", parameter_shapes_.size(),
                     " arguments, given ", arguments.size()));
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (!arguments[i].shape().Compatible(parameter_shapes_[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", i, " has shape ", arguments[i].shape().ToString(),
          ", the parameter takes ", parameter_shapes_[i].ToString()));
    }
  }
  const State& state = *state_;
  if (state.interpreted) {
    // As hlo-run's interpreter and XLA's runtimes: denormal f32/f64 inputs
    // read as zeros and denormal results are flushed (runtime/denormals.h).
    // The compiled platforms' executors do the same themselves.
    // Flushed before the mode is set (runtime/denormals.h says why).
    const std::vector<Literal> flushed = FlushedCopies(arguments);
    const ScopedDenormalMode mode(DenormalMode::kFlush);
    return EvaluateModule(*state.interpreted, flushed);
  }
  if (state.compiled) return state.compiled->Run(arguments);
  if (state.loaded) return state.loaded->Run(arguments);
  return state.cuda->Run(arguments);
}

absl::Status Program::Save(const std::string& path) const {
  const Executable* executable = nullptr;
  if (state_->compiled) executable = &state_->compiled->executable();
  if (state_->loaded) executable = &state_->loaded->executable();
  if (executable == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "only cpu programs can be saved, this one is for ", platform_));
  }
  if (state_->compiled && !state_->saveable) {
    return absl::FailedPreconditionError(
        "the program was not compiled to be saved (ProgramOptions::saveable)");
  }
  return WriteExecutableFile(path, *executable);
}

int64_t Program::fallback_runs() const {
  if (state_->compiled) return state_->compiled->fallback_runs();
  if (state_->loaded) return state_->loaded->fallback_runs();
  if (state_->cuda) return state_->cuda->fallback_runs();
  return 0;
}

}  // namespace hloc

#include "tools/hlo_run_lib.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/aarch64_aot.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/gpu/gpu_compiler.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "runtime/executable.h"
#include "runtime/host_collectives.h"
#include "runtime/object_loader.h"
#include "tools/hlo_run_cuda.h"
#include "tools/hlo_run_rocm.h"

namespace hloc {
namespace {

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

// `platform`'s pipeline as `options` ask (excess precision, disabled
// passes).
absl::StatusOr<HloPassPipeline> PipelineFor(absl::string_view platform,
                                            const HloRunOptions& options) {
  PipelineOptions pipeline_options;
  pipeline_options.allow_excess_precision = options.allow_excess_precision;
  pipeline_options.disabled_passes = options.disabled_passes;
  return MakePipeline(platform, pipeline_options);
}

// A copy of `module` after `platform`'s pipeline (PipelineFor).
absl::StatusOr<std::unique_ptr<HloModule>> Optimize(
    absl::string_view platform, const HloModule& module,
    const HloRunOptions& options) {
  std::unique_ptr<HloModule> optimized = module.Clone();
  absl::StatusOr<HloPassPipeline> pipeline = PipelineFor(platform, options);
  if (!pipeline.ok()) return pipeline.status();
  absl::StatusOr<bool> changed = pipeline->Run(optimized.get());
  if (!changed.ok()) return changed.status();
  return optimized;
}

// The cpu platform: the cpu pipeline (simplification and fusion) on a copy
// of the module, then LLVM code generation, JIT and a run. Compile and run
// times go to stderr so the result table on stdout stays comparable.
absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileForCpuPlatform(
    const HloModule& module, const HloRunOptions& options) {
  absl::StatusOr<std::unique_ptr<HloModule>> optimized =
      Optimize("cpu", module, options);
  if (!optimized.ok()) return optimized.status();
  CpuCompileOptions compile_options;
  compile_options.allow_fallback =
      options.allow_fallback.value_or(compile_options.allow_fallback);
  return CompileForCpu(**optimized, compile_options);
}

absl::StatusOr<Literal> RunOnCpuPlatform(const HloModule& module,
                                         absl::Span<const Literal> arguments,
                                         const HloRunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpuPlatform(module, options);
  if (!executable.ok()) return executable.status();
  const double compile_ms = MillisecondsSince(start);
  const auto run_start = std::chrono::steady_clock::now();
  absl::StatusOr<Literal> result =
      (*executable)
          ->Run(arguments, options.denormals, options.max_while_iterations);
  std::cerr << absl::StrFormat("cpu: compiled in %.1f ms, ran in %.3f ms\n",
                               compile_ms, MillisecondsSince(run_start));
  if (!result.ok() || options.iterations == 0) return result;
  // The same executable again: --iterations times runs, not compilations.
  absl::Status timed = TimeRepeatedRuns(
      "cpu", options.iterations,
      [&] {
        return (*executable)
            ->Run(arguments, options.denormals, options.max_while_iterations)
            .status();
      },
      std::cerr);
  if (!timed.ok()) return timed;
  return result;
}

// --replicas on the cpu: compiled once, then every device runs the
// executable on a thread of its own, the collectives meeting in host
// memory (runtime/host_collectives.h).
absl::StatusOr<std::vector<Literal>> RunReplicatedOnCpuPlatform(
    const HloModule& module, absl::Span<const std::vector<Literal>> arguments,
    const HloRunOptions& options) {
  if (options.target != "host") {
    return absl::InvalidArgumentError(
        "--replicas runs on the host target only (qemu runs one device)");
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpuPlatform(module, options);
  if (!executable.ok()) return executable.status();
  const double compile_ms = MillisecondsSince(start);
  const auto run_start = std::chrono::steady_clock::now();
  HostCollectives collectives(static_cast<int64_t>(arguments.size()));
  absl::StatusOr<std::vector<Literal>> results =
      RunOnHostDevices(collectives, [&](int64_t device) {
        return (*executable)
            ->Run(arguments[device], options.denormals,
                  options.max_while_iterations,
                  HostReplica{device, &collectives});
      });
  std::cerr << absl::StrFormat(
      "cpu: compiled in %.1f ms, ran %d devices in %.3f ms\n", compile_ms,
      arguments.size(), MillisecondsSince(run_start));
  return results;
}

// --platform=cpu --target=aarch64: the same pipeline, then AArch64 object
// code linked with the AOT driver and run under qemu (aarch64_aot.h).
absl::StatusOr<Literal> RunOnAarch64Platform(
    const HloModule& module, absl::Span<const Literal> arguments,
    const HloRunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<HloModule>> optimized =
      Optimize("cpu", module, options);
  if (!optimized.ok()) return optimized.status();
  Aarch64AotOptions compile_options;
  compile_options.allow_fallback =
      options.allow_fallback.value_or(compile_options.allow_fallback);
  absl::StatusOr<Aarch64AotModule> compiled =
      CompileForAarch64(**optimized, compile_options);
  if (!compiled.ok()) return compiled.status();
  const double compile_ms = MillisecondsSince(start);
  Aarch64RunStats stats;
  Aarch64RunOptions run_options;
  run_options.stats = &stats;
  absl::StatusOr<Literal> result =
      RunAarch64UnderQemu(*compiled, arguments, run_options);
  if (result.ok()) {
    std::cerr << absl::StrFormat(
        "cpu (aarch64): compiled in %.1f ms, linked in %.1f ms, ran under "
        "qemu in %.1f ms (entry %.3f ms)\n",
        compile_ms, stats.link_ms, stats.qemu_ms, stats.entry_ms);
  }
  return result;
}

// --no-fallback with a saved executable: it is compiled already, so strict
// means refusing to run one that has evaluator steps, naming each.
absl::Status CheckNoEvaluatorSteps(const Executable& executable) {
  // Nested ones (host-driven control flow) too.
  std::vector<std::string> steps;
  ForEachStep(executable.steps, [&](const ExecutableStep& step) {
    if (step.kind == ExecutableStep::Kind::kEvaluator) {
      steps.push_back(absl::StrCat(step.instruction, ": ", step.fallback_reason));
    }
  });
  if (steps.empty()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat(
      "strict mode (--no-fallback): the saved executable runs ", steps.size(),
      steps.size() == 1 ? " instruction" : " instructions",
      " in the reference evaluator:\n  ", absl::StrJoin(steps, "\n  ")));
}

// A saved cpu executable: its object code linked in, nothing compiled.
absl::StatusOr<SavedExecutable> LoadCpuExecutable(
    const HloRunOptions& options) {
  if (options.target != "host") {
    return absl::InvalidArgumentError(
        absl::StrCat(options.module_path,
                     ": a saved executable runs on --platform=cpu (host)"));
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<LoadedCpuExecutable>> executable =
      LoadCpuExecutableFile(options.module_path);
  if (!executable.ok()) return executable.status();
  const std::string& text = (*executable)->executable().hlo_module;
  if (text.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        options.module_path, ": the executable carries no module text"));
  }
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, absl::StrCat(options.module_path, " (its module)"));
  if (!module.ok()) return module.status();
  std::cerr << absl::StrFormat("cpu: loaded %s in %.1f ms (no compilation)\n",
                               options.module_path, MillisecondsSince(start));
  SavedExecutable saved;
  saved.module = *std::move(module);
  std::shared_ptr<LoadedCpuExecutable> loaded = *std::move(executable);
  const bool strict = !options.allow_fallback.value_or(true);
  saved.run =
      [loaded, strict, options](
          absl::Span<const Literal> arguments) -> absl::StatusOr<Literal> {
    if (strict) {
      absl::Status status = CheckNoEvaluatorSteps(loaded->executable());
      if (!status.ok()) return status;
    }
    const auto run_start = std::chrono::steady_clock::now();
    absl::StatusOr<Literal> result =
        loaded->Run(arguments, options.denormals, options.max_while_iterations);
    std::cerr << absl::StrFormat("cpu: ran in %.3f ms\n",
                                 MillisecondsSince(run_start));
    if (!result.ok() || options.iterations == 0) return result;
    absl::Status timed = TimeRepeatedRuns(
        "cpu", options.iterations,
        [&] {
          return loaded
              ->Run(arguments, options.denormals, options.max_while_iterations)
              .status();
        },
        std::cerr);
    if (!timed.ok()) return timed;
    return result;
  };
  return saved;
}

HloRunPlatform CpuPlatform() {
  HloRunPlatform platform;
  platform.name = "cpu";
  platform.run_module = [](const HloModule& module,
                           absl::Span<const Literal> arguments,
                           const HloRunOptions& options) {
    return options.target == "aarch64"
               ? RunOnAarch64Platform(module, arguments, options)
               : RunOnCpuPlatform(module, arguments, options);
  };
  platform.load_executable = LoadCpuExecutable;
  platform.run_replicated = RunReplicatedOnCpuPlatform;
  platform.check_options = [](const HloRunOptions& options) -> absl::Status {
    if (options.target == "aarch64") {
      // The module runs once under qemu, in a driver with no limit.
      if (options.max_while_iterations > 0 || options.iterations > 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "flag --",
            options.iterations > 0 ? "iterations" : "max-while-iterations",
            ": --target=aarch64 runs once under qemu without it (the host "
            "target has it)"));
      }
    }
    if (options.time_run) {
      return absl::InvalidArgumentError(
          "flag --time-run: CUDA timing; cpu's --iterations time whole runs "
          "already");
    }
    if (options.disabled_passes.empty()) return absl::OkStatus();
    absl::StatusOr<HloPassPipeline> pipeline = PipelineFor("cpu", options);
    if (!pipeline.ok()) return pipeline.status();
    absl::Status names = pipeline->CheckDisabledPasses();
    if (names.ok()) return names;
    return absl::InvalidArgumentError(
        absl::StrCat("flag --disable-passes: ", names.message()));
  };
  return platform;
}

// The cuda compiler: the cuda pipeline on a copy of the module, then
// backends/gpu (PTX, and a cubin where ptxas is found).
absl::StatusOr<Executable> CompileForCudaPlatform(const HloModule& module) {
  absl::StatusOr<std::unique_ptr<HloModule>> optimized =
      Optimize("cuda", module, HloRunOptions());
  if (!optimized.ok()) return optimized.status();
  return CompileForGpu(**optimized);
}

// The rocm compiler: the rocm pipeline, then backends/gpu's AMDGPU target
// (an HSA code object for gfx942, the default architecture).
absl::StatusOr<Executable> CompileForRocmPlatform(const HloModule& module) {
  absl::StatusOr<std::unique_ptr<HloModule>> optimized =
      Optimize("rocm", module, HloRunOptions());
  if (!optimized.ok()) return optimized.status();
  GpuCompileOptions options;
  options.platform = "rocm";
  options.arch = DefaultGpuArch("rocm");
  return CompileForGpu(**optimized, options);
}

}  // namespace

CudaModuleCompiler CudaCompiler() { return CompileForCudaPlatform; }

HloRunPlatforms HloRunAllPlatforms() {
  return {InterpreterPlatform(), CpuPlatform(),
          CudaHloRunPlatform(CudaCompiler()),
          RocmHloRunPlatform(CompileForRocmPlatform)};
}

std::vector<std::string> PlatformNames() {
  std::vector<std::string> names;
  for (const HloRunPlatform& platform : HloRunAllPlatforms()) {
    names.push_back(platform.name);
  }
  return names;
}

absl::StatusOr<PlatformRunner> GetPlatform(absl::string_view name) {
  for (HloRunPlatform& platform : HloRunAllPlatforms()) {
    if (platform.name != name) continue;
    return PlatformRunner(
        [run = std::move(platform.run_module)](
            const HloModule& module, absl::Span<const Literal> arguments) {
          return run(module, arguments, HloRunOptions());
        });
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown platform '", name,
      "' (available: ", absl::StrJoin(PlatformNames(), ", "), ")"));
}

std::string HloRunUsage() { return HloRunUsage(HloRunAllPlatforms()); }

int RunHloRun(const HloRunOptions& options, std::ostream& out,
              std::ostream& err) {
  return RunHloRun(options, HloRunAllPlatforms(), out, err);
}

int HloRunMain(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err) {
  return HloRunMain(args, HloRunAllPlatforms(), out, err);
}

}  // namespace hloc

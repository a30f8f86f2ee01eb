#include "tools/hlo_run_rocm.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hlo/text/parser.h"
#include "runtime/hip_executor.h"

namespace hloc {
namespace {

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

// Loads the executable onto the GPU and runs it once; times go to stderr.
absl::StatusOr<Literal> RunOnAmdGpu(const Executable& executable,
                                    absl::Span<const Literal> arguments,
                                    const HloRunOptions& options) {
  if (options.profile || options.iterations > 0) {
    return absl::UnimplementedError(
        "--profile and --iterations time kernels on cuda only; the rocm "
        "runtime does not time yet");
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<HipExecutor>> executor =
      HipExecutor::Create(executable);
  if (!executor.ok()) return executor.status();
  const double load_ms = MillisecondsSince(start);
  const auto run_start = std::chrono::steady_clock::now();
  absl::StatusOr<Literal> result = (*executor)->Run(arguments);
  if (!result.ok()) return result.status();
  std::cerr << absl::StrFormat(
      "rocm: %s, %s loaded in %.1f ms, ran in %.3f ms (%d kernel launches)\n",
      (*executor)->device_name(), (*executor)->loaded_code(), load_ms,
      MillisecondsSince(run_start), (*executor)->kernel_launches());
  return result;
}

absl::StatusOr<SavedExecutable> LoadRocmExecutable(
    const HloRunOptions& options) {
  absl::StatusOr<Executable> executable =
      ReadExecutableFile(options.module_path);
  if (!executable.ok()) return executable.status();
  if (executable->platform != "rocm") {
    return absl::InvalidArgumentError(
        absl::StrCat(options.module_path, ": the executable is for platform '",
                     executable->platform, "', not rocm"));
  }
  if (executable->hlo_module.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        options.module_path, ": the executable carries no module text"));
  }
  SavedExecutable saved;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(executable->hlo_module,
                     absl::StrCat(options.module_path, " (its module)"));
  if (!module.ok()) return module.status();
  saved.module = *std::move(module);
  auto shared = std::make_shared<Executable>(*std::move(executable));
  saved.run = [shared, options](absl::Span<const Literal> arguments) {
    return RunOnAmdGpu(*shared, arguments, options);
  };
  return saved;
}

}  // namespace

HloRunPlatform RocmHloRunPlatform(RocmModuleCompiler compiler) {
  HloRunPlatform platform;
  platform.name = "rocm";
  platform.load_executable = LoadRocmExecutable;
  platform.run_module =
      [compiler](const HloModule& module, absl::Span<const Literal> arguments,
                 const HloRunOptions& options) -> absl::StatusOr<Literal> {
    if (!compiler) {
      return absl::UnimplementedError(
          "the rocm compiler is not built into this binary: give a saved "
          "executable (hlo-opt --platform=rocm --stage=executable -o "
          "m.hloexe)");
    }
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<Executable> executable = compiler(module);
    if (!executable.ok()) return executable.status();
    std::cerr << absl::StrFormat("rocm: compiled in %.1f ms\n",
                                 MillisecondsSince(start));
    return RunOnAmdGpu(*executable, arguments, options);
  };
  return platform;
}

}  // namespace hloc

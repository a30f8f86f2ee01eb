#include "tools/hlo_run_rocm.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/hip_executor.h"

namespace hloc {
namespace {

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

}  // namespace

HloRunPlatform RocmHloRunPlatform(RocmModuleCompiler compiler) {
  return DeviceHloRunPlatform("rocm", std::move(compiler), RunOnAmdGpu);
}

}  // namespace hloc

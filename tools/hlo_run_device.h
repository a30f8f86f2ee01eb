// What hlo-run's GPU platforms (cuda, rocm) share: reading a saved
// executable of the platform and running it, or compiling a module first
// when the binary has the compiler. Each platform gives only how an
// executable is loaded onto its device and run.
#ifndef TOOLS_HLO_RUN_DEVICE_H_
#define TOOLS_HLO_RUN_DEVICE_H_

#include <chrono>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "runtime/executable.h"
#include "tools/hlo_run_core.h"

namespace hloc {

// Compiles a module into the platform's executable (null: not built in).
using DeviceModuleCompiler =
    std::function<absl::StatusOr<Executable>(const HloModule& module)>;

// Loads `executable` onto the device and runs it on `arguments`.
using DeviceRunner = std::function<absl::StatusOr<Literal>(
    const Executable& executable, absl::Span<const Literal> arguments,
    const HloRunOptions& options)>;

// Loads `executable` onto one device per argument list and runs them
// together (--replicas).
using DeviceReplicatedRunner =
    std::function<absl::StatusOr<std::vector<Literal>>(
        const Executable& executable,
        absl::Span<const std::vector<Literal>> arguments,
        const HloRunOptions& options)>;

// The platform `name`: saved executables must be of that platform and carry
// their module text; modules are compiled by `compiler` (the compile time
// on stderr) or refused with a message saying how to give an executable.
// `run_replicated` may be empty (the platform runs one device).
HloRunPlatform DeviceHloRunPlatform(
    const std::string& name, DeviceModuleCompiler compiler, DeviceRunner run,
    DeviceReplicatedRunner run_replicated = nullptr);

double MillisecondsSince(std::chrono::steady_clock::time_point start);

}  // namespace hloc

#endif  // TOOLS_HLO_RUN_DEVICE_H_

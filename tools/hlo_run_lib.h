// hlo-run: runs an HLO module on .npy inputs and compares its results with
// expected .npy outputs, on the interpreter, the cpu backend (host JIT or
// AArch64 under qemu), cuda or rocm. The flags, files, table and exit codes are
// tools/hlo_run_core.h's; this adds the platforms that compile.
#ifndef TOOLS_HLO_RUN_LIB_H_
#define TOOLS_HLO_RUN_LIB_H_

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "tools/hlo_run_core.h"
#include "tools/hlo_run_cuda.h"

namespace hloc {

// The cuda compiler when backends/gpu is built in, else empty: hlo-run's
// cuda platform then runs saved executables only, and the Python package
// says the platform is not available. The one place the compiler plugs in.
CudaModuleCompiler CudaCompiler();

// Every platform hlo-run has: interpreter, cpu, cuda, rocm.
HloRunPlatforms HloRunAllPlatforms();

// Something that runs a module on arguments.
using PlatformRunner = std::function<absl::StatusOr<Literal>(
    const HloModule& module, absl::Span<const Literal> arguments)>;

// The --platform names hlo-run knows, and the runner of one (with default
// options).
std::vector<std::string> PlatformNames();
absl::StatusOr<PlatformRunner> GetPlatform(absl::string_view name);

std::string HloRunUsage();
int RunHloRun(const HloRunOptions& options, std::ostream& out,
              std::ostream& err);
int HloRunMain(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err);

}  // namespace hloc

#endif  // TOOLS_HLO_RUN_LIB_H_

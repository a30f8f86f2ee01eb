// hlo-run: runs an HLO module on .npy inputs and compares its results with
// expected .npy outputs, on the interpreter, the cpu backend (host JIT or
// AArch64 under qemu) or cuda. The flags, files, table and exit codes are
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

namespace hloc {

// Every platform hlo-run has: interpreter, cpu, cuda.
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

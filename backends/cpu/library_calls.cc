#include "backends/cpu/library_calls.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "hlo/lapack_custom_call.h"
#include "runtime/cpu_library_call.h"
#include "runtime/cpu_topk.h"
#include "runtime/lapack_library.h"

namespace hloc {
namespace {

// Fills the config for `instruction`; false if it is no library call.
absl::StatusOr<bool> Configure(const HloInstruction& instruction,
                               ExecutableStep* step) {
  LibraryConfig& config = step->library_config;
  switch (instruction.opcode()) {
    case HloOpcode::kFft:
      step->library = "fft";
      config.fft_type = instruction.attrs().fft_type;
      config.fft_length = instruction.attrs().fft_length;
      return true;
    case HloOpcode::kCholesky:
      step->library = LapackLibraryName(LapackRoutine::kPotrf);
      config.uplo = instruction.attrs().cholesky_lower ? 'L' : 'U';
      config.hlo_cholesky = true;
      return true;
    case HloOpcode::kTriangularSolve: {
      const std::optional<TriangularSolveOptions>& options =
          instruction.attrs().triangular_solve_options;
      if (!options.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "triangular-solve ", instruction.name(), " has no options"));
      }
      step->library = LapackLibraryName(LapackRoutine::kTrsm);
      SetTriangularSolveCodes(*options, &config);
      return true;
    }
    case HloOpcode::kTopK: {
      const Shape& x = instruction.operand(0)->shape();
      if (!x.IsArray() || !CpuTopKSupportsType(x.element_type())) {
        return false;
      }
      step->library = CpuTopKLibraryName(instruction.attrs().largest);
      return true;
    }
    case HloOpcode::kCustomCall: {
      absl::StatusOr<std::optional<LapackCall>> call =
          ParseLapackCall(instruction);
      if (!call.ok()) return call.status();
      if (!call->has_value()) return false;
      step->library = LapackLibraryName((*call)->routine);
      SetLapackCodes(**call, &config);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

absl::StatusOr<bool> MakeCpuLibraryCall(const HloInstruction& instruction,
                                        const Executable& executable,
                                        ExecutableStep* step) {
  absl::StatusOr<bool> configured = Configure(instruction, step);
  if (!configured.ok() || !*configured) return configured;
  step->kind = ExecutableStep::Kind::kLibraryCall;
  absl::StatusOr<std::unique_ptr<CpuLibraryCall>> call =
      CpuLibraryCall::Create(executable, *step,
                             absl::StrCat(HloOpcodeString(instruction.opcode()),
                                          " ", instruction.name()));
  if (!call.ok()) return call.status();
  return true;
}

std::vector<std::string> CpuLibraryCustomCallTargets() {
  // The CUDA lowering's host-LAPACK calls are LAPACK on a host too: a
  // module JAX lowered for CUDA runs them here as the CPU's own.
  std::vector<std::string> targets = SupportedLapackTargets();
  for (const std::string& target : GpuHostLapackTargets()) {
    targets.push_back(target);
  }
  return targets;
}

}  // namespace hloc

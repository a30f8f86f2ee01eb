#include "backends/common/custom_call_support.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/computation.h"
#include "hlo/host_callbacks.h"

namespace hloc {

absl::Status CheckCustomCallTargets(
    const HloModule& module,
    const std::function<bool(absl::string_view target)>& supported,
    absl::string_view backend) {
  // No backend runs Python: say so, rather than that a target is missing
  // (a module that skipped its pipeline's host-callbacks pass).
  absl::Status callbacks = CheckNoPythonCallbacks(module);
  if (!callbacks.ok()) return callbacks;
  std::vector<std::string> unsupported;
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction :
         computation->MakeInstructionPostOrder()) {
      if (instruction->opcode() != HloOpcode::kCustomCall) continue;
      const std::string& target = instruction->attrs().custom_call_target;
      if (supported(target)) continue;
      unsupported.push_back(absl::StrCat(
          instruction->name(), " (custom-call): custom_call_target=\"", target,
          "\" has no ", backend, " implementation"));
    }
  }
  if (unsupported.empty()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("the ", backend,
                                               " backend cannot compile:\n  ",
                                               absl::StrJoin(unsupported,
                                                             "\n  ")));
}

}  // namespace hloc

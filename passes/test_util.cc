#include "passes/test_util.h"

#include "absl/strings/str_cat.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "hlo/verifier.h"

namespace hloc {

absl::StatusOr<std::unique_ptr<HloModule>> ParseAndVerify(
    absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "test");
  if (!module.ok()) return module.status();
  absl::Status status = VerifyModule(**module);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("test module does not verify: ", status.message()));
  }
  return module;
}

absl::StatusOr<bool> RunAndVerify(HloPass& pass, HloModule* module) {
  absl::StatusOr<bool> changed = pass.Run(module);
  if (!changed.ok()) return changed.status();
  absl::Status status = VerifyModule(*module);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("module invalid after ",
                                            pass.name(), ": ", status.message(),
                                            "\n", ModuleText(*module)));
  }
  return changed;
}

HloInstruction* FindInstruction(const HloModule& module,
                                absl::string_view name) {
  for (HloComputation* computation : module.computations()) {
    if (HloInstruction* found = computation->GetInstructionWithName(name)) {
      return found;
    }
  }
  return nullptr;
}

std::string ModuleText(const HloModule& module) { return PrintModule(module); }

}  // namespace hloc

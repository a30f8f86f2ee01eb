// What a compiler does with the instructions it generates no code for.
//
// The host CPU compiler can leave such an instruction to the reference
// evaluator at run time, which is correct but slow in ways the user cannot
// see; the AArch64 ahead-of-time target has no evaluator at all. So each
// compile decides once, by a policy the user chooses (hlo-opt / hlo-run
// --fallback, --no-fallback):
//   - strict: compilation fails, listing every such instruction with the
//     reason code generation gave, so the user sees all of them at once;
//   - allowed: compilation goes on, with exactly one one-line warning per
//     instruction on stderr (where the instruction would otherwise hide).
// FallbackReport collects the instructions while a compiler walks its
// steps and applies the policy.
#ifndef BACKENDS_COMMON_EVALUATOR_FALLBACK_H_
#define BACKENDS_COMMON_EVALUATOR_FALLBACK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hlo/instruction.h"

namespace hloc {

struct FallbackPolicy {
  // False: strict (any fallback fails the compilation).
  bool allow = true;
  // With `allow`: print the one-line warning per instruction.
  bool warn = true;
};

class FallbackReport {
 public:
  // `backend` names the compiler in messages ("cpu", "aarch64 AOT");
  // `consequence` says what becomes of such an instruction under this
  // compiler ("runs in the evaluator").
  FallbackReport(std::string backend, std::string consequence,
                 FallbackPolicy policy);

  // Records that code generation declined `instruction` for `reason`; when
  // fallback is allowed, prints
  //   hloc BACKEND: NAME (OPCODE) CONSEQUENCE: REASON
  // as one line on stderr (a multi-line reason is joined with "; ").
  void Add(const HloInstruction& instruction, absl::string_view reason);

  // OK unless strict and something was added: then Unimplemented,
  //   "BACKEND strict mode (--no-fallback): N instruction(s) would need the
  //   reference evaluator:\n  NAME (OPCODE): REASON\n  ..."
  absl::Status Check() const;

  // "NAME (OPCODE): REASON" of each instruction added, in order.
  const std::vector<std::string>& entries() const { return entries_; }

 private:
  std::string backend_;
  std::string consequence_;
  FallbackPolicy policy_;
  std::vector<std::string> entries_;
};

}  // namespace hloc

#endif  // BACKENDS_COMMON_EVALUATOR_FALLBACK_H_

// Call inlining ("call-inliner").
//
// Algorithm: visit computations callees first, so a callee's own calls are
// already inlined when it is copied into its callers. Each `call` is
// replaced by a copy of its to_apply computation's body in the caller: the
// callee's parameters are mapped to the call's operands, every other
// instruction is cloned (names kept, made unique by the module; metadata
// kept) with control edges between clones preserved, and the call's users
// are rewired to the clone of the callee's root. A callee left without
// callers is removed from the module.
//
// Calls with control dependencies are left alone (their ordering constraint
// would have to be spread over the inlined body).
#ifndef PASSES_CALL_INLINER_H_
#define PASSES_CALL_INLINER_H_

#include "passes/pass.h"

namespace hloc {

class CallInliner : public HloPass {
 public:
  absl::string_view name() const override { return "call-inliner"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// Inlines one call instruction into its computation; returns the
// instruction that replaced it (the clone of the callee's root).
absl::StatusOr<HloInstruction*> InlineCall(HloInstruction* call);

}  // namespace hloc

#endif  // PASSES_CALL_INLINER_H_

// Custom calls are opaque to every compiler and to the reference evaluator
// alike: a backend runs one only where it has an implementation of that
// custom_call_target (a kernel or a library call). So a module with any
// other custom call cannot run, and is refused when it is compiled, with
// each call and its target named, rather than becoming an executable that
// fails only when run. Each backend keeps the targets it implements in one
// registry function (backends/cpu/custom_call_targets.h,
// backends/gpu/custom_call_targets.h).
// JAX's Python host callbacks are refused first, by hlo/host_callbacks.h's
// error (no backend runs Python).
#ifndef BACKENDS_COMMON_CUSTOM_CALL_SUPPORT_H_
#define BACKENDS_COMMON_CUSTOM_CALL_SUPPORT_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hlo/module.h"

namespace hloc {

// Unimplemented, one line per custom call anywhere in `module` (called
// computations included) whose target `supported` rejects:
//   "the cpu backend cannot compile:\n  NAME (custom-call): ..."
// `backend` names the compiler in the message ("cpu", "aarch64 AOT").
absl::Status CheckCustomCallTargets(
    const HloModule& module,
    const std::function<bool(absl::string_view target)>& supported,
    absl::string_view backend);

}  // namespace hloc

#endif  // BACKENDS_COMMON_CUSTOM_CALL_SUPPORT_H_

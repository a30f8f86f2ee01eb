// The custom-call targets the CPU backend (host JIT and AArch64 AOT)
// implements: the one place that answers "does the cpu backend run this
// custom call?". Every other target is refused at compile time
// (backends/common/custom_call_support.h). A backend change that
// implements a target (an op emitter, a library step) adds its name here.
#ifndef BACKENDS_CPU_CUSTOM_CALL_TARGETS_H_
#define BACKENDS_CPU_CUSTOM_CALL_TARGETS_H_

#include "absl/strings/string_view.h"

namespace hloc {

bool CpuSupportsCustomCall(absl::string_view target);

}  // namespace hloc

#endif  // BACKENDS_CPU_CUSTOM_CALL_TARGETS_H_

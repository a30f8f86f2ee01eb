#include "backends/cpu/custom_call_targets.h"

#include <string>

#include "absl/container/flat_hash_set.h"

namespace hloc {

bool CpuSupportsCustomCall(absl::string_view target) {
  // One line per target both CPU targets (x86 JIT and AArch64 AOT)
  // implement. The host's library calls (library_calls.h: the LAPACK
  // targets) are added by cpu_compiler.cc. The sharding annotations are
  // not here: passes/sharding_remover.h removes them before compilation.
  static const auto* targets = new absl::flat_hash_set<std::string>{};
  return targets->contains(std::string(target));
}

}  // namespace hloc

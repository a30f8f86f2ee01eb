#include "backends/cpu/custom_call_targets.h"

#include <string>

#include "absl/container/flat_hash_set.h"

namespace hloc {

bool CpuSupportsCustomCall(absl::string_view target) {
  // One line per implemented target, e.g. "lapack_spotrf_ffi",. The
  // sharding annotations are not here: passes/sharding_remover.h removes
  // them before compilation.
  static const auto* targets = new absl::flat_hash_set<std::string>{};
  return targets->contains(std::string(target));
}

}  // namespace hloc

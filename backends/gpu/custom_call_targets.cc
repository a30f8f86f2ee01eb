#include "backends/gpu/custom_call_targets.h"

#include <string>

#include "absl/container/flat_hash_set.h"
#include "backends/gpu/solver_lowering.h"
#include "hlo/lapack_custom_call.h"
#include "passes/radix_sort_plan.h"

namespace hloc {

bool GpuSupportsCustomCall(absl::string_view target,
                           absl::string_view platform) {
  // Kernels of the shared emitters, every GPU platform: sorts by a key
  // order (passes/radix_sort_rewriter.h).
  if (target == kRadixSortTarget) return true;
  if (platform != "cuda") return false;
  // One line per implemented library target. The sharding annotations are
  // not here: passes/sharding_remover.h removes them before compilation.
  static const auto* targets = [] {
    auto* names = new absl::flat_hash_set<std::string>{};
    // JAX's cuSOLVER calls (solver_lowering.h).
    for (const std::string& name : SolverCustomCallTargets()) {
      names->insert(name);
    }
    // JAX's host-LAPACK calls (solver_lowering.h).
    for (const std::string& name : GpuHostLapackTargets()) {
      names->insert(name);
    }
    return names;
  }();
  return targets->contains(std::string(target));
}

}  // namespace hloc

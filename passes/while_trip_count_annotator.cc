#include "passes/while_trip_count_annotator.h"

#include <optional>
#include <string>

#include "hlo/while_trip_count.h"

namespace hloc {

absl::StatusOr<bool> WhileTripCountAnnotator::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->computations()) {
    for (HloInstruction* loop : computation->instructions()) {
      if (loop->opcode() != HloOpcode::kWhile) continue;
      const std::optional<int64_t> trips = ComputeWhileTripCount(*loop);
      const std::string config =
          trips.has_value() ? KnownTripCountConfig(*trips) : "";
      Count(trips.has_value() ? "loops-counted" : "loops-not-counted");
      if (loop->backend_config() == config) continue;
      loop->set_backend_config(config);
      changed = true;
    }
  }
  return changed;
}

}  // namespace hloc

// Records every while loop's trip count in its backend_config
// ("while-trip-count-annotator", XLA's WhileLoopTripCountAnnotator):
// {"known_trip_count":{"n":"N"}} where hlo/while_trip_count.h counts the
// loop, and no config where it cannot. A count already in the config (a
// module XLA optimised) is replaced by this one's or dropped: only a count
// proved here lets a runtime skip the condition.
//
// It runs after simplification, which folds the counters' constants, and
// before fusion, which hides the counter's compare and add inside fused
// computations.
#ifndef PASSES_WHILE_TRIP_COUNT_ANNOTATOR_H_
#define PASSES_WHILE_TRIP_COUNT_ANNOTATOR_H_

#include "passes/pass.h"

namespace hloc {

class WhileTripCountAnnotator : public HloPass {
 public:
  absl::string_view name() const override {
    return "while-trip-count-annotator";
  }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_WHILE_TRIP_COUNT_ANNOTATOR_H_

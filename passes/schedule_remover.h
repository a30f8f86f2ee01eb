// Schedule removal ("schedule-remover").
//
// A module can arrive scheduled: XLA's optimized modules (is_scheduled=true,
// one execution order per computation) are valid input. The platform
// pipelines then rewrite it -- fusion adds fusions and get-tuple-elements
// the old order does not list -- and every backend orders its steps itself
// from the dataflow, so the pipelines drop the schedule first, as XLA
// schedules only after its own fusion passes. Without this, the first pass
// that adds an instruction leaves a schedule that lists a user before its
// new operand, and the verifier rejects the module.
#ifndef PASSES_SCHEDULE_REMOVER_H_
#define PASSES_SCHEDULE_REMOVER_H_

#include "passes/pass.h"

namespace hloc {

class ScheduleRemover : public HloPass {
 public:
  absl::string_view name() const override { return "schedule-remover"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_SCHEDULE_REMOVER_H_

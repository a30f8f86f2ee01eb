#include "passes/schedule_remover.h"

namespace hloc {

absl::StatusOr<bool> ScheduleRemover::Run(HloModule* module) {
  const bool changed = module->has_schedule() || module->config().is_scheduled;
  module->mutable_schedule().clear();
  module->mutable_config().is_scheduled = false;
  return changed;
}

}  // namespace hloc

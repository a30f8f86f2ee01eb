#include "hlo/annotation_custom_calls.h"

namespace hloc {

bool IsShardingCustomCallTarget(absl::string_view target) {
  return target == "Sharding" || target == "SPMDFullToShardShape" ||
         target == "SPMDShardToFullShape" || target == "ShardBarrierFrom" ||
         target == "ShardBarrierTo" || target == "xla.sdy.FuncResultSharding" ||
         target == "xla.sdy.GlobalToLocalShape" ||
         target == "xla.sdy.LocalToGlobalShape";
}

bool IsDceSinkCustomCallTarget(absl::string_view target) {
  return target == "dce_sink";
}

bool IsAllocateBufferCustomCallTarget(absl::string_view target) {
  return target == "AllocateBuffer";
}

}  // namespace hloc

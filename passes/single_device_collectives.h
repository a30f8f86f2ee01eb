// SPMD collectives in which every device takes part alone, as values
// ("single-device-collectives"): what shard_map, psum and friends over a
// mesh axis of size 1 lower to, and jit's collectives in a module of one
// device. An all-reduce, all-gather, reduce-scatter or all-to-all with a
// channel id (jit and shard_map give every collective one) whose every
// participant group holds one device is its operand (a tuple of its
// operands where it has several): nothing is combined, gathered or split.
// A collective-permute with a channel id is its operand where every device
// receives from itself, zeros where no device receives anything.
// partition-id is 0 in a module of one partition. XLA's
// AllReduceSimplifier and AlgebraicSimplifier do the same for the
// collectives; here the AArch64 target, whose executables cannot run a
// collective step, then runs such modules, and the host skips a runtime
// step for each. Cross-replica collectives (no channel id, as pmap
// writes them) and replica-id stay runtime steps, as the one-device runs
// of the runtimes' collectives test them.
#ifndef PASSES_SINGLE_DEVICE_COLLECTIVES_H_
#define PASSES_SINGLE_DEVICE_COLLECTIVES_H_

#include "passes/pass.h"

namespace hloc {

class SingleDeviceCollectives : public HloPass {
 public:
  absl::string_view name() const override {
    return "single-device-collectives";
  }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_SINGLE_DEVICE_COLLECTIVES_H_

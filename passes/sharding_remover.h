// Sharding removal ("sharding-remover").
//
// JAX marks values with custom calls that only mean something when a
// module is partitioned over several devices: `Sharding` (from
// jax.lax.with_sharding_constraint and jit's in/out shardings),
// `SPMDFullToShardShape` and `SPMDShardToFullShape` (shard_map's borders).
// On one device each is the identity of its operand, and XLA's own
// ShardingRemover drops them the same way before compiling for one device.
// A call whose shape differs from its operand's (a real partitioning) is
// left alone, so a backend rejects it by name instead of computing the
// wrong thing.
#ifndef PASSES_SHARDING_REMOVER_H_
#define PASSES_SHARDING_REMOVER_H_

#include "passes/pass.h"

namespace hloc {

class ShardingRemover : public HloPass {
 public:
  absl::string_view name() const override { return "sharding-remover"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// True for the custom-call targets ShardingRemover forwards.
bool IsShardingCustomCallTarget(absl::string_view target);

}  // namespace hloc

#endif  // PASSES_SHARDING_REMOVER_H_

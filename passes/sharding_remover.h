// Sharding removal ("sharding-remover").
//
// JAX marks values with custom calls that only mean something when a
// module is partitioned over several devices: `Sharding` (from
// jax.lax.with_sharding_constraint and jit's in/out shardings),
// `SPMDFullToShardShape` and `SPMDShardToFullShape` (shard_map's borders),
// their Shardy forms `xla.sdy.FuncResultSharding` (a result's sharding),
// `xla.sdy.GlobalToLocalShape` and `xla.sdy.LocalToGlobalShape`
// (shard_map's borders, one operand per value crossing it), and XLA's own
// propagation barriers `ShardBarrierFrom` / `ShardBarrierTo`. On one device
// each is the identity of its operands, and XLA's ShardingRemover (and its
// partitioner, for the rest) drops them the same way before compiling for
// one device: a one-operand call becomes its operand, a call of several
// operands a tuple of them.
//
// A call whose shape differs from its operands' (a real partitioning) is
// left alone, so a backend rejects it by name instead of computing the
// wrong thing.
//
// JAX's `dce_sink` (lax.dce_sink_p), an unused side-effecting call with an
// empty result that only kept a value alive through MLIR's DCE, is removed
// too: XLA's runtime runs it as a no-op, and the cpu backend has no kernel
// for it (the lax coverage test found it refused).
//
// XLA's `AllocateBuffer` (jnp.empty and lax.empty in JAX 0.11), an array
// of unspecified contents, becomes a broadcast of zero, as the evaluator
// computes it (JAX 0.10 lowered zeros; found by lowering the zoo with JAX
// 0.11.2, where the cuda backend refused it by name).
//
// The targets are listed in hlo/annotation_custom_calls.h (the evaluator
// computes them as the same identity).
#ifndef PASSES_SHARDING_REMOVER_H_
#define PASSES_SHARDING_REMOVER_H_

#include "hlo/annotation_custom_calls.h"
#include "passes/pass.h"

namespace hloc {

class ShardingRemover : public HloPass {
 public:
  absl::string_view name() const override { return "sharding-remover"; }
  absl::StatusOr<bool> Run(HloModule *module) override;
};

}  // namespace hloc

#endif  // PASSES_SHARDING_REMOVER_H_

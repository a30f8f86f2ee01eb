// Custom calls that are annotations, not computations: on one device each
// is the identity of its operands (or, for dce_sink, nothing at all; for
// AllocateBuffer, an array whose contents do not matter). The
// pipelines drop them (passes/sharding_remover.h) and the evaluator
// computes them as that identity, so both agree with XLA, whose
// ShardingRemover and partitioner drop the sharding ones and whose runtime
// runs JAX's dce_sink as a no-op.
#ifndef HLO_ANNOTATION_CUSTOM_CALLS_H_
#define HLO_ANNOTATION_CUSTOM_CALLS_H_

#include "absl/strings/string_view.h"

namespace hloc {

// JAX's sharding marks: `Sharding` (jax.lax.with_sharding_constraint, jit's
// in/out shardings), `SPMDFullToShardShape` / `SPMDShardToFullShape`
// (shard_map's borders), their Shardy forms `xla.sdy.FuncResultSharding`,
// `xla.sdy.GlobalToLocalShape`, `xla.sdy.LocalToGlobalShape`, and XLA's
// propagation barriers `ShardBarrierFrom` / `ShardBarrierTo`.
bool IsShardingCustomCallTarget(absl::string_view target);

// JAX's `dce_sink`: a side-effecting call with an empty tuple result that
// keeps a value alive through MLIR's dead code elimination (lax.dce_sink_p).
bool IsDceSinkCustomCallTarget(absl::string_view target);

// XLA's `AllocateBuffer` (what jnp.empty and lax.empty lower to in JAX
// 0.11; 0.10 lowered zeros): an array of unspecified contents, which the
// program overwrites before it reads. The evaluator and the pipelines'
// sharding-remover give it zeros, one defined value of the many XLA
// allows, and the same everywhere.
bool IsAllocateBufferCustomCallTarget(absl::string_view target);

}  // namespace hloc

#endif  // HLO_ANNOTATION_CUSTOM_CALLS_H_

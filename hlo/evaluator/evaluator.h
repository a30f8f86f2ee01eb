// The reference evaluator: computes what an HLO module means, following
// XLA's semantics, on the host. Every backend is checked against it.
//
// Values are Literals (dense, row-major logical order; layouts are carried
// as metadata, and honoured where they change meaning: bitcast). The
// evaluator works array-wise: each instruction runs one typed loop over its
// whole result (kernels.h), fusions evaluate their fused computation the
// same way, and the scalar computations called per element (reduce, map,
// scatter, sort, ...) run as lane-batched programs (program.h), with fast
// paths for reductions by add/multiply/maximum/minimum/and/or/xor.
//
// Semantics follow XLA (xla/hlo/evaluator and the CPU/GPU elemental emitter);
// the elementwise rules are listed in kernels.h. Besides those:
//   - reduce and reduce-window apply their computation in row-major order of
//     the reduced (window) elements, starting from the init value; window
//     positions in padding are skipped.
//   - dot and convolution accumulate in f32 (f16, bf16, f32), f64, the
//     complex type, or wrapping 64-bit integers (whichever holds the operand
//     and result types, as XLA's operand upcasting and result casting make
//     the backends do), summing in order of the contracting index, and round
//     to the result type once at the end.
//   - dynamic-slice, dynamic-update-slice and gather clamp start indices so
//     the slice fits; scatter skips an update window that does not fit.
//   - conditional with an out-of-range branch index runs the last branch.
//   - sort is stable (whatever is_stable says); topk orders by total order,
//     ties by index.
//   - replica-id and partition-id are the device's (0 outside
//     EvaluateReplicated); after-all and add-dependency pass tokens/values
//     through.
//   - all-reduce, all-gather, reduce-scatter, all-to-all and
//     collective-permute run across the devices of EvaluateReplicated
//     (collective_ops.cc states their rules; hlo/collectives.h who takes
//     part); a one-device run gives a group of one.
//   - fft is computed from the definition (O(n^2) per line, complex128);
//     cholesky, triangular-solve and the LAPACK custom calls of JAX's CPU
//     lowering (hlo/lapack_custom_call.h; not syevd, geev, gees or gesdd
//     with vectors, which are unique only up to signs: the cpu backend
//     runs those through LAPACK) by LAPACK's unblocked algorithms in
//     complex128 (linalg_kernels.h); gesdd's singular values alone by
//     Jacobi rotations.
// Other custom-calls, other collectives, infeed/outfeed, send/recv, rng and the
// other device operations give "not supported by the evaluator: <opcode>
// (<name>)" (a custom-call's target named too).
// A module with a JAX Python host callback (jax.debug.print and co.) is
// refused whole by EvaluateModule and EvaluateReplicated, as every platform
// refuses it (hlo/host_callbacks.h), even where the callback's results are
// unused and evaluation would never reach it; drop such callbacks first
// (passes/host_callbacks.h, --drop-debug-callbacks).
#ifndef HLO_EVALUATOR_EVALUATOR_H_
#define HLO_EVALUATOR_EVALUATOR_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/computation.h"
#include "hlo/literal.h"
#include "hlo/module.h"

namespace hloc {

struct EvaluateOptions {
  // A while loop that runs more iterations than this stops the evaluation
  // with DeadlineExceeded naming the loop (0: no limit), so a loop that
  // never ends can be stopped.
  int64_t max_while_iterations = 0;
};

// Evaluates the module's entry computation on `arguments` (one per entry
// parameter, shapes compatible with the parameters' ignoring layout).
absl::StatusOr<Literal> EvaluateModule(const HloModule& module,
                                       absl::Span<const Literal> arguments,
                                       const EvaluateOptions& options = {});

// Runs the entry computation once per device of the module's
// replica_count x num_partitions, one thread each, the collectives
// exchanging values between them. arguments[d] are device d's, d = replica *
// num_partitions + partition; returns each device's result in that order.
// Errors name the device: a wrong number of argument lists, groups that do
// not fit the run, or a collective that not every device of its group
// reaches.
absl::StatusOr<std::vector<Literal>> EvaluateReplicated(
    const HloModule& module,
    absl::Span<const std::vector<Literal>> arguments,
    const EvaluateOptions& options = {});

// Evaluates `computation` on `arguments`.
absl::StatusOr<Literal> EvaluateComputation(
    const HloComputation& computation, absl::Span<const Literal> arguments,
    const EvaluateOptions& options = {});

}  // namespace hloc

#endif  // HLO_EVALUATOR_EVALUATOR_H_

// What the two parallel scan kernels share (row_scan_emitter.cc: a warp per
// row along the minor dimension; column_scan_emitter.cc: a block per tile
// of columns along a major one): which scans they may take, and how they
// combine two prefixes with the scan's body. Included only by those
// emitters and scan_emitter.cc (it pulls in LLVM's IR headers).
#ifndef BACKENDS_GPU_ASSOCIATIVE_SCAN_H_
#define BACKENDS_GPU_ASSOCIATIVE_SCAN_H_

#include "absl/status/statusor.h"
#include "backends/common/kernel_analysis.h"
#include "backends/gpu/kernel_builder.h"
#include "hlo/instruction.h"

namespace hloc {

// Whether `scan` has one input, one carry and one output (in the input's
// layout), is marked is_associative, and its body is
// { x, c -> s = op(x, c) or op(c, x); (s, s) } for an op
// HloOpcodeIsAssociativeBinary accepts: the output and the new carry are
// the same inclusive prefix, and prefixes may be combined in any grouping
// (jnp.cumsum, cumprod, cummax, cummin as reduce-window-to-scan makes them).
bool IsSingleOpAssociativeScan(const HloInstruction& scan,
                               const KernelInfo& info);

// The prefix of `earlier` followed by `later`: the scan's body with
// `earlier` as the carry and `later` as the input element.
absl::StatusOr<llvm::Value*> CombinePrefixes(KernelBuilder& kernel,
                                             const HloInstruction& scan,
                                             llvm::Value* earlier,
                                             llvm::Value* later);

}  // namespace hloc

#endif  // BACKENDS_GPU_ASSOCIATIVE_SCAN_H_

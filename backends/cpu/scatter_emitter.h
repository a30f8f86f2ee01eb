// scatter on the CPU: XLA's full dimension numbers (index_vector_dim
// anywhere or implicit, inserted window dims, input/indices batching dims),
// any number of operands, the update computation emitted inline.
//
// The operands are copied to the outputs, then for every scatter index in
// row-major order the start vector is read from the indices, a window that
// does not fit in the operand is skipped (as XLA does), and every element
// of a fitting window becomes update_computation(output..., update...).
//
// Updates to the same element must apply in order, so large scatters run
// "owner computes": the outputs are split into contiguous ranges of output
// 0's physical order (64-element chunks, split over the OpenMP threads as
// every range function's work items are; kernel_util.h), and each thread
// copies its range, then walks all scatter indices in order and applies
// only the window elements that land in its range (skipping windows that
// miss it by their extent in output 0; single-element windows with a cheap
// combiner go, when not owned, to a scratch slot instead of a branch the
// predictor would lose). Every element is updated by one thread in the
// serial order: bit-identical to the serial kernel for any combiner,
// deterministic, no atomics. Small scatters (ShouldRunParallel over the
// output and update elements) run the same walk on the calling thread
// without the range checks.
#ifndef BACKENDS_CPU_SCATTER_EMITTER_H_
#define BACKENDS_CPU_SCATTER_EMITTER_H_

#include <string>

#include "absl/status/status.h"
#include "backends/cpu/kernel_util.h"
#include "hlo/instruction.h"

namespace hloc {

absl::Status EmitScatterKernel(const HloInstruction& hlo,
                               const std::string& symbol,
                               const OpEmitterContext& ctx);

}  // namespace hloc

#endif  // BACKENDS_CPU_SCATTER_EMITTER_H_

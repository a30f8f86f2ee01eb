// scatter on the CPU: XLA's full dimension numbers (index_vector_dim
// anywhere or implicit, inserted window dims, input/indices batching dims),
// any number of operands, the update computation emitted inline.
//
// One serial kernel (updates to the same element must apply in order):
// the operands are copied to the outputs, then for every scatter index in
// row-major order the start vector is read from the indices, a window that
// does not fit in the operand is skipped (as XLA does), and every element
// of a fitting window becomes update_computation(output..., update...).
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

// scan on the CPU (what jnp.cumsum / cumprod / cummax become through
// reduce-window-to-scan, or JAX's own scans): any number of inputs, carries
// and outputs, any scan dimension and layouts, forward or reverse, the body
// emitted inline per element (ElementalEmitter::EmitScalarComputation), so
// any elementwise body and element type the elemental emitter handles.
//
// Every element is computed in the evaluator's order -- one sequential
// pass along the scan dimension -- so results match it bit for bit (float
// sums included, bf16 rounded after every step as the evaluator does), as
// XLA:CPU's own cumsum is sequential within a row. Parallelism comes from
// the other dimensions. The dimensions of the first input are split around
// the scan dimension by its layout: the "outer" ones (physically major to
// it) and the "inner" ones (physically minor, contiguous):
//   - no inner extent (the scan dimension is the minor one): a work item is
//     a row; the carries stay in registers along the row;
//   - otherwise a work item is a block of inner columns of one outer index;
//     per step along the scan dimension the inner loop runs over the
//     block's contiguous columns, each column's carry kept in the carry
//     output (which has exactly the slice's shape), so the loop vectorizes.
// Work items are split over the OpenMP threads (kernel_util.h).
#ifndef BACKENDS_CPU_SCAN_EMITTER_H_
#define BACKENDS_CPU_SCAN_EMITTER_H_

#include <string>

#include "absl/status/status.h"
#include "backends/cpu/kernel_util.h"
#include "hlo/instruction.h"

namespace hloc {

absl::Status EmitScanKernel(const HloInstruction& hlo,
                            const std::string& symbol,
                            const OpEmitterContext& ctx);

}  // namespace hloc

#endif  // BACKENDS_CPU_SCAN_EMITTER_H_

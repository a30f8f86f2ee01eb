// select-and-scatter on the CPU (what JAX emits for the gradient of max
// pooling), with XLA's semantics as the evaluator implements them: the
// output starts as the init value; for every source element, in row-major
// order, its window of the operand (size, stride, padding, window and base
// dilation, as for reduce-window) is scanned in row-major order, skipping
// padding; the first valid element is the pick and each later candidate
// replaces it unless select(pick, candidate) is true; then
// out[pick] = scatter(out[pick], source element). A window with no valid
// element scatters nothing. The select and scatter computations are
// emitted inline; any rank and any element type the elemental emitter
// supports. Window reversal and malformed instructions are Unimplemented
// (the step then runs in the evaluator).
//
// Two loops over noalias buffers (operand, source, init, output):
// 1. the output is set to the init value, on all threads when large;
// 2. the scatter, parallel only by "owner computes", so every output
//    element receives exactly the updates of the serial order, in that
//    order (bit-identical results with any number of threads):
//    the output is cut into work items along its leading dimensions --
//    dimensions whose window size is 1 one index per item, then the first
//    other dimension in blocks of B rows (B a few window extents, so that
//    windows straddling two blocks are a small share). A work item walks,
//    in row-major source order, only the windows that overlap its block
//    (an index range per split dimension, computed from stride, padding and
//    dilations), evaluates the select over each, and applies the scatter
//    only where the pick lies inside its own block. A window overlapping
//    two blocks is evaluated by both (the redundant select work is bounded
//    by the choice of B), but its scatter is applied by one. Small
//    instances run serially, as one item covering everything.
//
// The lane path (NHWC max-pool gradients): where a dimension after the
// split is contiguous in operand and output and has window 1, stride 1, no
// padding and no base dilation (the channels), each of its indices is a
// window of its own with its neighbours' geometry, and its pick lies at
// its own index. The window (at most 64 elements) is then unrolled and the
// innermost loop runs over blocks of such lanes: the validity and offsets
// of each window element are computed once for all lanes, the loop keeps
// each lane's pick value and element number in registers (LLVM vectorizes
// it: a compare and select per element) and stores the element numbers in
// a stack array; a scalar loop over the lanes then applies their scatters.
// Only a lane's own windows update its output elements, in the row-major
// order of the other dimensions, so the serial order is kept. Every other
// case takes the general path above.
#ifndef BACKENDS_CPU_SELECT_AND_SCATTER_EMITTER_H_
#define BACKENDS_CPU_SELECT_AND_SCATTER_EMITTER_H_

#include <string>

#include "absl/status/status.h"
#include "backends/cpu/kernel_util.h"
#include "hlo/instruction.h"

namespace hloc {

absl::Status EmitSelectAndScatterKernel(const HloInstruction& hlo,
                                        const std::string& symbol,
                                        const OpEmitterContext& ctx);

}  // namespace hloc

#endif  // BACKENDS_CPU_SELECT_AND_SCATTER_EMITTER_H_

// Kernels for the ops that are not "an element at an index" -- dot (and
// its epilogue fusion), row-reduction fusions, convolution, sort, scan,
// scatter, select-and-scatter, and the control flow ops while, conditional
// and call -- which the loop kernels of ir_emitter.cc hand over here. Each
// has its own emitter: dot_emitter.h (over the GEMM engine of
// gemm_emitter.h), row_fusion_emitter.h, conv_emitter.h, sort_emitter.h,
// scan_emitter.h, scatter_emitter.h, select_and_scatter_emitter.h and
// control_flow_emitter.h. The kernels
// follow ir_emitter.h's ABI (kernel_util.h).
#ifndef BACKENDS_CPU_OP_EMITTERS_H_
#define BACKENDS_CPU_OP_EMITTERS_H_

#include <string>

#include "absl/status/status.h"
#include "backends/cpu/kernel_util.h"
#include "hlo/instruction.h"

namespace hloc {

// True if one of the op emitters takes `hlo` (a dot, a kOutput fusion, a
// row-reduction fusion, a convolution, a sort, a scan, a scatter, a
// select-and-scatter, a while, a conditional or a call).
bool HasOpEmitter(const HloInstruction& hlo);

// Emits the kernel `symbol` (an unused symbol) for `hlo`. On error --
// Unimplemented where an emitter declines -- nothing of the kernel is left
// in the module.
absl::Status EmitOpKernel(const HloInstruction& hlo, const std::string& symbol,
                          const OpEmitterContext& ctx);

}  // namespace hloc

#endif  // BACKENDS_CPU_OP_EMITTERS_H_

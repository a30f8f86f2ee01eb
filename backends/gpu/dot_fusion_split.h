// Splits a fusion around a dot whose epilogue cuBLASLt cannot apply (a
// tanh after the bias, a convert, anything but bias/relu: gemm_lowering.h)
// into the dot, unfused beside it (a gemm call), and a kLoop fusion of
// the rest, which reads the dot's result as a new last parameter. Runs on
// the GPU compiler's own copy of the module, before buffer assignment, so
// the dot's result gets an ordinary buffer. Dots whose operands are
// computed inside the fusion (a prologue) are left alone: LowerToGemmCall
// then says why it cannot compile them.
#ifndef BACKENDS_GPU_DOT_FUSION_SPLIT_H_
#define BACKENDS_GPU_DOT_FUSION_SPLIT_H_

#include "absl/status/status.h"
#include "hlo/module.h"

namespace hloc {

absl::Status SplitDotFusions(HloModule* module);

}  // namespace hloc

#endif  // BACKENDS_GPU_DOT_FUSION_SPLIT_H_

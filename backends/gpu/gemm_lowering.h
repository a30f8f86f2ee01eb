// Dots as cuBLASLt library calls ("cublas.gemm" steps, executable.h): an
// unfused dot, a fusion whose root is a dot of its parameters (XLA's
// __triton_nested_gemm_fusion, bitcasts around the dot allowed: they only
// rename the same bytes), and a dot-epilogue fusion (kOutput) whose
// epilogue is exactly one of cuBLASLt's: a bias broadcast along the
// output's contiguous (N) dimension, then optionally relu = max(x, 0) or
// gelu's tanh approximation as jax.nn.gelu writes it (its constants to
// their type's precision; other spellings and the erf form are not
// matched); also in the excess-precision form of a bf16/f16 dot (an f32
// dot whose epilogue widens the bias and rounds once at the root), where
// the gemm writes the root's narrow type.
// Other epilogues are split off by SplitDotFusions (dot_fusion_split.h).
#ifndef BACKENDS_GPU_GEMM_LOWERING_H_
#define BACKENDS_GPU_GEMM_LOWERING_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/instruction.h"
#include "runtime/executable.h"

namespace hloc {

// A dot, or a fusion with a dot inside: what LowerToGemmCall is about.
bool HasDot(const HloInstruction& hlo);

// The dot of a fusion (nullptr if none or several).
const HloInstruction* FusedDot(const HloInstruction& fusion);

struct GemmCall {
  GemmConfig config;
  // Operand numbers of the instruction for BLAS's A and B and the bias (-1
  // without one); the output is the instruction's result.
  int64_t a_operand = 0;
  int64_t b_operand = 1;
  int64_t bias_operand = -1;
  // The output has no elements: nothing to run.
  bool empty = false;
};

// Unimplemented (naming why) where `hlo` is not one gemm call.
absl::StatusOr<GemmCall> LowerToGemmCall(const HloInstruction& hlo);

// The "cublas.gemm" step of `hlo` on `slots` (one per operand, then the
// output's), or none when the output is empty.
absl::StatusOr<std::optional<ExecutableStep>> MakeGemmStep(
    const HloInstruction& hlo, const std::vector<int64_t>& slots);

}  // namespace hloc

#endif  // BACKENDS_GPU_GEMM_LOWERING_H_

// A dot as a (batched, strided) column-major BLAS gemm: the pure layout
// logic behind the "cublas.gemm" library calls (no LLVM, no CUDA).
//
// The dot is read as batch x M x K times batch x K x N: batch = the batch
// dimensions (in lhs_batch order), M = lhs free dimensions, N = rhs free
// dimensions, K = the contracting dimensions (in lhs_contracting order),
// each group in the output's (row-major) order. A group maps to BLAS only
// when its dimensions collapse to one stride in the operand's layout
// (size-1 dimensions are ignored); then every matrix is column-major with
// a leading dimension, or its transpose, and the batches are a uniform
// stride apart. BLAS writes C column-major, so when the output's N
// dimension is the contiguous one (row-major HLO), the gemm computes
// C^T = B^T A^T: the operands swap (`swap_operands`) and m/n exchange.
// What does not fit (a group whose dimensions are not adjacent in memory,
// no unit stride in a matrix, unsupported types) is Unimplemented with the
// reason; a caller may then copy an operand into a fitting layout first.
#ifndef BACKENDS_GPU_GEMM_CONFIG_H_
#define BACKENDS_GPU_GEMM_CONFIG_H_

#include <optional>

#include "absl/status/statusor.h"
#include "hlo/attributes.h"
#include "hlo/shape.h"
#include "runtime/executable.h"

namespace hloc {

struct GemmMapping {
  GemmConfig config;
  // BLAS's A is the dot's rhs and B its lhs (C^T = B^T A^T).
  bool swap_operands = false;
};

// `lhs`, `rhs` and `out` are array shapes with layouts (the default one
// where absent); `precision` decides TF32 for f32 (XLA:GPU's default
// precision computes f32 dots in TF32; HIGH and HIGHEST do not).
absl::StatusOr<GemmMapping> MapDotToGemm(
    const Shape& lhs, const Shape& rhs, const Shape& out,
    const DotDimensionNumbers& dnums,
    const std::optional<PrecisionConfig>& precision);

}  // namespace hloc

#endif  // BACKENDS_GPU_GEMM_CONFIG_H_

// The triangular-solve op as HLO loops ("triangular-solve-expander"; the GPU
// pipelines and the AArch64 compiler, which have no BLAS trsm to call), as
// XLA's TriangularSolveExpander does for backends without one.
//
// Every form is brought to M X = B with M triangular, batches at once:
// op(A) is A, its transpose or its conjugate transpose (transpose_a;
// ADJOINT is TRANSPOSE for real types), and a right-side solve
// X op(A) = B is op(A)^T X^T = B^T. Then substitution, one row of X per
// while-loop iteration, from the top for a lower M and from the bottom for
// an upper one:
//   X[i, :] = (B[i, :] - M[i, k<i or k>i] @ X) / M[i, i]   (no division
//   with unit_diagonal)
// m iterations, each O(m k) per batch. Only M's own triangle (and its
// diagonal unless unit_diagonal) is read, as XLA's semantics require. The
// products run at the highest precision (no TF32).
//
// Real floating-point and complex types (XLA:GPU calls cuBLAS's trsm for
// both; JAX's complex solve, inv and det lower to this op on the GPU).
#ifndef PASSES_TRIANGULAR_SOLVE_EXPANDER_H_
#define PASSES_TRIANGULAR_SOLVE_EXPANDER_H_

#include "passes/pass.h"

namespace hloc {

class TriangularSolveExpander : public HloPass {
 public:
  absl::string_view name() const override {
    return "triangular-solve-expander";
  }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_TRIANGULAR_SOLVE_EXPANDER_H_

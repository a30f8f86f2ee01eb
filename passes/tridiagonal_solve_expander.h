// JAX's GPU tridiagonal solve (lax.linalg.tridiagonal_solve: the custom
// calls cusparse_gtsv2_ffi and hipsparse_gtsv2_ffi) as HLO
// ("tridiagonal-solve-expander"; every pipeline, so that a module lowered
// for a GPU also runs on the CPU), by parallel cyclic reduction.
//
// The call solves dl[i] x[i-1] + d[i] x[i] + du[i] x[i+1] = b[i] for each
// right-hand side (column of b) and batch: dl, d, du [batch.., n], b and x
// [batch.., n, k]; dl[0] and du[n-1] are not read. Cyclic reduction keeps
// every equation in the form a[i] x[i-s] + c[i] x[i] ... with its
// neighbours at distance s, and each stage folds the equations at i - s
// and i + s into equation i, eliminating x[i-s] and x[i+s] and doubling
// s; after ceil(log2 n) stages each equation has x[i] alone. Every stage
// is elementwise work on whole arrays (the neighbours are the arrays
// shifted by s), so the GPU runs about 2 log2(n) fused kernels and no
// loop: a solve by substitution would take 2n dependent steps, each a
// loop iteration the host drives. O(n log n) arithmetic per right-hand
// side.
//
// Without pivoting, as cuSPARSE's gtsv2_nopivot and JAX's own fallback
// (the Thomas algorithm) do: exact for the diagonally dominant systems
// tridiagonal solves usually come from (splines, implicit diffusion
// steps); where a reduced diagonal entry is zero the solution is inf or
// NaN, where cuSPARSE's gtsv2 would pivot.
#ifndef PASSES_TRIDIAGONAL_SOLVE_EXPANDER_H_
#define PASSES_TRIDIAGONAL_SOLVE_EXPANDER_H_

#include "passes/pass.h"

namespace hloc {

class TridiagonalSolveExpander : public HloPass {
 public:
  absl::string_view name() const override {
    return "tridiagonal-solve-expander";
  }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_TRIDIAGONAL_SOLVE_EXPANDER_H_

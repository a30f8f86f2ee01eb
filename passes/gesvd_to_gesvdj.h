// JAX's QR-based singular value decomposition call (cusolver_gesvd_ffi,
// what jnp.linalg.svd lowers to on CUDA when a dimension exceeds 1024, as
// pinv, lstsq, matrix_rank and norm(ord=2) of such matrices do) as its
// Jacobi call (cusolver_gesvdj_ffi, which the cuda runtime implements with
// cusolverDn<t>gesvdj for any size) and transposes ("gesvd-to-gesvdj",
// the cuda pipeline).
//
// The two differ only in how they hand the result back (runtime/
// solver_check.h gives gesvdj's buffers): gesvd writes U and V^H where
// gesvdj writes U and V, and for m < n JAX hands gesvd the transpose
// (transposed = true: the row-major operand read column-major) and reads
// V^T of it as U and U of it as V^T. So, with A = U S V^H:
//   m >= n   gesvdj(A) -> (U, V);      gesvd's results: U, conj(V)^T
//   m <  n   gesvdj(A^T) -> (U', V');  A = conj(V') S U'^T, so
//            gesvd's results (vt slot first): U'^T, conj(V')
// With compute_uv = false the U and V^T results are scalars JAX ignores,
// and the gesvdj call computes economy-sized U and V it does not write.
// The singular values are the same either way (descending); the vectors
// may differ in sign (phase), as two SVD algorithms' may.
#ifndef PASSES_GESVD_TO_GESVDJ_H_
#define PASSES_GESVD_TO_GESVDJ_H_

#include "passes/pass.h"

namespace hloc {

class GesvdToGesvdj : public HloPass {
 public:
  absl::string_view name() const override { return "gesvd-to-gesvdj"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_GESVD_TO_GESVDJ_H_

// The cholesky op as HLO loops ("cholesky-expander"; the GPU pipelines and
// the AArch64 compiler, which have no solver library to call), as XLA's
// CholeskyExpander does for backends without one.
//
// Column by column (the left-looking algorithm), batches at once: with L
// the factor so far (zeros right of column j),
//   c = A[:, j] - L @ L[j, :k<j]        (a matrix-vector product per batch)
//   L[j, j] = sqrt(c[j]),  L[i>j, j] = c[i] / L[j, j]
// n iterations of a while loop, each O(n^2) per batch. Only the lower
// triangle of A is read; lower=false factors the transpose and transposes
// the factor back, so only the upper triangle is read. A matrix that is not
// positive definite gives NaN from the failing column on, as the CPU's
// LAPACK path gives (the other triangle stays zero). The products run at
// the highest precision (no TF32).
//
// Real floating-point types; complex cholesky is left alone.
#ifndef PASSES_CHOLESKY_EXPANDER_H_
#define PASSES_CHOLESKY_EXPANDER_H_

#include "passes/pass.h"

namespace hloc {

class CholeskyExpander : public HloPass {
 public:
  absl::string_view name() const override { return "cholesky-expander"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_CHOLESKY_EXPANDER_H_

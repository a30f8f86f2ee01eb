// jaxlib's CPU sparse-dense product (the custom call
// cpu_csr_sparse_dense_ffi, hlo/sparse_custom_call.h: what JAX lowers a
// BCSR matrix times a dense matrix or vector to on the CPU) as HLO
// ("csr-sparse-dense-expander"; every pipeline, so that the AArch64
// target, which links no library of jaxlib's, and the GPUs run it too).
//
// Each stored element e gets its row by counting the row ends at or before
// it: a scatter-add of ones at indptr[1..m] and a prefix sum over the nse
// positions (a reduce-window, the scan JAX's cumsum is). Elements before
// indptr[0] or from indptr[m] on, and columns outside [0, k), get row m,
// which the final scatter drops. The rhs rows of the elements' columns
// are gathered, scaled by data, and scatter-added into a zero [m, n] at
// their rows: in storage order within a row, as Eigen sums them, for
// O(nse * n) work where a dense product would take O(m * k * n).
//
// For a well-formed CSR matrix (indptr non-decreasing) this is the
// evaluator's definition, row by row over indptr[i] <= e < indptr[i+1].
#ifndef PASSES_CSR_SPARSE_DENSE_EXPANDER_H_
#define PASSES_CSR_SPARSE_DENSE_EXPANDER_H_

#include "passes/pass.h"

namespace hloc {

class CsrSparseDenseExpander : public HloPass {
 public:
  absl::string_view name() const override {
    return "csr-sparse-dense-expander";
  }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_CSR_SPARSE_DENSE_EXPANDER_H_

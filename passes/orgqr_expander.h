// JAX's GPU orgqr (cusolver_orgqr_ffi: Q from geqrf's Householder
// reflectors, the second half of jnp.linalg.qr) of a batch of small
// matrices as an HLO loop ("orgqr-expander", cuda). cuSOLVER has no batched
// orgqr: the runtime would call it once per matrix, tens of microseconds
// each, so the 320 small QRs of zoo batched_qr_least_squares took 10.6 ms
// on an H100 where XLA:GPU's batched kernel takes 0.15 ms (session 36,
// tools/gpu_bench/RESULTS.md).
//
// orgqr(a [batch.., m, n], tau [batch.., k]) -> q [batch.., m, n] is
// H_0 H_1 ... H_{k-1} applied to the first n columns of the m x m identity,
// H_i = I - tau_i v_i v_i^H, v_i zero above row i, one at row i and a's
// column i below it. The loop applies H_{k-1} first: each iteration is
// w = v^H Q over all matrices at once (a reduction down the rows) and
// Q -= tau v w (elementwise), so the GPU runs k iterations of a few small
// fused kernels (the reduction and the update, v's masks, the counter)
// inside the loop's graph however large the batch.
//
// Only batches of two or more matrices of at most kMaxColumns columns are
// expanded: one matrix, or wide ones, are cuSOLVER's blocked orgqr's work.
#ifndef PASSES_ORGQR_EXPANDER_H_
#define PASSES_ORGQR_EXPANDER_H_

#include <cstdint>

#include "passes/pass.h"

namespace hloc {

class OrgqrExpander : public HloPass {
 public:
  // The loop's k iterations (k <= n) each cost a few kernel launches;
  // past 64 columns cuSOLVER's blocked routine, matrix by matrix, is the
  // better bet.
  static constexpr int64_t kMaxColumns = 64;

  absl::string_view name() const override { return "orgqr-expander"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_ORGQR_EXPANDER_H_

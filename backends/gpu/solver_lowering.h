// JAX's CUDA linear-algebra custom calls as cuSOLVER library steps
// ("cusolver.<routine>", runtime/solver_check.h), which the cuda runtime
// runs through cuSOLVER (runtime/cusolver_solver.h), and HLO's
// triangular-solve as cuBLAS's trsm ("cublas.trsm").
//
// The custom calls are jaxlib's typed-FFI GPU kernels as
// jax/_src/lax/linalg.py lowers jnp.linalg for CUDA:
//   cusolver_potrf_ffi       {lower = true}                     Cholesky
//   cusolver_getrf_ffi       {}                                 LU
//   cu_lu_pivots_to_permutation {}                              LU's rows
//   cusolver_geqrf_ffi       {}                                 QR
//   cusolver_orgqr_ffi       {}                                 Q of QR
//   cusolver_syevd_ffi       {algorithm = 0 : ui8, lower = true} eigh
//   cusolver_gesvdj_ffi      {compute_uv = true, full_matrices = true} SVD
// with the operands and results of solver_check.h. An attribute the call
// does not take, or a value it cannot have, is an error naming the
// instruction; so are shapes that do not fit. syevd's algorithm (0
// default, 1 QR, 2 Jacobi) only picks cuSOLVER's method in jaxlib: every
// value runs syevd here, the same decomposition. JAX's gesvd
// (cusolver_gesvd_ffi, for matrices larger than 1024) is not lowered here:
// the cuda pipeline makes it gesvdj first (passes/gesvd_to_gesvdj.h).
//
// JAX's host-LAPACK calls for CUDA (cuhybrid_eig_real and
// cuhybrid_eig_comp: jnp.linalg.eig; cuhybrid_geqp3: QR with column
// pivoting), which jaxlib runs on the host with LAPACK or MAGMA as
// cuSOLVER has no such routine, become "lapack.<routine>" steps that the
// cuda runtime runs on the host between copies of their buffers
// (runtime/lapack_step.h), as jaxlib does.
#ifndef BACKENDS_GPU_SOLVER_LOWERING_H_
#define BACKENDS_GPU_SOLVER_LOWERING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/instruction.h"
#include "runtime/executable.h"

namespace hloc {

// The custom_call_targets MakeSolverStep lowers.
std::vector<std::string> SolverCustomCallTargets();

// nullopt when `call` is not a custom call to one of
// SolverCustomCallTargets(); else its step on `slots` (the operands'
// leaves, then the results'), or an error (InvalidArgument) naming the
// instruction and what does not fit.
absl::StatusOr<std::optional<ExecutableStep>> MakeSolverStep(
    const HloInstruction& call, const std::vector<int64_t>& slots);

// nullopt when `call` is not one of JAX's host-LAPACK calls for CUDA
// (GpuHostLapackTargets() of hlo/lapack_custom_call.h); else its
// "lapack.<routine>" step on `slots`, or an error (InvalidArgument) naming
// the instruction where its shapes or attributes do not fit.
absl::StatusOr<std::optional<ExecutableStep>> MakeHostLapackStep(
    const HloInstruction& call, const std::vector<int64_t>& slots);

// The cublas.trsm step of a triangular-solve (runtime/solver_check.h) on
// `slots` (a, b, then the result), or an error (InvalidArgument) naming the
// instruction where its shapes or layouts do not fit.
absl::StatusOr<ExecutableStep> MakeTrsmStep(const HloInstruction& solve,
                                            const std::vector<int64_t>& slots);

}  // namespace hloc

#endif  // BACKENDS_GPU_SOLVER_LOWERING_H_

// The "cusolver.<routine>" library steps and "cublas.trsm" (executable.h):
// what each one's buffers hold, checked without a GPU by the compiler
// (backends/gpu/solver_lowering.h) and by the cuda runtime before it loads
// cuSOLVER (runtime/cusolver_solver.h, which runs cuBLAS's trsm too).
//
// They are jaxlib's CUDA solver kernels as JAX's lowering calls them (the
// custom calls cusolver_<routine>_ffi and cu_lu_pivots_to_permutation).
// Every leading dimension is a batch dimension B; the last two of a matrix
// are (m, n), stored column-major, one matrix after another (minor_to_major
// {r-2, r-1, r-3, ..., 0}); vectors are row-major. T is f32, f64, c64 or
// c128, R its real type, k = min(m, n). Buffers: operands, then results.
//   potrf(a[B,n,n]) -> (a', info s32[B])             uplo: the factor's
//                                                      triangle; the other
//                                                      is a's
//   getrf(a[B,m,n]) -> (lu, ipiv s32[B,k] 1-based, info s32[B])
//   geqrf(a[B,m,n]) -> (a', tau T[B,k])
//   orgqr(a[B,m,n], tau T[B,l]) -> q[B,m,n]           l <= n <= m
//   syevd(a[B,n,n]) -> (v, w R[B,n] ascending, info s32[B])   uplo
//   gesvdj(a[B,m,n]) -> (a', s R[B,k], u[B,m,c], v[B,n,c], info s32[B])
//        c = k when econ, else m for u and n for v; mode 'N': u and v are
//        not written (JAX ignores them)
//   pivots_to_permutation(pivots s32[B,k] 0-based) -> perm s32[B,p], p >= k
// info is LAPACK's: 0 on success, > 0 where the factorisation failed.
//
// "cublas.trsm" is the HLO triangular-solve op (XLA:GPU calls cuBLAS's
// trsm for it too), its matrices column-major as the others':
//   trsm(a[B,k,k], b[B,m,n]) -> x[B,m,n]   k = m with side 'L', else n
// solving op(a) x = b (side 'L') or x op(a) = b (side 'R') with a's
// triangle uplo ('L' or 'U') only, op trans ('N', 'T', or 'C': the
// conjugate transpose) and diag 'U' (unit diagonal, not read) or 'N'.
#ifndef RUNTIME_SOLVER_CHECK_H_
#define RUNTIME_SOLVER_CHECK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hlo/shape.h"
#include "runtime/executable.h"

namespace hloc {

enum class SolverRoutine {
  kPotrf,
  kGetrf,
  kGeqrf,
  kOrgqr,
  kSyevd,
  kGesvdj,
  kPivotsToPermutation,
  kTrsm,
};

// "cusolver.potrf", ..., "cublas.trsm".
std::string SolverLibraryName(SolverRoutine routine);
// The routine of a library name; nullopt for any other library.
std::optional<SolverRoutine> SolverRoutineOfLibrary(absl::string_view library);

// Checks the buffers' shapes (operands' then results', as above) and the
// config's uplo ('L' or 'U') and mode ('V' or 'N'), for trsm uplo, side,
// trans and diag, for `routine`; the error (InvalidArgument) says what was
// expected.
absl::Status CheckSolverShapes(SolverRoutine routine,
                               const LibraryConfig& config,
                               const std::vector<Shape>& shapes);

}  // namespace hloc

#endif  // RUNTIME_SOLVER_CHECK_H_

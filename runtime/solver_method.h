// How a "cusolver.<routine>" step (runtime/solver_check.h) runs a batch of
// matrices: one library call per matrix, or one batched call for all of
// them. A vmapped solve or eigh of many small matrices is hundreds of
// calls of a few microseconds of work each when run one by one; a batched
// routine runs them in one launch.
//
// The rules are jaxlib's (jaxlib/gpu/solver_kernels_ffi.cc, JAX 0.11), so
// that a step computes what XLA:GPU computes for the same custom call, with
// two departures. A single small matrix (eigh up to 32 rows, an SVD up to
// 32 rows and columns) is a batch of one here, where jaxlib calls syevj or
// gesvdj; and a thin SVD (full_matrices=False) of small matrices is
// batched too, where jaxlib loops over gesvdj. Those two synchronise with
// the host once per Jacobi sweep: on an H100 a 4 x 5 SVD took ~250 us that
// way, and syevj made a PCA's eigh slower than divide and conquer
// (session 36, tools/gpu_bench/RESULTS.md). The batched kernels run the
// same Jacobi rotations with no round trip; their vectors may differ from
// jaxlib's in sign (or phase), which neither algorithm fixes.
//
// Pure host logic, so it is tested without a GPU (solver_method_test).
#ifndef RUNTIME_SOLVER_METHOD_H_
#define RUNTIME_SOLVER_METHOD_H_

#include <cstdint>

#include "runtime/executable.h"
#include "runtime/solver_check.h"

namespace hloc {

enum class SolverMethod {
  // The routine's own cuSOLVER call (potrf, getrf, geqrf, orgqr, syevd,
  // gesvdj) once per matrix.
  kPerMatrix,
  // syevd steps asked for Jacobi on matrices past 32 rows: cuSOLVER's
  // syevj once per matrix.
  kJacobiPerMatrix,
  // One call for the whole batch: cuSOLVER's potrfBatched, syevjBatched or
  // gesvdjBatched, or cuBLAS's getrfBatched, geqrfBatched or trsmBatched.
  kBatched,
};

const char* SolverMethodName(SolverMethod method);

// The method for `routine` on `batch` matrices of m x n with `config`'s
// attributes (uplo, mode, econ, eigh_algorithm).
SolverMethod ChooseSolverMethod(SolverRoutine routine, int64_t batch, int64_t m,
                                int64_t n, const LibraryConfig& config);

}  // namespace hloc

#endif  // RUNTIME_SOLVER_METHOD_H_

#include "runtime/solver_method.h"

#include <algorithm>
#include <climits>

namespace hloc {
namespace {

// cuSOLVER's batched Jacobi routines (syevjBatched, gesvdjBatched) take
// matrices of at most 32 rows and columns: each one is worked on by one
// thread block in shared memory.
constexpr int64_t kJacobiBatchedMaxSize = 32;

// jaxlib's eigh up to this size is Jacobi: for small matrices it is both
// faster and as accurate as divide and conquer.
constexpr int64_t kDefaultJacobiMaxSize = 32;

// cuBLAS's getrfBatched and geqrfBatched: jaxlib takes them when each
// dimension / batch <= 128 (so they serve many small matrices, and a few
// large ones are factored one by one by cuSOLVER's blocked routines).
constexpr int64_t kBlasBatchedRatio = 128;

// geqrfBatched is slow per matrix once matrices are not small: on an H100
// one 64 x 64 QR took 1.06 ms that way against cuSOLVER's 0.18 ms, one
// 192 x 192 12.2 ms against 0.48 (session 37, probes/solver_capture_probe.cu).
// A batch takes at least its one matrix's time, so under about 6 matrices
// of 64 or 25 of 192 the per-matrix calls win, where jaxlib's ratio
// batches two: geqrfBatched also needs batch >= max(m, n) /
// kQrBatchedOrderPerMatrix (8 at 64, 24 at 192).
constexpr int64_t kQrBatchedOrderPerMatrix = 8;

}  // namespace

const char* SolverMethodName(SolverMethod method) {
  switch (method) {
    case SolverMethod::kPerMatrix:
      return "per matrix";
    case SolverMethod::kJacobiPerMatrix:
      return "Jacobi per matrix";
    case SolverMethod::kBatched:
      return "batched";
  }
  return "?";
}

SolverMethod ChooseSolverMethod(SolverRoutine routine, int64_t batch, int64_t m,
                                int64_t n, const LibraryConfig& config) {
  // The batched routines count matrices in an int.
  const bool batchable = batch <= INT_MAX;
  switch (routine) {
    case SolverRoutine::kPotrf:
      return batch > 1 && batchable ? SolverMethod::kBatched
                                    : SolverMethod::kPerMatrix;
    case SolverRoutine::kGetrf:
      return batch > 1 && batchable && m == n && n / batch <= kBlasBatchedRatio
                 ? SolverMethod::kBatched
                 : SolverMethod::kPerMatrix;
    case SolverRoutine::kSyevd: {
      const bool jacobi =
          config.eigh_algorithm == 2 ||
          (config.eigh_algorithm == 0 && n <= kDefaultJacobiMaxSize);
      if (!jacobi) return SolverMethod::kPerMatrix;
      return batchable && n <= kJacobiBatchedMaxSize
                 ? SolverMethod::kBatched
                 : SolverMethod::kJacobiPerMatrix;
    }
    case SolverRoutine::kGesvdj:
      // gesvdjBatched has no economy mode (jaxlib loops over gesvdj for
      // one); the runtime takes the thin factors' columns from full ones.
      return batchable && m <= kJacobiBatchedMaxSize &&
                     n <= kJacobiBatchedMaxSize
                 ? SolverMethod::kBatched
                 : SolverMethod::kPerMatrix;
    case SolverRoutine::kGeqrf:
      return batch > 1 && batchable && m / batch <= kBlasBatchedRatio &&
                     n / batch <= kBlasBatchedRatio &&
                     batch >= std::max(m, n) / kQrBatchedOrderPerMatrix
                 ? SolverMethod::kBatched
                 : SolverMethod::kPerMatrix;
    case SolverRoutine::kTrsm:
      // cuBLAS's trsmBatched, as XLA:GPU's triangular-solve thunk calls
      // for any batch.
      return batch > 1 && batchable ? SolverMethod::kBatched
                                    : SolverMethod::kPerMatrix;
    case SolverRoutine::kOrgqr:
    case SolverRoutine::kPivotsToPermutation:
      return SolverMethod::kPerMatrix;
  }
  return SolverMethod::kPerMatrix;
}

}  // namespace hloc

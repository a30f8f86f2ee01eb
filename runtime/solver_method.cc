#include "runtime/solver_method.h"

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
                     n / batch <= kBlasBatchedRatio
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

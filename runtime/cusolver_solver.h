// "cusolver.<routine>" steps (runtime/solver_check.h): JAX's CUDA linear
// algebra (Cholesky, LU, QR, symmetric eigensolver, Jacobi SVD) through
// cuSOLVER's dense API, and "cublas.trsm" (HLO's triangular-solve) through
// cuBLAS's trsm, loaded at run time with dlopen (libcusolver.so.12
// or .11; $HLOC_LIBCUSOLVER overrides), so nothing links CUDA. As in
// cufft_fft.h, the few types and values of cusolverDn.h are declared in
// cusolver_solver.cc with its ABI instead of including it. Batches of
// small LUs and QRs use cuBLAS's getrfBatched and geqrfBatched where
// libcublas loads ($HLOC_LIBCUBLAS overrides).
//
// Each step copies its input matrices into the result buffer that JAX
// aliases with them and factors there in place on the executor's stream,
// one library call per batch element or one for the batch, as
// runtime/solver_method.h chooses. The workspace is cuSOLVER's
// bufferSize for the step, allocated on the plan's first run. LU's
// pivots-to-permutation is a small kernel shipped as PTX (one thread per
// batch element), JIT-compiled by the driver once per executor.
#ifndef RUNTIME_CUSOLVER_SOLVER_H_
#define RUNTIME_CUSOLVER_SOLVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"
#include "runtime/executable.h"

namespace hloc {
namespace cuda {

// Checks a cusolver step against its slots without a GPU
// (CheckSolverShapes on the slots' shapes, then the sizes cuSOLVER's int
// arguments can take).
absl::Status CheckSolverStep(const Executable& executable,
                             const ExecutableStep& step,
                             const std::string& what);

// The PTX module of hloc_lu_pivots_to_permutation (tests assemble it with
// ptxas where the toolkit is).
std::string PivotsToPermutationPtx();

struct SolverPlan;  // One step's routine, sizes, workspace and scratch.
struct SolverPlanDeleter {
  void operator()(SolverPlan* plan) const;
};
using SolverPlanPtr = std::unique_ptr<SolverPlan, SolverPlanDeleter>;

// The library, a cuSOLVER handle and the permutation kernel, for one
// device's context.
class CusolverSolver {
 public:
  // The libraries tried by Create, in order: cuSOLVER, and cuBLAS (which
  // may be absent).
  static std::string DefaultLibraries();
  static std::string DefaultBlasLibraries();

  // Opens cuSOLVER, makes a handle and loads the kernel on the current
  // context. Unavailable when the library is absent.
  static absl::StatusOr<std::unique_ptr<CusolverSolver>> Create(
      CudaDriver* driver);
  ~CusolverSolver();
  CusolverSolver(const CusolverSolver&) = delete;
  CusolverSolver& operator=(const CusolverSolver&) = delete;

  // Plans the step (CheckSolverStep first) on the current context.
  absl::StatusOr<SolverPlanPtr> Plan(const Executable& executable,
                                     const ExecutableStep& step,
                                     const std::string& what);

  // Runs a plan on `stream`; `buffers` are the step's slots' addresses.
  absl::Status Run(SolverPlan* plan, const std::vector<CUdeviceptr>& buffers,
                   CUstream stream);

  // The loaded libraries' functions (cusolver_solver.cc).
  struct Library;
  struct BlasLibrary;

 private:
  CusolverSolver() = default;
  static std::unique_ptr<BlasLibrary> OpenBlas();
  absl::Status RunBatched(SolverPlan* plan,
                          const std::vector<CUdeviceptr>& buffers,
                          CUdeviceptr a, CUstream stream);
  // cublas.trsm, through cuBLAS.
  absl::Status PlanTrsm(const Executable& executable,
                        const ExecutableStep& step, SolverPlan* plan);
  absl::Status RunTrsm(SolverPlan* plan,
                       const std::vector<CUdeviceptr>& buffers,
                       CUstream stream);
  CudaDriver* driver_ = nullptr;
  std::unique_ptr<Library> library_;
  void* handle_ = nullptr;
  // Null where cuBLAS did not load.
  std::unique_ptr<BlasLibrary> blas_;
  void* blas_handle_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction permutation_ = nullptr;
};

}  // namespace cuda
}  // namespace hloc

#endif  // RUNTIME_CUSOLVER_SOLVER_H_

// GemmConfig (executable.h) executed by cuBLASLt, loaded at run time with
// dlopen (libcublasLt.so.13, else .so.12; $HLOC_LIBCUBLASLT overrides), so
// nothing links CUDA. cuBLASLt alone covers every case the executable
// format has: f32 (TF32 when allow_tf32), bf16, f16 (f32 accumulation) and
// f64, strided batches, and the bias/relu/gelu epilogues, so the classic
// libcublas is not needed.
//
// As in cuda_driver.h, the few cuBLASLt types and enum values used are
// declared in cublas_gemm.cc with cublasLt.h's ABI instead of including it.
#ifndef RUNTIME_CUBLAS_GEMM_H_
#define RUNTIME_CUBLAS_GEMM_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"
#include "runtime/executable.h"

namespace hloc {
namespace cuda {

// Checks a gemm step against its slots without a GPU: 3 buffers, or 4 with
// a bias epilogue; supported types matching the slots' element types; every
// matrix (every batch, with its leading dimension) inside its slot; a bias
// of m elements. `what` names the step in errors.
absl::Status CheckGemmStep(const Executable& executable,
                           const ExecutableStep& step, const std::string& what);

struct GemmPlan;  // Descriptors and the chosen algorithm of one gemm.
struct GemmPlanDeleter {
  void operator()(GemmPlan* plan) const;
};
using GemmPlanPtr = std::unique_ptr<GemmPlan, GemmPlanDeleter>;

// The library, a handle and one workspace, for one device's context.
class CublasGemm {
 public:
  // The library opened by Create: "libcublasLt.so.13", then ".so.12", or
  // $HLOC_LIBCUBLASLT.
  static std::string DefaultLibraries();

  // Opens cuBLASLt, creates a handle and allocates the workspace on the
  // current context. Unavailable when the library is absent.
  static absl::StatusOr<std::unique_ptr<CublasGemm>> Create(CudaDriver* driver);
  ~CublasGemm();
  CublasGemm(const CublasGemm&) = delete;
  CublasGemm& operator=(const CublasGemm&) = delete;

  // Describes the step's gemm (CheckGemmStep first) and asks cuBLASLt's
  // heuristic for the algorithms that fit the workspace.
  absl::StatusOr<GemmPlanPtr> Plan(const Executable& executable,
                                   const ExecutableStep& step,
                                   const std::string& what);

  // Whether Autotune has yet to choose among the plan's algorithms.
  static bool NeedsTuning(const GemmPlan& plan);
  // Times the heuristic's candidate algorithms on these buffers (the output
  // is overwritten; inputs are only read) and keeps the fastest for every
  // later Run. Synchronous; call outside stream capture, before the first
  // Run. Idempotent.
  absl::Status Autotune(GemmPlan* plan, CUdeviceptr lhs, CUdeviceptr rhs,
                        CUdeviceptr bias, CUdeviceptr out,
                        CUstream stream) const;

  // Runs a plan on `stream`; `bias` is 0 without a bias epilogue.
  absl::Status Run(const GemmPlan& plan, CUdeviceptr lhs, CUdeviceptr rhs,
                   CUdeviceptr bias, CUdeviceptr out, CUstream stream) const;

  // The loaded library's functions (cublas_gemm.cc).
  struct Library;

 private:
  CublasGemm() = default;

  CudaDriver* driver_ = nullptr;
  std::unique_ptr<Library> library_;
  void* handle_ = nullptr;
  CUdeviceptr workspace_ = 0;
};

}  // namespace cuda
}  // namespace hloc

#endif  // RUNTIME_CUBLAS_GEMM_H_

// "cufft" steps (executable.h): the HLO fft through cuFFT, loaded at run
// time with dlopen (libcufft.so.12 or .11; $HLOC_LIBCUFFT overrides), so
// nothing links CUDA. As in cublas_gemm.h, cuFFT's few types and values
// are declared in cufft_fft.cc with cufft.h's ABI instead of including it.
//
// Two things cuFFT leaves to its caller, done here:
// - the inverse transforms are unnormalised; XLA's IFFT and IRFFT divide
//   by the transform's size, so the result is scaled in place by a small
//   kernel shipped as PTX (the runtime has no code generator; the driver
//   JIT-compiles the PTX once per executor);
// - a complex-to-real transform overwrites its input, which belongs to the
//   program (a parameter, or a value read again later), so IRFFT reads a
//   copy in a scratch buffer of the plan's own.
#ifndef RUNTIME_CUFFT_FFT_H_
#define RUNTIME_CUFFT_FFT_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"
#include "runtime/executable.h"

namespace hloc {
namespace cuda {

// Checks a cufft step against its slots without a GPU: 2 buffers (input,
// out) whose shapes fit the fft (runtime/fft_check.h), row-major.
absl::Status CheckFftStep(const Executable& executable,
                          const ExecutableStep& step, const std::string& what);

// The PTX module of the scaling kernels, hloc_scale_f32 and hloc_scale_f64
// (tests assemble it with ptxas where the toolkit is).
std::string ScalePtx();

struct FftPlan;  // One cuFFT plan, its scale and scratch.
struct FftPlanDeleter {
  void operator()(FftPlan* plan) const;
};
using FftPlanPtr = std::unique_ptr<FftPlan, FftPlanDeleter>;

// The library and the scaling kernel, for one device's context.
class CufftFft {
 public:
  // The libraries tried by Create, in order.
  static std::string DefaultLibraries();

  // Opens cuFFT and loads the scaling kernel on the current context.
  // Unavailable when the library is absent.
  static absl::StatusOr<std::unique_ptr<CufftFft>> Create(CudaDriver* driver);
  ~CufftFft();
  CufftFft(const CufftFft&) = delete;
  CufftFft& operator=(const CufftFft&) = delete;

  // Plans the step's transform (CheckFftStep first) on the current context.
  absl::StatusOr<FftPlanPtr> Plan(const Executable& executable,
                                  const ExecutableStep& step,
                                  const std::string& what);

  // Runs a plan on `stream`: input is only read.
  absl::Status Run(const FftPlan& plan, CUdeviceptr input, CUdeviceptr out,
                   CUstream stream);

  // The loaded library's functions (cufft_fft.cc).
  struct Library;

 private:
  CufftFft() = default;
  CudaDriver* driver_ = nullptr;
  std::unique_ptr<Library> library_;
  CUmodule module_ = nullptr;
  CUfunction scale_f32_ = nullptr, scale_f64_ = nullptr;
};

}  // namespace cuda
}  // namespace hloc

#endif  // RUNTIME_CUFFT_FFT_H_

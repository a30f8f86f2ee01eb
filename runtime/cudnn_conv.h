// ConvConfig (executable.h) executed by cuDNN's forward convolution (or,
// for ConvConfig::backward_filter, its filter gradient),
// loaded at run time with dlopen (libcudnn.so.9; $HLOC_LIBCUDNN overrides),
// so nothing links CUDA. This is where XLA:GPU sends its convolutions too:
// cuDNN's implicit-gemm kernels read the input in place, where an im2col
// lowering writes and reads back a window-sized copy of it.
//
// Two APIs supply the candidates Autotune times: cuDNN's descriptor
// ("legacy") API, which cuDNN 9 still ships in its cnn library (tensor,
// filter and convolution descriptors, the heuristic's ranked algorithms,
// and cudnnConvolutionForward or cudnnConvolutionBackwardFilter), and,
// where the library has it, its graph API (cudnn_conv_graph.h), whose
// engines include kernels the descriptor API cannot reach. As in
// cublas_gemm.h, its few types and enum values are declared in
// cudnn_conv.cc with cudnn.h's ABI instead of including it.
#ifndef RUNTIME_CUDNN_CONV_H_
#define RUNTIME_CUDNN_CONV_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"
#include "runtime/executable.h"

namespace hloc {
namespace cuda {

// Checks a conv step against its slots without a GPU: 3 buffers (input,
// filter, out; for a backward-filter step input, output gradient, filter
// gradient) holding the config's packed tensors of its type (f32, f64,
// f16 or bf16); one to three spatial dimensions, each with a stride,
// padding and dilation; positive sizes; the output size that the input,
// window, stride, padding and dilation give; channels divisible by the
// group count. `what` names the step in errors.
absl::Status CheckConvStep(const Executable& executable,
                           const ExecutableStep& step, const std::string& what);

struct ConvPlan;  // Descriptors and the chosen algorithm of one conv.
struct ConvPlanDeleter {
  void operator()(ConvPlan* plan) const;
};
using ConvPlanPtr = std::unique_ptr<ConvPlan, ConvPlanDeleter>;

// The library, a handle and a workspace, for one device's context.
class CudnnConv {
 public:
  // The libraries tried by Create, in order: "libcudnn.so.9", or
  // $HLOC_LIBCUDNN.
  static std::string DefaultLibraries();

  // Opens cuDNN and creates a handle on the current context. Unavailable
  // when the library is absent.
  static absl::StatusOr<std::unique_ptr<CudnnConv>> Create(CudaDriver* driver);
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  // Describes the step's convolution (CheckConvStep first), asks cuDNN's
  // heuristics for their ranked algorithms and engine configurations
  // (finalizing the latter's plans) and grows the workspace to what the
  // usable ones need. Unimplemented when cuDNN has no algorithm.
  absl::StatusOr<ConvPlanPtr> Plan(const Executable& executable,
                                   const ExecutableStep& step,
                                   const std::string& what);

  // Whether Autotune has yet to choose among the plan's algorithms.
  static bool NeedsTuning(const ConvPlan& plan);
  // Times the candidate algorithms on these buffers (the output is
  // overwritten; inputs are only read) and keeps the fastest for every
  // later Run. Synchronous; call before the first Run. Idempotent.
  absl::Status Autotune(ConvPlan* plan, CUdeviceptr input, CUdeviceptr filter,
                        CUdeviceptr out, CUstream stream);

  // Runs a plan on `stream`. The buffers are the step's in order: for a
  // backward-filter plan `filter` is the output's gradient and `out` the
  // filter's gradient.
  absl::Status Run(const ConvPlan& plan, CUdeviceptr input, CUdeviceptr filter,
                   CUdeviceptr out, CUstream stream);

  // The plan's candidates, Run's first: descriptor-API algorithms and
  // graph-API plans, each named ("algo 1 (tensor ops)", "engine 12 #3"); and
  // one of them run as Run runs the first (for Autotune, and for tests
  // that check every candidate).
  static size_t CandidateCount(const ConvPlan& plan);
  static std::string DescribeCandidate(const ConvPlan& plan, size_t i);
  static bool IsGraphCandidate(const ConvPlan& plan, size_t i);
  absl::Status RunCandidate(const ConvPlan& plan, size_t i, CUdeviceptr input,
                            CUdeviceptr filter, CUdeviceptr out,
                            CUstream stream);

  // The loaded library's functions (cudnn_conv.cc).
  struct Library;

 private:
  CudnnConv() = default;
  // At least `bytes` of workspace (waits for the device before freeing a
  // smaller one).
  absl::Status ReserveWorkspace(size_t bytes, const std::string& what);

  CudaDriver* driver_ = nullptr;
  std::unique_ptr<Library> library_;
  void* handle_ = nullptr;
  CUdeviceptr workspace_ = 0;
  size_t workspace_bytes_ = 0;
};

}  // namespace cuda
}  // namespace hloc

#endif  // RUNTIME_CUDNN_CONV_H_

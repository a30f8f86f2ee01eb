// Convolutions through cuDNN's graph ("backend") API: the engines cuDNN 9
// offers beyond the descriptor API's fixed list of algorithms.
//
// The descriptor API (cudnn_conv.h) names eight forward and seven
// filter-gradient algorithms; cuDNN's newer kernels, among them its
// channels-last kernels for 16-bit depthwise convolutions, are engines
// of the graph API only, which XLA:GPU (through cudnn-frontend) and
// PyTorch use. Here one convolution is an operation graph of one node;
// cuDNN's heuristic (mode A) ranks engine configurations for it, and the
// first few usable ones are finalized into execution plans. CudnnConv
// times them on the device beside the descriptor API's algorithms and
// keeps the fastest.
//
// As in cudnn_conv.cc, the API's types and enum values (cudnn_graph.h,
// cuDNN 9) are declared in the .cc instead of including cuDNN's headers.
#ifndef RUNTIME_CUDNN_CONV_GRAPH_H_
#define RUNTIME_CUDNN_CONV_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/cuda_driver.h"

namespace hloc {
namespace cuda {

// The graph API's functions, bound from the library CudnnConv opened.
struct CudnnGraphFunctions {
  int (*cudnnBackendCreateDescriptor)(int, void**) = nullptr;
  int (*cudnnBackendDestroyDescriptor)(void*) = nullptr;
  int (*cudnnBackendFinalize)(void*) = nullptr;
  int (*cudnnBackendSetAttribute)(void*, int, int, int64_t,
                                  const void*) = nullptr;
  int (*cudnnBackendGetAttribute)(void*, int, int, int64_t, int64_t*,
                                  void*) = nullptr;
  int (*cudnnBackendExecute)(void*, void*, void*) = nullptr;
  const char* (*cudnnGetErrorString)(int) = nullptr;

  bool available() const;
  // An error naming the function, its status and the step.
  absl::Status Check(int status, const char* function,
                     absl::string_view what) const;
};

// What one convolution reads and writes, in cuDNN's terms. Each tensor's
// sizes are in cuDNN's logical order ([N, C, spatial...]; the filter
// [K, C/groups, spatial...]; the group count follows from C over the
// filter's C/groups) with the strides of its layout in memory.
struct GraphConvDescription {
  bool backward_filter = false;  // else forward
  int data_type = 0;             // cudnnDataType_t
  bool f64 = false;              // data (and arithmetic) in double
  // f32 data may use TF32 tensor cores.
  bool allow_tf32 = false;
  std::vector<int64_t> input, input_strides;
  std::vector<int64_t> filter, filter_strides;
  std::vector<int64_t> output, output_strides;
  std::vector<int64_t> padding, strides, dilation;  // per spatial dimension
};

// The finalized execution plans of one convolution, best ranked first.
class GraphConvPlans {
 public:
  // Plans for `d` on `handle`: at most `max_plans` of the heuristic's
  // engine configurations that finalize, whose numerics `d` allows (no
  // TF32 for f32 without allow_tf32, no reduced-precision sums or
  // down-converted inputs) and whose workspace is at most
  // `max_workspace_bytes`. Empty (not an error) when cuDNN has none; an
  // error when the graph itself cannot be built.
  static absl::StatusOr<std::unique_ptr<GraphConvPlans>> Create(
      const CudnnGraphFunctions& api, void* handle,
      const GraphConvDescription& d, int max_plans, size_t max_workspace_bytes,
      absl::string_view what);
  ~GraphConvPlans();
  GraphConvPlans(const GraphConvPlans&) = delete;
  GraphConvPlans& operator=(const GraphConvPlans&) = delete;

  size_t size() const { return plans_.size(); }
  size_t workspace_bytes(size_t i) const { return plans_[i].workspace_bytes; }
  // "engine 12 #3": the engine's cuDNN global index and the heuristic's
  // rank of its configuration, for logs.
  std::string Describe(size_t i) const;
  // Enqueues plan i on the handle's stream: for a forward plan x, w and
  // y; for a filter gradient x, the output's gradient and the filter's.
  absl::Status Execute(size_t i, void* handle, CUdeviceptr x,
                       CUdeviceptr second, CUdeviceptr third,
                       CUdeviceptr workspace) const;

 private:
  struct Plan {
    void* descriptor = nullptr;
    size_t workspace_bytes = 0;
    int64_t engine = -1;
    // Its configuration's place in the heuristic's ranking (from 0): one
    // engine may come several times, with different knobs.
    int rank = 0;
  };
  explicit GraphConvPlans(const CudnnGraphFunctions& api) : api_(api) {}

  const CudnnGraphFunctions& api_;
  std::string what_;
  // Every descriptor made, destroyed with the plans (cuDNN's plans refer
  // to their graph's).
  std::vector<void*> owned_;
  std::vector<Plan> plans_;
};

}  // namespace cuda
}  // namespace hloc

#endif  // RUNTIME_CUDNN_CONV_GRAPH_H_

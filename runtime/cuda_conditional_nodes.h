// While loops and conditionals that run on the GPU inside a CUDA graph, as
// conditional nodes (CUDA 12.3's while nodes, 12.8's switch nodes), for the
// CUDA runtime (cuda_executor.h).
//
// A loop without a known trip count otherwise costs the host a round trip
// per iteration: run the condition, copy its predicate back, synchronise,
// decide, launch the body. As a conditional node the whole loop is part of
// the graph around it. While the stream captures that graph:
//
//   condition steps; set(handle, predicate)
//   WHILE(handle) { body steps; condition steps; set(handle, predicate) }
//
// where set is a one-thread kernel (SetConditionPtx) that reads the
// predicate the condition's kernels wrote and hands it to the node through
// cudaGraphSetConditional. A conditional is a SWITCH node over its
// branches after one set. The bodies are captured into the graphs the
// driver made for the node (cuStreamBeginCaptureToGraph), on a stream per
// nesting depth, so loops nest inside loops.
#ifndef RUNTIME_CUDA_CONDITIONAL_NODES_H_
#define RUNTIME_CUDA_CONDITIONAL_NODES_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"

namespace hloc {
namespace cuda {

// How the set kernel turns the predicate into the node's condition value.
enum class ConditionKind {
  kWhile = 0,        // pred: 1 while true.
  kPredBranch = 1,   // pred conditional: branch 0 when true, else 1.
  kIndexBranch = 2,  // s32 conditional: the index, the last branch when
                     // out of range (XLA's semantics).
};

// The set kernel, hloc_set_condition(handle, predicate, kind, branches).
std::string SetConditionPtx();

class CudaConditionalNodes {
 public:
  // Unavailable when the driver has no conditional nodes
  // (CudaDriver::SupportsConditionalNodes); otherwise loads the set kernel
  // into `context` (current on this thread).
  static absl::StatusOr<std::unique_ptr<CudaConditionalNodes>> Create(
      CudaDriver* driver, CUcontext context);
  ~CudaConditionalNodes();
  CudaConditionalNodes(const CudaConditionalNodes&) = delete;
  CudaConditionalNodes& operator=(const CudaConditionalNodes&) = delete;

  struct Node {
    CUgraphConditionalHandle handle = 0;
    std::vector<CUgraph> bodies;  // Owned by the node's graph.
  };

  // Into the graph `stream` is capturing: the set kernel for a new handle,
  // then after it a conditional node with `bodies` empty body graphs (a
  // while node for kWhile, else a switch); the capture goes on after the
  // node. `what` names the step in errors.
  absl::StatusOr<Node> Add(CUstream stream, ConditionKind kind,
                           CUdeviceptr predicate, int bodies,
                           const std::string& what);

  // Enqueues the set kernel on `stream` (a while body's last step).
  absl::Status Set(CUstream stream, CUgraphConditionalHandle handle,
                   ConditionKind kind, CUdeviceptr predicate, int branches,
                   const std::string& what);

  // Captures into `body` what `issue` enqueues on the stream it is given:
  // the stream of nesting depth `depth` (1 for a node in a top-level
  // graph), created on first use.
  absl::Status CaptureInto(CUgraph body, int depth,
                           const std::function<absl::Status(CUstream)>& issue,
                           const std::string& what);

 private:
  CudaConditionalNodes(CudaDriver* driver, CUcontext context)
      : driver_(driver), context_(context) {}

  CudaDriver* driver_;
  CUcontext context_;
  CUmodule module_ = nullptr;
  CUfunction set_ = nullptr;
  std::vector<CUstream> streams_;  // streams_[d - 1] captures depth d.
};

}  // namespace cuda
}  // namespace hloc

#endif  // RUNTIME_CUDA_CONDITIONAL_NODES_H_

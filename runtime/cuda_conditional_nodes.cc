#include "runtime/cuda_conditional_nodes.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace hloc {
namespace cuda {

std::string SetConditionPtx() {
  // cudaGraphSetConditional is a device runtime builtin that ptxas
  // resolves itself (no device runtime library to link). kind 0 and 1 read
  // a pred byte (kind 1 flips it: a pred conditional's branch 0 is its true
  // computation); kind 2 reads an s32 index, unsigned so that a negative
  // one is out of range like one past the end, and both take the last
  // branch.
  return R"(
.version 8.3
.target sm_60
.address_size 64

.extern .func cudaGraphSetConditional(.param .b64 handle, .param .b32 value);

.visible .entry hloc_set_condition(.param .u64 handle, .param .u64 predicate,
                                   .param .u32 kind, .param .u32 branches)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [handle];
  ld.param.u64 %rd2, [predicate];
  ld.param.u32 %r1, [kind];
  ld.param.u32 %r2, [branches];
  cvta.to.global.u64 %rd3, %rd2;
  setp.eq.u32 %p1, %r1, 2;
  @%p1 bra $L_index;
  ld.global.u8 %r3, [%rd3];
  setp.ne.u32 %p2, %r3, 0;
  selp.u32 %r4, 1, 0, %p2;
  xor.b32 %r4, %r4, %r1;
  bra.uni $L_set;
$L_index:
  ld.global.u32 %r3, [%rd3];
  add.u32 %r5, %r2, -1;
  setp.lt.u32 %p2, %r3, %r2;
  selp.u32 %r4, %r3, %r5, %p2;
$L_set:
  {
    .param .b64 param0;
    .param .b32 param1;
    st.param.b64 [param0], %rd1;
    st.param.b32 [param1], %r4;
    call.uni cudaGraphSetConditional, (param0, param1);
  }
  ret;
}
)";
}

absl::StatusOr<std::unique_ptr<CudaConditionalNodes>>
CudaConditionalNodes::Create(CudaDriver* driver, CUcontext context) {
  if (!driver->SupportsConditionalNodes()) {
    return absl::UnavailableError(
        absl::StrCat(driver->library(),
                     " has no conditional graph nodes (a CUDA 12.8 or newer "
                     "driver has)"));
  }
  std::unique_ptr<CudaConditionalNodes> nodes(
      new CudaConditionalNodes(driver, context));
  const std::string ptx = SetConditionPtx();
  const std::string what = "loading the conditional nodes' set kernel";
  absl::Status status =
      HLOC_CUDA_CALL(driver, what, cuModuleLoadDataEx, &nodes->module_,
                     ptx.c_str(), 0, nullptr, nullptr);
  if (status.ok()) {
    status = HLOC_CUDA_CALL(driver, what, cuModuleGetFunction, &nodes->set_,
                            nodes->module_, "hloc_set_condition");
  }
  if (!status.ok()) return status;
  return nodes;
}

CudaConditionalNodes::~CudaConditionalNodes() {
  for (CUstream stream : streams_) driver_->cuStreamDestroy(stream);
  if (module_ != nullptr) driver_->cuModuleUnload(module_);
}

absl::Status CudaConditionalNodes::Set(CUstream stream,
                                       CUgraphConditionalHandle handle,
                                       ConditionKind kind,
                                       CUdeviceptr predicate, int branches,
                                       const std::string& what) {
  unsigned int kind_value = static_cast<unsigned int>(kind);
  unsigned int branch_count = static_cast<unsigned int>(branches);
  void* parameters[] = {&handle, &predicate, &kind_value, &branch_count};
  return HLOC_CUDA_CALL(driver_, absl::StrCat(what, ", setting its condition"),
                        cuLaunchKernel, set_, 1, 1, 1, 1, 1, 1, 0, stream,
                        parameters, nullptr);
}

absl::StatusOr<CudaConditionalNodes::Node> CudaConditionalNodes::Add(
    CUstream stream, ConditionKind kind, CUdeviceptr predicate, int bodies,
    const std::string& what) {
  const std::string context = absl::StrCat(what, " as a conditional node");
  CUstreamCaptureStatus capturing = 0;
  unsigned long long id = 0;
  CUgraph graph = nullptr;
  const CUgraphNode* dependencies = nullptr;
  const void* edge_data = nullptr;
  size_t num_dependencies = 0;
  auto capture_info = [&]() {
    return HLOC_CUDA_CALL(driver_, context, cuStreamGetCaptureInfo, stream,
                          &capturing, &id, &graph, &dependencies, &edge_data,
                          &num_dependencies);
  };
  absl::Status status = capture_info();
  if (!status.ok()) return status;
  if (capturing != CU_STREAM_CAPTURE_STATUS_ACTIVE) {
    return absl::InternalError(
        absl::StrCat(context, ": the stream is not capturing a graph"));
  }
  Node node;
  status = HLOC_CUDA_CALL(driver_, context, cuGraphConditionalHandleCreate,
                          &node.handle, graph, context_, 0, 0);
  if (status.ok()) {
    status = Set(stream, node.handle, kind, predicate, bodies, what);
  }
  // The set kernel is now what the node depends on.
  if (status.ok()) status = capture_info();
  if (!status.ok()) return status;
  CUgraphNodeParams params;
  params.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  CUDA_CONDITIONAL_NODE_PARAMS& conditional = params.params.conditional;
  conditional.handle = node.handle;
  conditional.type = kind == ConditionKind::kWhile ? CU_GRAPH_COND_TYPE_WHILE
                                                   : CU_GRAPH_COND_TYPE_SWITCH;
  conditional.size = static_cast<unsigned int>(bodies);
  conditional.ctx = context_;
  CUgraphNode added = nullptr;
  status = HLOC_CUDA_CALL(driver_, context, cuGraphAddNode, &added, graph,
                          dependencies, edge_data, num_dependencies, &params);
  // The capture goes on after the node, by a plain edge.
  if (status.ok()) {
    status = HLOC_CUDA_CALL(driver_, context, cuStreamUpdateCaptureDependencies,
                            stream, &added, nullptr, 1,
                            CU_STREAM_SET_CAPTURE_DEPENDENCIES);
  }
  if (!status.ok()) return status;
  node.bodies.assign(conditional.phGraph_out, conditional.phGraph_out + bodies);
  return node;
}

absl::Status CudaConditionalNodes::CaptureInto(
    CUgraph body, int depth, const std::function<absl::Status(CUstream)>& issue,
    const std::string& what) {
  while (static_cast<int>(streams_.size()) < depth) {
    CUstream stream = nullptr;
    absl::Status status =
        HLOC_CUDA_CALL(driver_, "creating a stream for conditional bodies",
                       cuStreamCreate, &stream, CU_STREAM_NON_BLOCKING);
    if (!status.ok()) return status;
    streams_.push_back(stream);
  }
  CUstream stream = streams_[depth - 1];
  const std::string context = absl::StrCat(what, ", capturing its body");
  absl::Status status = HLOC_CUDA_CALL(
      driver_, context, cuStreamBeginCaptureToGraph, stream, body, nullptr,
      nullptr, 0, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  if (!status.ok()) return status;
  status = issue(stream);
  // The capture must end even after a failure, or the stream stays in
  // capture mode; the graph it returns is `body`, owned by its node.
  CUgraph captured = nullptr;
  const absl::Status ended =
      HLOC_CUDA_CALL(driver_, context, cuStreamEndCapture, stream, &captured);
  return status.ok() ? ended : status;
}

}  // namespace cuda
}  // namespace hloc

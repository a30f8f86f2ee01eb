#include "runtime/cudnn_conv_graph.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/dlopen_symbols.h"

namespace hloc {
namespace cuda {
namespace {

// cudnn_graph.h ABI (cuDNN 9): status, attribute types, descriptor types,
// attribute names and the enum values this file sets or reads.
constexpr int CUDNN_STATUS_SUCCESS = 0;

constexpr int CUDNN_TYPE_HANDLE = 0;
constexpr int CUDNN_TYPE_DATA_TYPE = 1;
constexpr int CUDNN_TYPE_INT64 = 3;
constexpr int CUDNN_TYPE_FLOAT = 4;
constexpr int CUDNN_TYPE_DOUBLE = 5;
constexpr int CUDNN_TYPE_VOID_PTR = 6;
constexpr int CUDNN_TYPE_CONVOLUTION_MODE = 7;
constexpr int CUDNN_TYPE_HEUR_MODE = 8;
constexpr int CUDNN_TYPE_NUMERICAL_NOTE = 11;
constexpr int CUDNN_TYPE_BACKEND_DESCRIPTOR = 15;

constexpr int CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR = 1;
constexpr int CUDNN_BACKEND_ENGINE_DESCRIPTOR = 2;
constexpr int CUDNN_BACKEND_ENGINECFG_DESCRIPTOR = 3;
constexpr int CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR = 4;
constexpr int CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR = 5;
constexpr int CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR = 10;
constexpr int CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR =
    11;
constexpr int CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR = 15;
constexpr int CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR = 16;
constexpr int CUDNN_BACKEND_TENSOR_DESCRIPTOR = 17;

constexpr int CUDNN_ATTR_CONVOLUTION_COMP_TYPE = 100;
constexpr int CUDNN_ATTR_CONVOLUTION_CONV_MODE = 101;
constexpr int CUDNN_ATTR_CONVOLUTION_DILATIONS = 102;
constexpr int CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES = 103;
constexpr int CUDNN_ATTR_CONVOLUTION_POST_PADDINGS = 104;
constexpr int CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS = 105;
constexpr int CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS = 106;
constexpr int CUDNN_ATTR_ENGINEHEUR_MODE = 200;
constexpr int CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH = 201;
constexpr int CUDNN_ATTR_ENGINEHEUR_RESULTS = 202;
constexpr int CUDNN_ATTR_ENGINECFG_ENGINE = 300;
constexpr int CUDNN_ATTR_EXECUTION_PLAN_HANDLE = 400;
constexpr int CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401;
constexpr int CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE = 402;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA = 700;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA = 701;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC = 702;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W = 703;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X = 704;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y = 705;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA = 712;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA = 713;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC = 714;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW = 715;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X = 716;
constexpr int CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY = 717;
constexpr int CUDNN_ATTR_OPERATIONGRAPH_HANDLE = 800;
constexpr int CUDNN_ATTR_OPERATIONGRAPH_OPS = 801;
constexpr int CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT = 900;
constexpr int CUDNN_ATTR_TENSOR_DATA_TYPE = 901;
constexpr int CUDNN_ATTR_TENSOR_DIMENSIONS = 902;
constexpr int CUDNN_ATTR_TENSOR_STRIDES = 903;
constexpr int CUDNN_ATTR_TENSOR_UNIQUE_ID = 906;
constexpr int CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS = 1000;
constexpr int CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS = 1001;
constexpr int CUDNN_ATTR_VARIANT_PACK_WORKSPACE = 1003;
constexpr int CUDNN_ATTR_ENGINE_GLOBAL_INDEX = 1301;
constexpr int CUDNN_ATTR_ENGINE_NUMERICAL_NOTE = 1303;

constexpr int CUDNN_DATA_FLOAT = 0;
constexpr int CUDNN_DATA_DOUBLE = 1;
constexpr int CUDNN_CROSS_CORRELATION = 1;
constexpr int CUDNN_HEUR_MODE_A = 3;
constexpr int CUDNN_NUMERICAL_NOTE_TENSOR_CORE = 0;
constexpr int CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS = 1;
constexpr int CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION = 2;
constexpr int CUDNN_NUMERICAL_NOTE_TYPE_COUNT = 10;

// The variant pack's names for the three tensors.
constexpr int64_t kInputId = 'x', kSecondId = 'w', kThirdId = 'y';

// cuDNN may assume this alignment of every tensor: the executor's buffers
// start at multiples of 256 bytes (cuda_executor.cc), parameters too.
constexpr int64_t kAlignmentBytes = 16;

}  // namespace

bool CudnnGraphFunctions::available() const {
  return cudnnBackendCreateDescriptor != nullptr &&
         cudnnBackendDestroyDescriptor != nullptr &&
         cudnnBackendFinalize != nullptr &&
         cudnnBackendSetAttribute != nullptr &&
         cudnnBackendGetAttribute != nullptr && cudnnBackendExecute != nullptr;
}

absl::Status CudnnGraphFunctions::Check(int status, const char* function,
                                        absl::string_view what) const {
  if (status == CUDNN_STATUS_SUCCESS) return absl::OkStatus();
  return LibraryCallError(
      "cuDNN", function, status,
      cudnnGetErrorString != nullptr ? cudnnGetErrorString(status) : nullptr,
      what);
}

GraphConvPlans::~GraphConvPlans() {
  for (size_t i = owned_.size(); i-- > 0;) {
    api_.cudnnBackendDestroyDescriptor(owned_[i]);
  }
}

std::string GraphConvPlans::Describe(size_t i) const {
  return absl::StrCat("engine ", plans_[i].engine, " #", plans_[i].rank);
}

absl::StatusOr<std::unique_ptr<GraphConvPlans>> GraphConvPlans::Create(
    const CudnnGraphFunctions& api, void* handle, const GraphConvDescription& d,
    int max_plans, size_t max_workspace_bytes, absl::string_view what) {
  std::unique_ptr<GraphConvPlans> plans(new GraphConvPlans(api));
  plans->what_ = std::string(what);
  GraphConvPlans& p = *plans;
  const std::string w(what);
  absl::Status status;
  // Each step below runs only while every earlier one succeeded.
  auto call = [&](int code, const char* function) {
    if (status.ok()) status = api.Check(code, function, w);
  };
  auto create = [&](int type) -> void* {
    void* descriptor = nullptr;
    if (!status.ok()) return nullptr;
    call(api.cudnnBackendCreateDescriptor(type, &descriptor),
         "cudnnBackendCreateDescriptor");
    if (status.ok()) p.owned_.push_back(descriptor);
    return descriptor;
  };
  auto set = [&](void* descriptor, int name, int type, int64_t count,
                 const void* values) {
    if (!status.ok()) return;
    call(api.cudnnBackendSetAttribute(descriptor, name, type, count, values),
         "cudnnBackendSetAttribute");
  };
  auto finalize = [&](void* descriptor) {
    if (status.ok()) {
      call(api.cudnnBackendFinalize(descriptor), "cudnnBackendFinalize");
    }
  };
  auto tensor = [&](int64_t id, const std::vector<int64_t>& dims,
                    const std::vector<int64_t>& strides) {
    void* t = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &d.data_type);
    set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64,
        static_cast<int64_t>(dims.size()), dims.data());
    set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64,
        static_cast<int64_t>(strides.size()), strides.data());
    set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &id);
    set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1,
        &kAlignmentBytes);
    finalize(t);
    return t;
  };
  // Forward: x, w, y. Filter gradient: x, dy, dw.
  void* x = tensor(kInputId, d.input, d.input_strides);
  void* second = d.backward_filter
                     ? tensor(kSecondId, d.output, d.output_strides)
                     : tensor(kSecondId, d.filter, d.filter_strides);
  void* third = d.backward_filter
                    ? tensor(kThirdId, d.filter, d.filter_strides)
                    : tensor(kThirdId, d.output, d.output_strides);

  const int64_t spatial = static_cast<int64_t>(d.padding.size());
  const int compute_type = d.f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  const int mode = CUDNN_CROSS_CORRELATION;
  void* conv = create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &spatial);
  set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1,
      &compute_type);
  set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1,
      &mode);
  set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, spatial,
      d.dilation.data());
  set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, spatial,
      d.strides.data());
  set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, spatial,
      d.padding.data());
  set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, spatial,
      d.padding.data());
  finalize(conv);

  // alpha = 1, beta = 0, in double for double data.
  const double one64 = 1, zero64 = 0;
  const float one32 = 1, zero32 = 0;
  const int scale_type = d.f64 ? CUDNN_TYPE_DOUBLE : CUDNN_TYPE_FLOAT;
  const void* one = d.f64 ? static_cast<const void*>(&one64) : &one32;
  const void* zero = d.f64 ? static_cast<const void*>(&zero64) : &zero32;
  void* op;
  if (d.backward_filter) {
    op = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
        CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
        CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &second);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
        CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &third);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
        CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, scale_type, 1,
        one);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA, scale_type, 1,
        zero);
  } else {
    op = create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
        CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
        CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &second);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
        CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &third);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
        CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, scale_type, 1, one);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, scale_type, 1, zero);
  }
  finalize(op);
  void* graph = create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
      &op);
  set(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
  finalize(graph);

  void* heuristic = create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  const int heuristic_mode = CUDNN_HEUR_MODE_A;
  set(heuristic, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
  set(heuristic, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1,
      &heuristic_mode);
  finalize(heuristic);
  int64_t count = 0;
  if (status.ok()) {
    call(api.cudnnBackendGetAttribute(heuristic, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                      nullptr),
         "cudnnBackendGetAttribute");
  }
  std::vector<void*> configs;
  for (int64_t i = 0; i < count && status.ok(); ++i) {
    configs.push_back(create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
  }
  if (status.ok() && count > 0) {
    int64_t returned = 0;
    call(api.cudnnBackendGetAttribute(heuristic, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                      &returned, configs.data()),
         "cudnnBackendGetAttribute");
    configs.resize(std::min<int64_t>(returned, count));
  }
  if (!status.ok()) return status;

  // From here a configuration that cuDNN refuses is skipped, not an error:
  // the heuristic ranks engines that may not finalize for this graph.
  for (size_t rank = 0; rank < configs.size(); ++rank) {
    if (static_cast<int>(p.plans_.size()) >= max_plans) break;
    void* config = configs[rank];
    void* engine = create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    if (!status.ok()) return status;
    int64_t n = 0;
    if (api.cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                                     &engine) != CUDNN_STATUS_SUCCESS) {
      continue;
    }
    int notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT] = {};
    int64_t note_count = 0;
    if (api.cudnnBackendGetAttribute(
            engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
            CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &note_count,
            notes) != CUDNN_STATUS_SUCCESS) {
      continue;
    }
    bool allowed = true;
    for (int64_t k = 0; k < note_count; ++k) {
      // f32 data on tensor cores is TF32, which only allow_tf32 permits;
      // sums in 16 bits or inputs rounded down are never XLA's numerics.
      if ((notes[k] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE &&
           d.data_type == CUDNN_DATA_FLOAT && !d.allow_tf32) ||
          notes[k] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS ||
          notes[k] == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION) {
        allowed = false;
      }
    }
    if (!allowed) continue;
    Plan plan;
    plan.rank = static_cast<int>(rank);
    api.cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
                                 CUDNN_TYPE_INT64, 1, &n, &plan.engine);
    plan.descriptor = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    if (!status.ok()) return status;
    int64_t workspace = 0;
    if (api.cudnnBackendSetAttribute(
            plan.descriptor, CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
            CUDNN_TYPE_HANDLE, 1, &handle) != CUDNN_STATUS_SUCCESS ||
        api.cudnnBackendSetAttribute(plan.descriptor,
                                     CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                     &config) != CUDNN_STATUS_SUCCESS ||
        api.cudnnBackendFinalize(plan.descriptor) != CUDNN_STATUS_SUCCESS ||
        api.cudnnBackendGetAttribute(
            plan.descriptor, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
            CUDNN_TYPE_INT64, 1, &n, &workspace) != CUDNN_STATUS_SUCCESS ||
        workspace < 0 || static_cast<size_t>(workspace) > max_workspace_bytes) {
      continue;
    }
    plan.workspace_bytes = static_cast<size_t>(workspace);
    p.plans_.push_back(plan);
  }
  return plans;
}

absl::Status GraphConvPlans::Execute(size_t i, void* handle, CUdeviceptr x,
                                     CUdeviceptr second, CUdeviceptr third,
                                     CUdeviceptr workspace) const {
  void* pack = nullptr;
  absl::Status status =
      api_.Check(api_.cudnnBackendCreateDescriptor(
                     CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack),
                 "cudnnBackendCreateDescriptor", what_);
  if (!status.ok()) return status;
  void* pointers[] = {reinterpret_cast<void*>(x),
                      reinterpret_cast<void*>(second),
                      reinterpret_cast<void*>(third)};
  const int64_t ids[] = {kInputId, kSecondId, kThirdId};
  void* workspace_pointer = reinterpret_cast<void*>(workspace);
  auto set = [&](int name, int type, int64_t count, const void* values) {
    if (status.ok()) {
      status = api_.Check(
          api_.cudnnBackendSetAttribute(pack, name, type, count, values),
          "cudnnBackendSetAttribute", what_);
    }
  };
  set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers);
  set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, ids);
  set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1,
      &workspace_pointer);
  if (status.ok()) {
    status = api_.Check(api_.cudnnBackendFinalize(pack), "cudnnBackendFinalize",
                        what_);
  }
  if (status.ok()) {
    status =
        api_.Check(api_.cudnnBackendExecute(handle, plans_[i].descriptor, pack),
                   "cudnnBackendExecute", what_);
  }
  api_.cudnnBackendDestroyDescriptor(pack);
  return status;
}

}  // namespace cuda
}  // namespace hloc

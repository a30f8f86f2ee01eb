#include "runtime/cudnn_conv.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/primitive_type.h"
#include "runtime/cuda_timing.h"
#include "runtime/cudnn_conv_graph.h"
#include "runtime/dlopen_symbols.h"

namespace hloc {
namespace cuda {
namespace {

// cudnn_graph.h / cudnn_cnn.h ABI (cuDNN 8 and 9).
using cudnnStatus_t = int;
constexpr cudnnStatus_t CUDNN_STATUS_SUCCESS = 0;
using cudnnHandle_t = void*;
using cudnnTensorDescriptor_t = void*;
using cudnnFilterDescriptor_t = void*;
using cudnnConvolutionDescriptor_t = void*;
// cudnnDataType_t
constexpr int CUDNN_DATA_FLOAT = 0;
constexpr int CUDNN_DATA_DOUBLE = 1;
constexpr int CUDNN_DATA_HALF = 2;
constexpr int CUDNN_DATA_BFLOAT16 = 9;
// cudnnTensorFormat_t
constexpr int CUDNN_TENSOR_NCHW = 0;
constexpr int CUDNN_TENSOR_NHWC = 1;
// cudnnConvolutionMode_t: HLO's convolution does not flip the window.
constexpr int CUDNN_CROSS_CORRELATION = 1;
// cudnnMathType_t
constexpr int CUDNN_DEFAULT_MATH = 0;
constexpr int CUDNN_TENSOR_OP_MATH = 1;
constexpr int CUDNN_FMA_MATH = 3;
// cudnnConvolutionFwdAlgoPerf_t and cudnnConvolutionBwdFilterAlgoPerf_t
// (the same fields; `algo` is each one's enum).
struct cudnnConvolutionAlgoPerf_t {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int mathType;
  int reserved[3];
};
constexpr int CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8;
constexpr int CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT = 7;

// Algorithms needing more workspace than this are not tried (the
// heuristic ranks others that need less; FFT algorithms can ask for
// gigabytes on large inputs).
constexpr size_t kMaxWorkspaceBytes = size_t{256} << 20;

// The graph API's engine configurations tried beside the descriptor API's
// algorithms: the heuristic's first few usable ones. Each is finalized
// (some compile a kernel at run time) and timed by Autotune, so the
// number bounds the executable's first run.
constexpr int kGraphPlans = 6;

// HLOC_CUDNN_GRAPH=0 leaves out the graph API's plans (to compare, or to
// work around an engine).
bool GraphPlansWanted() {
  const char* env = std::getenv("HLOC_CUDNN_GRAPH");
  return env == nullptr || env[0] != '0';
}

// HLOC_CUDNN_LOG=1 prints each convolution's candidates and the one
// Autotune keeps (to stderr), for reading a profile.
bool LogChoices() {
  const char* env = std::getenv("HLOC_CUDNN_LOG");
  return env != nullptr && env[0] == '1';
}

// cudnnDataType_t of an element type, or -1.
int DataType(PrimitiveType type) {
  switch (type) {
    case F32:
      return CUDNN_DATA_FLOAT;
    case F64:
      return CUDNN_DATA_DOUBLE;
    case F16:
      return CUDNN_DATA_HALF;
    case BF16:
      return CUDNN_DATA_BFLOAT16;
    default:
      return -1;
  }
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// cuDNN's descriptors take int sizes and index tensors in 32 bits.
constexpr int64_t kMaxElements = std::numeric_limits<int32_t>::max();

// The three tensors of a conv as cuDNN describes them: sizes in cuDNN's
// order ([N, C, spatial...]; the filter [K, C/groups, spatial...]) and,
// for input and output, the strides of the packed layout. A single
// spatial dimension gets a second of size 1 (cuDNN convolves 2-D and 3-D).
struct ConvTensors {
  std::vector<int> input, filter, output;
  std::vector<int> input_strides, output_strides;
  std::vector<int> padding, strides, dilation;
};

std::vector<int> PackedStrides(const std::vector<int>& dims,
                               bool channels_last) {
  // Physical order, outermost first: N, spatial..., C or N, C, spatial...
  std::vector<size_t> order = {0};
  if (!channels_last) order.push_back(1);
  for (size_t d = 2; d < dims.size(); ++d) order.push_back(d);
  if (channels_last) order.push_back(1);
  std::vector<int> strides(dims.size());
  int64_t stride = 1;
  for (size_t i = order.size(); i-- > 0;) {
    strides[order[i]] = static_cast<int>(stride);
    stride *= dims[order[i]];
  }
  return strides;
}

ConvTensors DescribeTensors(const ConvConfig& c) {
  ConvTensors t;
  auto ints = [](std::vector<int64_t> v, int64_t pad_with) {
    if (v.size() == 1) v.push_back(pad_with);
    return std::vector<int>(v.begin(), v.end());
  };
  const std::vector<int> in = ints(c.input_spatial, 1);
  const std::vector<int> window = ints(c.kernel_spatial, 1);
  const std::vector<int> out = ints(c.output_spatial, 1);
  t.input = {static_cast<int>(c.batch), static_cast<int>(c.input_features)};
  t.input.insert(t.input.end(), in.begin(), in.end());
  t.filter = {static_cast<int>(c.output_features),
              static_cast<int>(c.input_features / c.feature_group_count)};
  t.filter.insert(t.filter.end(), window.begin(), window.end());
  t.output = {static_cast<int>(c.batch), static_cast<int>(c.output_features)};
  t.output.insert(t.output.end(), out.begin(), out.end());
  t.input_strides = PackedStrides(t.input, c.channels_last);
  t.output_strides = PackedStrides(t.output, c.channels_last);
  t.padding = ints(c.padding, 0);
  t.strides = ints(c.strides, 1);
  t.dilation = ints(c.dilation, 1);
  return t;
}

}  // namespace

absl::Status CheckConvStep(const Executable& executable,
                           const ExecutableStep& step,
                           const std::string& what) {
  auto fail = [&](auto&&... parts) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", parts...));
  };
  const ConvConfig& c = step.conv;
  if (step.buffers.size() != 3) {
    return fail("a convolution takes 3 buffers (input, filter, out), not ",
                step.buffers.size());
  }
  if (DataType(c.type) < 0) {
    return fail("unsupported convolution type ", PrimitiveTypeName(c.type),
                " (cuDNN here: f32, f64, f16, bf16)");
  }
  const size_t rank = c.input_spatial.size();
  if (rank < 1 || rank > 3) {
    return fail("a convolution with ", rank,
                " spatial dimensions (cuDNN here: 1 to 3)");
  }
  for (const std::vector<int64_t>* v :
       {&c.kernel_spatial, &c.output_spatial, &c.strides, &c.padding,
        &c.dilation}) {
    if (v->size() != rank) {
      return fail("the convolution's window lists do not all have ", rank,
                  " entries");
    }
  }
  if (c.batch < 1 || c.input_features < 1 || c.output_features < 1 ||
      c.feature_group_count < 1 ||
      c.input_features % c.feature_group_count != 0 ||
      c.output_features % c.feature_group_count != 0) {
    return fail("bad convolution sizes: batch ", c.batch, ", features ",
                c.input_features, " -> ", c.output_features, ", groups ",
                c.feature_group_count);
  }
  for (size_t d = 0; d < rank; ++d) {
    if (c.input_spatial[d] < 1 || c.kernel_spatial[d] < 1 ||
        c.strides[d] < 1 || c.dilation[d] < 1 || c.padding[d] < 0) {
      return fail("bad window in spatial dimension ", d);
    }
    const int64_t span = (c.kernel_spatial[d] - 1) * c.dilation[d] + 1;
    const int64_t padded = c.input_spatial[d] + 2 * c.padding[d];
    const int64_t expected = padded < span ? 0 : (padded - span) / c.strides[d] + 1;
    if (c.output_spatial[d] != expected || expected < 1) {
      return fail("spatial dimension ", d, ": an input of ", c.input_spatial[d],
                  " padded by ", c.padding[d], " with a window of ",
                  c.kernel_spatial[d], " (dilation ", c.dilation[d],
                  ", stride ", c.strides[d], ") gives ", expected,
                  " outputs, not ", c.output_spatial[d]);
    }
  }
  const int64_t input = c.batch * c.input_features * Product(c.input_spatial);
  const int64_t filter = c.output_features *
                         (c.input_features / c.feature_group_count) *
                         Product(c.kernel_spatial);
  const int64_t output =
      c.batch * c.output_features * Product(c.output_spatial);
  // A backward-filter step reads the output's gradient and writes the
  // filter's.
  const int64_t elements[] = {input, c.backward_filter ? output : filter,
                              c.backward_filter ? filter : output};
  const char* forward_names[] = {"input", "filter", "out"};
  const char* backward_names[] = {"input", "output gradient",
                                  "filter gradient"};
  const char* const* names = c.backward_filter ? backward_names : forward_names;
  for (int i = 0; i < 3; ++i) {
    const ExecutableBuffer& slot = executable.buffers[step.buffers[i]];
    if (!slot.shape.IsArray() || slot.shape.element_type() != c.type ||
        slot.shape.ElementCount() != elements[i]) {
      return fail("the ", names[i], " slot ", slot.name, " holds ",
                  slot.shape.ToString(), "; the convolution reads ",
                  elements[i], " ", PrimitiveTypeName(c.type), " elements");
    }
    if (elements[i] > kMaxElements) {
      return fail("the ", names[i], " has ", elements[i],
                  " elements, more than cuDNN indexes (2^31 - 1)");
    }
  }
  return absl::OkStatus();
}

struct CudnnConv::Library : LoadedLibrary {
  cudnnStatus_t (*cudnnCreate)(cudnnHandle_t*) = nullptr;
  cudnnStatus_t (*cudnnDestroy)(cudnnHandle_t) = nullptr;
  cudnnStatus_t (*cudnnSetStream)(cudnnHandle_t, CUstream) = nullptr;
  const char* (*cudnnGetErrorString)(cudnnStatus_t) = nullptr;
  cudnnStatus_t (*cudnnCreateTensorDescriptor)(cudnnTensorDescriptor_t*) =
      nullptr;
  cudnnStatus_t (*cudnnDestroyTensorDescriptor)(cudnnTensorDescriptor_t) =
      nullptr;
  cudnnStatus_t (*cudnnSetTensorNdDescriptor)(cudnnTensorDescriptor_t, int,
                                              int, const int*,
                                              const int*) = nullptr;
  cudnnStatus_t (*cudnnCreateFilterDescriptor)(cudnnFilterDescriptor_t*) =
      nullptr;
  cudnnStatus_t (*cudnnDestroyFilterDescriptor)(cudnnFilterDescriptor_t) =
      nullptr;
  cudnnStatus_t (*cudnnSetFilterNdDescriptor)(cudnnFilterDescriptor_t, int,
                                              int, int, const int*) = nullptr;
  cudnnStatus_t (*cudnnCreateConvolutionDescriptor)(
      cudnnConvolutionDescriptor_t*) = nullptr;
  cudnnStatus_t (*cudnnDestroyConvolutionDescriptor)(
      cudnnConvolutionDescriptor_t) = nullptr;
  cudnnStatus_t (*cudnnSetConvolutionNdDescriptor)(
      cudnnConvolutionDescriptor_t, int, const int*, const int*, const int*,
      int, int) = nullptr;
  cudnnStatus_t (*cudnnSetConvolutionGroupCount)(cudnnConvolutionDescriptor_t,
                                                 int) = nullptr;
  cudnnStatus_t (*cudnnSetConvolutionMathType)(cudnnConvolutionDescriptor_t,
                                               int) = nullptr;
  cudnnStatus_t (*cudnnGetConvolutionForwardAlgorithm_v7)(
      cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
      cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int, int*,
      cudnnConvolutionAlgoPerf_t*) = nullptr;
  cudnnStatus_t (*cudnnGetConvolutionForwardWorkspaceSize)(
      cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
      cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int,
      size_t*) = nullptr;
  cudnnStatus_t (*cudnnConvolutionForward)(
      cudnnHandle_t, const void*, cudnnTensorDescriptor_t, const void*,
      cudnnFilterDescriptor_t, const void*, cudnnConvolutionDescriptor_t, int,
      void*, size_t, const void*, cudnnTensorDescriptor_t, void*) = nullptr;
  cudnnStatus_t (*cudnnGetConvolutionBackwardFilterAlgorithm_v7)(
      cudnnHandle_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
      cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t, int, int*,
      cudnnConvolutionAlgoPerf_t*) = nullptr;
  cudnnStatus_t (*cudnnGetConvolutionBackwardFilterWorkspaceSize)(
      cudnnHandle_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
      cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t, int,
      size_t*) = nullptr;
  cudnnStatus_t (*cudnnConvolutionBackwardFilter)(
      cudnnHandle_t, const void*, cudnnTensorDescriptor_t, const void*,
      cudnnTensorDescriptor_t, const void*, cudnnConvolutionDescriptor_t, int,
      void*, size_t, const void*, cudnnFilterDescriptor_t, void*) = nullptr;
  // The graph API (optional: cudnn_conv_graph.h).
  CudnnGraphFunctions graph;

  // An error naming the cuDNN function, its status and the step.
  absl::Status Check(cudnnStatus_t status, const char* function,
                     absl::string_view what) const {
    if (status == CUDNN_STATUS_SUCCESS) return absl::OkStatus();
    return LibraryCallError(
        "cuDNN", function, status,
        cudnnGetErrorString != nullptr ? cudnnGetErrorString(status) : nullptr,
        what);
  }
};

struct ConvPlan {
  const CudnnConv::Library* library = nullptr;
  std::string what;
  cudnnTensorDescriptor_t input = nullptr, output = nullptr;
  cudnnFilterDescriptor_t filter = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  struct Algorithm {
    int algo = 0;
    int math = CUDNN_DEFAULT_MATH;
    size_t workspace_bytes = 0;
    // An execution plan of `graph` instead of a descriptor-API algorithm.
    int graph_plan = -1;
  };
  // The graph API's execution plans for this convolution, or null.
  std::unique_ptr<GraphConvPlans> graph;
  // The heuristic's usable algorithms, best first, then the graph API's
  // plans; Autotune moves the fastest to the front. Run uses the first.
  std::vector<Algorithm> candidates;
  bool tuned = false;
  // Computes the filter's gradient (ConvConfig::backward_filter).
  bool backward_filter = false;
  // alpha = 1 and beta = 0 in the scale type (double for f64 data).
  double alpha64 = 1, beta64 = 0;
  float alpha32 = 1, beta32 = 0;
  bool scale_f64 = false;
};

void ConvPlanDeleter::operator()(ConvPlan* plan) const {
  if (plan->library != nullptr) {
    const CudnnConv::Library& l = *plan->library;
    for (cudnnTensorDescriptor_t t : {plan->input, plan->output}) {
      if (t != nullptr) l.cudnnDestroyTensorDescriptor(t);
    }
    if (plan->filter != nullptr) l.cudnnDestroyFilterDescriptor(plan->filter);
    if (plan->conv != nullptr) l.cudnnDestroyConvolutionDescriptor(plan->conv);
  }
  delete plan;
}

std::string CudnnConv::DefaultLibraries() {
  return LibraryNames("HLOC_LIBCUDNN", "libcudnn.so.9");
}

absl::StatusOr<std::unique_ptr<CudnnConv>> CudnnConv::Create(
    CudaDriver* driver) {
  absl::StatusOr<std::unique_ptr<Library>> opened =
      OpenLibraryTable<Library>(DefaultLibraries(), "cuDNN");
  if (!opened.ok()) return opened.status();
  std::unique_ptr<Library> library = *std::move(opened);
  Library& l = *library;
  SymbolBinder binder(l.handle);
  binder.Bind(&l.cudnnCreate, {"cudnnCreate"});
  binder.Bind(&l.cudnnDestroy, {"cudnnDestroy"});
  binder.Bind(&l.cudnnSetStream, {"cudnnSetStream"});
  binder.Bind(&l.cudnnGetErrorString, {"cudnnGetErrorString"});
  binder.Bind(&l.cudnnCreateTensorDescriptor, {"cudnnCreateTensorDescriptor"});
  binder.Bind(&l.cudnnDestroyTensorDescriptor,
              {"cudnnDestroyTensorDescriptor"});
  binder.Bind(&l.cudnnSetTensorNdDescriptor, {"cudnnSetTensorNdDescriptor"});
  binder.Bind(&l.cudnnCreateFilterDescriptor, {"cudnnCreateFilterDescriptor"});
  binder.Bind(&l.cudnnDestroyFilterDescriptor,
              {"cudnnDestroyFilterDescriptor"});
  binder.Bind(&l.cudnnSetFilterNdDescriptor, {"cudnnSetFilterNdDescriptor"});
  binder.Bind(&l.cudnnCreateConvolutionDescriptor,
              {"cudnnCreateConvolutionDescriptor"});
  binder.Bind(&l.cudnnDestroyConvolutionDescriptor,
              {"cudnnDestroyConvolutionDescriptor"});
  binder.Bind(&l.cudnnSetConvolutionNdDescriptor,
              {"cudnnSetConvolutionNdDescriptor"});
  binder.Bind(&l.cudnnSetConvolutionGroupCount,
              {"cudnnSetConvolutionGroupCount"});
  binder.Bind(&l.cudnnSetConvolutionMathType, {"cudnnSetConvolutionMathType"});
  binder.Bind(&l.cudnnGetConvolutionForwardAlgorithm_v7,
              {"cudnnGetConvolutionForwardAlgorithm_v7"});
  binder.Bind(&l.cudnnGetConvolutionForwardWorkspaceSize,
              {"cudnnGetConvolutionForwardWorkspaceSize"});
  binder.Bind(&l.cudnnConvolutionForward, {"cudnnConvolutionForward"});
  binder.Bind(&l.cudnnGetConvolutionBackwardFilterAlgorithm_v7,
              {"cudnnGetConvolutionBackwardFilterAlgorithm_v7"});
  binder.Bind(&l.cudnnGetConvolutionBackwardFilterWorkspaceSize,
              {"cudnnGetConvolutionBackwardFilterWorkspaceSize"});
  binder.Bind(&l.cudnnConvolutionBackwardFilter,
              {"cudnnConvolutionBackwardFilter"});
  absl::Status status =
      binder.Check(l.name, "cuDNN 8 or 9 with its cnn library");
  if (!status.ok()) return status;
  std::unique_ptr<CudnnConv> conv(new CudnnConv());
  conv->driver_ = driver;
  conv->library_ = std::move(library);
  // The graph API is optional: without it only the descriptor API's
  // algorithms are tried.
  CudnnGraphFunctions& g = l.graph;
  ResolveSymbol(l.handle, {"cudnnBackendCreateDescriptor"},
                &g.cudnnBackendCreateDescriptor);
  ResolveSymbol(l.handle, {"cudnnBackendDestroyDescriptor"},
                &g.cudnnBackendDestroyDescriptor);
  ResolveSymbol(l.handle, {"cudnnBackendFinalize"}, &g.cudnnBackendFinalize);
  ResolveSymbol(l.handle, {"cudnnBackendSetAttribute"},
                &g.cudnnBackendSetAttribute);
  ResolveSymbol(l.handle, {"cudnnBackendGetAttribute"},
                &g.cudnnBackendGetAttribute);
  ResolveSymbol(l.handle, {"cudnnBackendExecute"}, &g.cudnnBackendExecute);
  g.cudnnGetErrorString = l.cudnnGetErrorString;
  status = HLOC_LIBRARY_CALL(l, "creating a cuDNN handle", cudnnCreate,
                             &conv->handle_);
  if (!status.ok()) return status;
  return conv;
}

CudnnConv::~CudnnConv() {
  if (workspace_ != 0) driver_->cuMemFree(workspace_);
  if (handle_ != nullptr) library_->cudnnDestroy(handle_);
}

absl::Status CudnnConv::ReserveWorkspace(size_t bytes,
                                         const std::string& what) {
  if (bytes <= workspace_bytes_) return absl::OkStatus();
  // Plans are made before anything runs, so no call still uses the
  // smaller workspace.
  if (workspace_ != 0) driver_->cuMemFree(workspace_);
  workspace_ = 0;
  workspace_bytes_ = 0;
  absl::Status status =
      HLOC_CUDA_CALL(driver_, absl::StrCat("the cuDNN workspace of ", what),
                     cuMemAlloc, &workspace_, bytes);
  if (status.ok()) workspace_bytes_ = bytes;
  return status;
}

absl::StatusOr<ConvPlanPtr> CudnnConv::Plan(const Executable& executable,
                                            const ExecutableStep& step,
                                            const std::string& what) {
  absl::Status status = CheckConvStep(executable, step, what);
  if (!status.ok()) return status;
  const Library& l = *library_;
  const ConvConfig& c = step.conv;
  const ConvTensors t = DescribeTensors(c);
  const int type = DataType(c.type);
  const int dims = static_cast<int>(t.input.size());
  ConvPlanPtr plan(new ConvPlan());
  plan->library = library_.get();
  plan->what = what;
  plan->scale_f64 = c.type == F64;
  plan->backward_filter = c.backward_filter;
  status =
      HLOC_LIBRARY_CALL(l, what, cudnnCreateTensorDescriptor, &plan->input);
  if (status.ok()) {
    status =
        HLOC_LIBRARY_CALL(l, what, cudnnCreateTensorDescriptor, &plan->output);
  }
  if (status.ok()) {
    status =
        HLOC_LIBRARY_CALL(l, what, cudnnCreateFilterDescriptor, &plan->filter);
  }
  if (status.ok()) {
    status = HLOC_LIBRARY_CALL(l, what, cudnnCreateConvolutionDescriptor,
                               &plan->conv);
  }
  if (status.ok()) {
    status =
        HLOC_LIBRARY_CALL(l, what, cudnnSetTensorNdDescriptor, plan->input,
                          type, dims, t.input.data(), t.input_strides.data());
  }
  if (status.ok()) {
    status =
        HLOC_LIBRARY_CALL(l, what, cudnnSetTensorNdDescriptor, plan->output,
                          type, dims, t.output.data(), t.output_strides.data());
  }
  if (status.ok()) {
    status = HLOC_LIBRARY_CALL(
        l, what, cudnnSetFilterNdDescriptor, plan->filter, type,
        c.channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, dims,
        t.filter.data());
  }
  if (status.ok()) {
    // 16-bit data accumulates in f32, as XLA's convolutions do.
    status =
        HLOC_LIBRARY_CALL(l, what, cudnnSetConvolutionNdDescriptor, plan->conv,
                          dims - 2, t.padding.data(), t.strides.data(),
                          t.dilation.data(), CUDNN_CROSS_CORRELATION,
                          c.type == F64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT);
  }
  if (status.ok()) {
    status =
        HLOC_LIBRARY_CALL(l, what, cudnnSetConvolutionGroupCount, plan->conv,
                          static_cast<int>(c.feature_group_count));
  }
  // f32 without TF32 keeps to FMA kernels; otherwise each algorithm runs
  // with the math type the heuristic ranked it with.
  const bool strict_f32 = c.type == F32 && !c.allow_tf32;
  if (status.ok()) {
    status = HLOC_LIBRARY_CALL(l, what, cudnnSetConvolutionMathType, plan->conv,
                               strict_f32 ? CUDNN_FMA_MATH
                               : c.type == F16 || c.type == BF16
                                   ? CUDNN_TENSOR_OP_MATH
                                   : CUDNN_DEFAULT_MATH);
  }
  cudnnConvolutionAlgoPerf_t
      results[std::max(CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                       CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT)] = {};
  int found = 0;
  if (status.ok() && c.backward_filter) {
    status = HLOC_LIBRARY_CALL(
        l, what, cudnnGetConvolutionBackwardFilterAlgorithm_v7, handle_,
        plan->input, plan->output, plan->conv, plan->filter,
        CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, results);
  } else if (status.ok()) {
    status = HLOC_LIBRARY_CALL(l, what, cudnnGetConvolutionForwardAlgorithm_v7,
                               handle_, plan->input, plan->filter, plan->conv,
                               plan->output, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                               &found, results);
  }
  if (!status.ok()) return status;
  // The workspace `algo` needs under the descriptor's math type.
  auto workspace_of = [&](int algo, size_t* bytes) {
    return c.backward_filter ? l.cudnnGetConvolutionBackwardFilterWorkspaceSize(
                                   handle_, plan->input, plan->output,
                                   plan->conv, plan->filter, algo, bytes)
                             : l.cudnnGetConvolutionForwardWorkspaceSize(
                                   handle_, plan->input, plan->filter,
                                   plan->conv, plan->output, algo, bytes);
  };
  size_t workspace = 0;
  for (int i = 0; i < found; ++i) {
    const cudnnConvolutionAlgoPerf_t& r = results[i];
    if (r.status != CUDNN_STATUS_SUCCESS) continue;
    ConvPlan::Algorithm a;
    a.algo = r.algo;
    a.math = strict_f32 ? CUDNN_FMA_MATH : r.mathType;
    if (strict_f32 && r.mathType != CUDNN_FMA_MATH &&
        r.mathType != CUDNN_DEFAULT_MATH) {
      continue;  // ranked for tensor cores only
    }
    // The workspace for this algorithm under the math type it will run
    // with (the heuristic's figure is for its own math type).
    if (!HLOC_LIBRARY_CALL(l, what, cudnnSetConvolutionMathType, plan->conv,
                           a.math)
             .ok() ||
        workspace_of(a.algo, &a.workspace_bytes) != CUDNN_STATUS_SUCCESS ||
        a.workspace_bytes > kMaxWorkspaceBytes) {
      continue;
    }
    workspace = std::max(workspace, a.workspace_bytes);
    plan->candidates.push_back(a);
  }
  if (l.graph.available() && GraphPlansWanted()) {
    GraphConvDescription d;
    d.backward_filter = c.backward_filter;
    d.data_type = type;
    d.f64 = c.type == F64;
    d.allow_tf32 = c.allow_tf32;
    auto wide = [](const std::vector<int>& v) {
      return std::vector<int64_t>(v.begin(), v.end());
    };
    d.input = wide(t.input);
    d.input_strides = wide(t.input_strides);
    d.filter = wide(t.filter);
    d.filter_strides = wide(PackedStrides(t.filter, c.channels_last));
    d.output = wide(t.output);
    d.output_strides = wide(t.output_strides);
    d.padding = wide(t.padding);
    d.strides = wide(t.strides);
    d.dilation = wide(t.dilation);
    // A graph cuDNN cannot build leaves the descriptor API's algorithms.
    absl::StatusOr<std::unique_ptr<GraphConvPlans>> graph =
        GraphConvPlans::Create(l.graph, handle_, d, kGraphPlans,
                               kMaxWorkspaceBytes, what);
    if (graph.ok() && (*graph)->size() > 0) {
      plan->graph = *std::move(graph);
      for (size_t i = 0; i < plan->graph->size(); ++i) {
        ConvPlan::Algorithm a;
        a.graph_plan = static_cast<int>(i);
        a.workspace_bytes = plan->graph->workspace_bytes(i);
        workspace = std::max(workspace, a.workspace_bytes);
        plan->candidates.push_back(a);
      }
    } else if (LogChoices()) {
      std::fprintf(
          stderr, "cudnn %s: no graph plans (%s)\n", what.c_str(),
          graph.ok() ? "none usable" : graph.status().ToString().c_str());
    }
  }
  if (plan->candidates.empty()) {
    return absl::UnimplementedError(absl::StrCat(
        what, ": cuDNN has no algorithm for this convolution",
        c.backward_filter ? "'s filter gradient (" : " (",
        PrimitiveTypeName(c.type), c.channels_last ? " nhwc" : " nchw",
        ", input ", absl::StrJoin(t.input, "x"), ", filter ",
        absl::StrJoin(t.filter, "x"), ", groups ", c.feature_group_count, ")"));
  }
  status = HLOC_LIBRARY_CALL(l, what, cudnnSetConvolutionMathType, plan->conv,
                             plan->candidates[0].math);
  if (status.ok()) status = ReserveWorkspace(workspace, what);
  if (!status.ok()) return status;
  plan->tuned = plan->candidates.size() == 1;
  return plan;
}

bool CudnnConv::NeedsTuning(const ConvPlan& plan) { return !plan.tuned; }

size_t CudnnConv::CandidateCount(const ConvPlan& plan) {
  return plan.candidates.size();
}

std::string CudnnConv::DescribeCandidate(const ConvPlan& plan, size_t i) {
  const ConvPlan::Algorithm& a = plan.candidates[i];
  if (a.graph_plan >= 0) return plan.graph->Describe(a.graph_plan);
  return absl::StrCat("algo ", a.algo,
                      a.math == CUDNN_TENSOR_OP_MATH ? " (tensor ops)" : "");
}

bool CudnnConv::IsGraphCandidate(const ConvPlan& plan, size_t i) {
  return plan.candidates[i].graph_plan >= 0;
}

absl::Status CudnnConv::Autotune(ConvPlan* plan, CUdeviceptr input,
                                 CUdeviceptr filter, CUdeviceptr out,
                                 CUstream stream) {
  if (plan->tuned) return absl::OkStatus();
  plan->tuned = true;
  absl::StatusOr<size_t> fastest = FastestCandidate(
      driver_, stream, plan->candidates.size(),
      [&](size_t c) {
        return RunCandidate(*plan, c, input, filter, out, stream);
      },
      plan->what);
  std::swap(plan->candidates[0], plan->candidates[fastest.ok() ? *fastest : 0]);
  if (LogChoices()) {
    std::string all;
    for (size_t c = 0; c < plan->candidates.size(); ++c) {
      absl::StrAppend(&all, all.empty() ? "" : ", ",
                      DescribeCandidate(*plan, c));
    }
    std::fprintf(stderr, "cudnn %s: candidates %s; kept %s\n",
                 plan->what.c_str(), all.c_str(),
                 DescribeCandidate(*plan, 0).c_str());
  }
  return fastest.status();
}

absl::Status CudnnConv::Run(const ConvPlan& plan, CUdeviceptr input,
                            CUdeviceptr filter, CUdeviceptr out,
                            CUstream stream) {
  return RunCandidate(plan, 0, input, filter, out, stream);
}

absl::Status CudnnConv::RunCandidate(const ConvPlan& plan, size_t i,
                                     CUdeviceptr input, CUdeviceptr filter,
                                     CUdeviceptr out, CUstream stream) {
  const Library& l = *library_;
  const ConvPlan::Algorithm& a = plan.candidates[i];
  absl::Status status =
      HLOC_LIBRARY_CALL(l, plan.what, cudnnSetStream, handle_, stream);
  if (status.ok() && a.graph_plan >= 0) {
    // `filter` and `out` as for the descriptor API below.
    return plan.graph->Execute(a.graph_plan, handle_, input, filter, out,
                               workspace_);
  }
  // The math type belongs to the shared descriptor: set for this call's
  // algorithm (host-side only).
  if (status.ok()) {
    status = HLOC_LIBRARY_CALL(l, plan.what, cudnnSetConvolutionMathType,
                               plan.conv, a.math);
  }
  if (!status.ok()) return status;
  const void* alpha = plan.scale_f64 ? static_cast<const void*>(&plan.alpha64)
                                     : static_cast<const void*>(&plan.alpha32);
  const void* beta = plan.scale_f64 ? static_cast<const void*>(&plan.beta64)
                                    : static_cast<const void*>(&plan.beta32);
  if (plan.backward_filter) {
    // `filter` is the output's gradient here, `out` the filter's.
    return HLOC_LIBRARY_CALL(
        l, plan.what, cudnnConvolutionBackwardFilter, handle_, alpha,
        plan.input, reinterpret_cast<const void*>(input), plan.output,
        reinterpret_cast<const void*>(filter), plan.conv, a.algo,
        reinterpret_cast<void*>(workspace_), a.workspace_bytes, beta,
        plan.filter, reinterpret_cast<void*>(out));
  }
  return HLOC_LIBRARY_CALL(
      l, plan.what, cudnnConvolutionForward, handle_, alpha, plan.input,
      reinterpret_cast<const void*>(input), plan.filter,
      reinterpret_cast<const void*>(filter), plan.conv, a.algo,
      reinterpret_cast<void*>(workspace_), a.workspace_bytes, beta, plan.output,
      reinterpret_cast<void*>(out));
}

}  // namespace cuda
}  // namespace hloc

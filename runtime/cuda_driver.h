// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"), so
// that the project builds, links and runs its non-GPU tests on machines with
// no CUDA at all. Nothing here includes cuda.h: the few types, enum values
// and functions the runtime uses are declared below with the ABI of cuda.h
// (CUDA 12 and 13, LP64), which NVIDIA keeps stable across driver versions.
//
// Where cuda.h maps a name onto a versioned symbol (cuMemAlloc is
// cuMemAlloc_v2, cuGraphInstantiate is cuGraphInstantiateWithFlags, ...)
// the versioned symbol is what libcuda exports and what is looked up; a
// member that lists several symbols takes the first the driver has (newer
// drivers add _v2 versions with the same signature).
//
// Errors: no libcuda, a stub libcuda (the toolkit's, CUDA_ERROR_STUB_LIBRARY)
// and a driver without devices are absl::UnavailableError, so that callers
// and tests can tell "no GPU here" (IsNoCudaDevice) from a real failure.
#ifndef RUNTIME_CUDA_DRIVER_H_
#define RUNTIME_CUDA_DRIVER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloc {
namespace cuda {

// cuda.h: typedef enum cudaError_enum CUresult (an int-sized enum).
using CUresult = int;
inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
// typedef int CUdevice; typedef unsigned long long CUdeviceptr (64-bit).
using CUdevice = int;
using CUdeviceptr = unsigned long long;
// Opaque handles: pointers to incomplete structs, as in cuda.h.
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphExec = struct CUgraphExec_st*;
using CUgraphNode = struct CUgraphNode_st*;
// Enums are passed as int.
using CUjit_option = int;
inline constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
inline constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
using CUdevice_attribute = int;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT =
    16;
inline constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
using CUfunction_attribute = int;
inline constexpr CUfunction_attribute
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
inline constexpr unsigned int CU_STREAM_NON_BLOCKING = 1;
inline constexpr unsigned int CU_EVENT_DEFAULT = 0;
inline constexpr unsigned int CU_EVENT_DISABLE_TIMING = 0x2;
using CUstreamCaptureMode = int;
inline constexpr CUstreamCaptureMode CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
// cuLaunchKernelEx's configuration (cuda.h's CUlaunchAttribute_st: an
// int-sized id padded to 8 bytes, then a 64-byte union of values; and
// CUlaunchConfig_st). Only the attribute the runtime sets is named.
using CUlaunchAttributeID = int;
inline constexpr CUlaunchAttributeID
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6;
struct CUlaunchAttribute {
  CUlaunchAttributeID id = 0;
  char pad[8 - sizeof(CUlaunchAttributeID)] = {};
  union Value {
    alignas(8) char pad[64];
    int programmatic_stream_serialization_allowed;
  } value = {};
};
static_assert(sizeof(CUlaunchAttribute) == 72, "cuda.h's layout");
struct CUlaunchConfig {
  unsigned int grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned int block_x = 1, block_y = 1, block_z = 1;
  unsigned int shared_memory_bytes = 0;
  CUstream stream = nullptr;
  CUlaunchAttribute* attributes = nullptr;
  unsigned int num_attributes = 0;
};
static_assert(sizeof(CUlaunchConfig) == 56, "cuda.h's layout");

// Conditional graph nodes (CUDA 12.3; SWITCH and IF with two bodies 12.8):
// a while loop or a conditional that runs on the device inside a graph, a
// kernel deciding each time through cudaGraphSetConditional on its handle.
using CUgraphConditionalHandle = unsigned long long;
using CUstreamCaptureStatus = int;
inline constexpr CUstreamCaptureStatus CU_STREAM_CAPTURE_STATUS_ACTIVE = 1;
inline constexpr unsigned int CU_STREAM_SET_CAPTURE_DEPENDENCIES = 1;
using CUgraphConditionalNodeType = int;
inline constexpr CUgraphConditionalNodeType CU_GRAPH_COND_TYPE_WHILE = 1;
inline constexpr CUgraphConditionalNodeType CU_GRAPH_COND_TYPE_SWITCH = 2;
using CUgraphNodeType = int;
inline constexpr CUgraphNodeType CU_GRAPH_NODE_TYPE_CONDITIONAL = 13;
struct CUDA_CONDITIONAL_NODE_PARAMS {
  CUgraphConditionalHandle handle = 0;
  CUgraphConditionalNodeType type = 0;
  unsigned int size = 0;
  CUgraph* phGraph_out = nullptr;  // The driver's array of body graphs.
  CUcontext ctx = nullptr;
};
static_assert(sizeof(CUDA_CONDITIONAL_NODE_PARAMS) == 32, "cuda.h's layout");
// cuda.h's CUgraphNodeParams: a type, then a 232-byte union of each node
// type's parameters (unused bytes zero), then 8 reserved bytes.
struct CUgraphNodeParams {
  CUgraphNodeType type = 0;
  int reserved0[3] = {};
  union Params {
    long long reserved1[29];
    CUDA_CONDITIONAL_NODE_PARAMS conditional;
  } params = {};
  long long reserved2 = 0;
};
static_assert(sizeof(CUgraphNodeParams) == 256, "cuda.h's layout");
// cuda.h's CUDA_MEMCPY2D (device to device here: the host and array fields
// stay null).
using CUmemorytype = int;
inline constexpr CUmemorytype CU_MEMORYTYPE_DEVICE = 2;
struct CUDA_MEMCPY2D {
  size_t srcXInBytes = 0, srcY = 0;
  CUmemorytype srcMemoryType = 0;
  const void* srcHost = nullptr;
  CUdeviceptr srcDevice = 0;
  void* srcArray = nullptr;
  size_t srcPitch = 0;
  size_t dstXInBytes = 0, dstY = 0;
  CUmemorytype dstMemoryType = 0;
  void* dstHost = nullptr;
  CUdeviceptr dstDevice = 0;
  void* dstArray = nullptr;
  size_t dstPitch = 0;
  size_t WidthInBytes = 0, Height = 0;
};
static_assert(sizeof(CUDA_MEMCPY2D) == 128, "cuda.h's layout");

// The loaded driver library and the functions the runtime calls.
class CudaDriver {
 public:
  // The libraries Get() tries: "libcuda.so.1", or $HLOC_LIBCUDA if set (a
  // comma-separated list, as for every vendor library: dlopen_symbols.h).
  static std::string DefaultLibraries();

  // Opens the first of the comma-separated `libraries` that loads and
  // resolves every function below; does not call cuInit. Unavailable when
  // none loads or the one that does lacks a function.
  static absl::StatusOr<std::unique_ptr<CudaDriver>> Open(
      const std::string& libraries);

  // The process's driver, opened and initialised (cuInit) on first use;
  // later calls return the same driver or the same error.
  static absl::StatusOr<CudaDriver*> Get();

  ~CudaDriver();
  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;

  // cuInit(0), then at least one device. Unavailable, saying which, when
  // the library is a stub or the driver sees no device.
  absl::Status Init();

  // OK for CUDA_SUCCESS; otherwise an error naming the function, the
  // driver's error name and text, and `context` (the step, the kernel).
  absl::Status Check(CUresult result, absl::string_view function,
                     absl::string_view context) const;

  const std::string& library() const { return library_; }

  CUresult (*cuInit)(unsigned int flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int* version) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char** name) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char** text) = nullptr;
  CUresult (*cuDeviceGetCount)(int* count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char* name, int length,
                              CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int* value, CUdevice_attribute attribute,
                                   CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context,
                                       CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule* module, const void* image,
                                 unsigned int num_options,
                                 CUjit_option* options,
                                 void** option_values) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module,
                                  const char* name) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction function,
                                 CUfunction_attribute attribute,
                                 int value) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr* pointer, size_t bytes) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr pointer) = nullptr;
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr destination, const void* source,
                                size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void* destination, CUdeviceptr source,
                                size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr destination, CUdeviceptr source,
                                size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemcpy2DAsync)(const CUDA_MEMCPY2D* copy,
                              CUstream stream) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr destination, unsigned char value,
                              size_t count, CUstream stream) = nullptr;
  CUresult (*cuMemsetD32Async)(CUdeviceptr destination, unsigned int value,
                               size_t count, CUstream stream) = nullptr;
  CUresult (*cuStreamCreate)(CUstream* stream, unsigned int flags) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned int grid_x,
                             unsigned int grid_y, unsigned int grid_z,
                             unsigned int block_x, unsigned int block_y,
                             unsigned int block_z,
                             unsigned int shared_memory_bytes, CUstream stream,
                             void** parameters, void** extra) = nullptr;
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig* config,
                               CUfunction function, void** parameters,
                               void** extra) = nullptr;
  CUresult (*cuEventCreate)(CUevent* event, unsigned int flags) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event,
                                unsigned int flags) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  CUresult (*cuEventElapsedTime)(float* milliseconds, CUevent start,
                                 CUevent end) = nullptr;
  CUresult (*cuEventDestroy)(CUevent event) = nullptr;
  CUresult (*cuStreamBeginCapture)(CUstream stream,
                                   CUstreamCaptureMode mode) = nullptr;
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph* graph) = nullptr;
  CUresult (*cuGraphInstantiate)(CUgraphExec* executable, CUgraph graph,
                                 unsigned long long flags) = nullptr;
  CUresult (*cuGraphLaunch)(CUgraphExec executable, CUstream stream) = nullptr;
  CUresult (*cuGraphExecDestroy)(CUgraphExec executable) = nullptr;
  CUresult (*cuGraphDestroy)(CUgraph graph) = nullptr;

  // Conditional nodes (null on drivers without them; see
  // SupportsConditionalNodes), in their CUDA 12.3 versions that carry
  // edge data (cuda.h's CUgraphEdgeData, passed through untouched: the
  // capture's dependencies may be programmatic edges).
  CUresult (*cuStreamGetCaptureInfo)(CUstream stream,
                                     CUstreamCaptureStatus* status,
                                     unsigned long long* id, CUgraph* graph,
                                     const CUgraphNode** dependencies,
                                     const void** edge_data,
                                     size_t* num_dependencies) = nullptr;
  CUresult (*cuStreamUpdateCaptureDependencies)(CUstream stream,
                                                CUgraphNode* dependencies,
                                                const void* edge_data,
                                                size_t num_dependencies,
                                                unsigned int flags) = nullptr;
  CUresult (*cuStreamBeginCaptureToGraph)(CUstream stream, CUgraph graph,
                                          const CUgraphNode* dependencies,
                                          const void* dependency_data,
                                          size_t num_dependencies,
                                          CUstreamCaptureMode mode) = nullptr;
  CUresult (*cuGraphConditionalHandleCreate)(CUgraphConditionalHandle* handle,
                                             CUgraph graph, CUcontext context,
                                             unsigned int default_value,
                                             unsigned int flags) = nullptr;
  CUresult (*cuGraphAddNode)(CUgraphNode* node, CUgraph graph,
                             const CUgraphNode* dependencies,
                             const void* edge_data, size_t num_dependencies,
                             CUgraphNodeParams* params) = nullptr;

  // Whether while loops and conditionals can run inside graphs as
  // conditional nodes: a 12.8 driver or newer (switch nodes) that exports
  // the functions above.
  bool SupportsConditionalNodes() const { return conditional_nodes_; }

 private:
  CudaDriver() = default;

  std::string library_;
  void* handle_ = nullptr;
  bool conditional_nodes_ = false;
};

// Whether `status` says there is no usable CUDA device here (no driver
// library, a stub one, no device), as opposed to a failure on a device.
bool IsNoCudaDevice(const absl::Status& status);

}  // namespace cuda
}  // namespace hloc

// Calls (driver)->fn(...) and checks its result: an absl::Status naming fn
// and `context`.
#define HLOC_CUDA_CALL(driver, context, fn, ...) \
  (driver)->Check((driver)->fn(__VA_ARGS__), #fn, (context))

#endif  // RUNTIME_CUDA_DRIVER_H_

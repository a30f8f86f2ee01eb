#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/dlopen_symbols.h"

namespace hloc {
namespace cuda {
std::string CudaDriver::DefaultLibraries() {
  return LibraryNames("HLOC_LIBCUDA", "libcuda.so.1");
}

absl::StatusOr<std::unique_ptr<CudaDriver>> CudaDriver::Open(
    const std::string& libraries) {
  absl::StatusOr<OpenedLibrary> opened = OpenFirstLibrary(
      libraries, "CUDA driver", "is the NVIDIA driver installed?");
  if (!opened.ok()) return opened.status();
  std::unique_ptr<CudaDriver> driver(new CudaDriver());
  driver->library_ = opened->name;
  driver->handle_ = opened->handle;
  CudaDriver& d = *driver;
  SymbolBinder binder(d.handle_);
  binder.Bind(&d.cuInit, {"cuInit"});
  binder.Bind(&d.cuDriverGetVersion, {"cuDriverGetVersion"});
  binder.Bind(&d.cuGetErrorName, {"cuGetErrorName"});
  binder.Bind(&d.cuGetErrorString, {"cuGetErrorString"});
  binder.Bind(&d.cuDeviceGetCount, {"cuDeviceGetCount"});
  binder.Bind(&d.cuDeviceGet, {"cuDeviceGet"});
  binder.Bind(&d.cuDeviceGetName, {"cuDeviceGetName"});
  binder.Bind(&d.cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
  binder.Bind(&d.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  binder.Bind(&d.cuDevicePrimaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2"});
  binder.Bind(&d.cuCtxSetCurrent, {"cuCtxSetCurrent"});
  binder.Bind(&d.cuCtxSynchronize, {"cuCtxSynchronize"});
  binder.Bind(&d.cuModuleLoadDataEx, {"cuModuleLoadDataEx"});
  binder.Bind(&d.cuModuleUnload, {"cuModuleUnload"});
  binder.Bind(&d.cuModuleGetFunction, {"cuModuleGetFunction"});
  binder.Bind(&d.cuFuncSetAttribute, {"cuFuncSetAttribute"});
  binder.Bind(&d.cuMemAlloc, {"cuMemAlloc_v2"});
  binder.Bind(&d.cuMemFree, {"cuMemFree_v2"});
  binder.Bind(&d.cuMemcpyHtoDAsync, {"cuMemcpyHtoDAsync_v2"});
  binder.Bind(&d.cuMemcpyDtoHAsync, {"cuMemcpyDtoHAsync_v2"});
  binder.Bind(&d.cuMemcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"});
  binder.Bind(&d.cuMemcpy2DAsync, {"cuMemcpy2DAsync_v2"});
  binder.Bind(&d.cuMemsetD8Async, {"cuMemsetD8Async"});
  binder.Bind(&d.cuMemsetD32Async, {"cuMemsetD32Async"});
  binder.Bind(&d.cuStreamCreate, {"cuStreamCreate"});
  binder.Bind(&d.cuStreamDestroy, {"cuStreamDestroy_v2"});
  binder.Bind(&d.cuStreamSynchronize, {"cuStreamSynchronize"});
  binder.Bind(&d.cuLaunchKernel, {"cuLaunchKernel"});
  binder.Bind(&d.cuLaunchKernelEx, {"cuLaunchKernelEx"});
  binder.Bind(&d.cuEventCreate, {"cuEventCreate"});
  binder.Bind(&d.cuEventRecord, {"cuEventRecord"});
  binder.Bind(&d.cuStreamWaitEvent, {"cuStreamWaitEvent"});
  binder.Bind(&d.cuEventSynchronize, {"cuEventSynchronize"});
  binder.Bind(&d.cuEventElapsedTime,
              {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  binder.Bind(&d.cuEventDestroy, {"cuEventDestroy_v2"});
  binder.Bind(&d.cuStreamBeginCapture, {"cuStreamBeginCapture_v2"});
  binder.Bind(&d.cuStreamEndCapture, {"cuStreamEndCapture"});
  binder.Bind(&d.cuGraphInstantiate, {"cuGraphInstantiateWithFlags"});
  binder.Bind(&d.cuGraphLaunch, {"cuGraphLaunch"});
  binder.Bind(&d.cuGraphExecDestroy, {"cuGraphExecDestroy"});
  binder.Bind(&d.cuGraphDestroy, {"cuGraphDestroy"});
  absl::Status status =
      binder.Check(d.library_, "a CUDA 12 or newer driver is needed");
  if (!status.ok()) return status;
  // Optional: without them loops and conditionals run from the host.
  const bool conditional_functions =
      ResolveSymbol(d.handle_, {"cuStreamGetCaptureInfo_v3"},
                    &d.cuStreamGetCaptureInfo) &&
      ResolveSymbol(d.handle_, {"cuStreamUpdateCaptureDependencies_v2"},
                    &d.cuStreamUpdateCaptureDependencies) &&
      ResolveSymbol(d.handle_, {"cuStreamBeginCaptureToGraph"},
                    &d.cuStreamBeginCaptureToGraph) &&
      ResolveSymbol(d.handle_, {"cuGraphConditionalHandleCreate"},
                    &d.cuGraphConditionalHandleCreate) &&
      ResolveSymbol(d.handle_, {"cuGraphAddNode_v2"}, &d.cuGraphAddNode);
  int version = 0;
  d.conditional_nodes_ = conditional_functions &&
                         d.cuDriverGetVersion(&version) == CUDA_SUCCESS &&
                         version >= 12080;
  return driver;
}

CudaDriver::~CudaDriver() {
  if (handle_ != nullptr) dlclose(handle_);
}

absl::Status CudaDriver::Init() {
  const CUresult result = cuInit(0);
  if (result == CUDA_ERROR_STUB_LIBRARY) {
    return absl::UnavailableError(absl::StrCat(
        "no CUDA device: ", library_,
        " is the CUDA toolkit's stub library, not an NVIDIA driver "
        "(CUDA_ERROR_STUB_LIBRARY)"));
  }
  if (result == CUDA_ERROR_NO_DEVICE) {
    return absl::UnavailableError(
        absl::StrCat("no CUDA device: the driver (", library_,
                     ") sees no device (CUDA_ERROR_NO_DEVICE)"));
  }
  absl::Status status = Check(result, "cuInit", "initialising the driver");
  if (!status.ok()) return status;
  int count = 0;
  status =
      Check(cuDeviceGetCount(&count), "cuDeviceGetCount", "counting devices");
  if (!status.ok()) return status;
  if (count < 1) {
    return absl::UnavailableError(absl::StrCat(
        "no CUDA device: the driver (", library_, ") reports no devices"));
  }
  return absl::OkStatus();
}

absl::Status CudaDriver::Check(CUresult result, absl::string_view function,
                               absl::string_view context) const {
  if (result == CUDA_SUCCESS) return absl::OkStatus();
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS) name = nullptr;
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS) text = nullptr;
  std::string message = absl::StrCat(
      function,
      " failed: ", name != nullptr ? name : absl::StrCat("CUresult ", result));
  if (text != nullptr) absl::StrAppend(&message, " (", text, ")");
  if (!context.empty()) absl::StrAppend(&message, " in ", context);
  return absl::InternalError(message);
}

absl::StatusOr<CudaDriver*> CudaDriver::Get() {
  // Opened once: the driver stays loaded for the process's lifetime.
  static std::once_flag once;
  static absl::StatusOr<CudaDriver*>* driver = nullptr;
  std::call_once(once, [] {
    absl::StatusOr<std::unique_ptr<CudaDriver>> opened =
        Open(DefaultLibraries());
    absl::Status status = opened.ok() ? (*opened)->Init() : opened.status();
    driver = status.ok() ? new absl::StatusOr<CudaDriver*>(opened->release())
                         : new absl::StatusOr<CudaDriver*>(std::move(status));
  });
  return *driver;
}

bool IsNoCudaDevice(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable;
}

}  // namespace cuda
}  // namespace hloc

#include "runtime/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <initializer_list>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/dlopen_symbols.h"

namespace hloc {
namespace cuda {
std::string CudaDriver::DefaultLibrary() {
  const char* library = std::getenv("HLOC_LIBCUDA");
  return library != nullptr && *library != '\0' ? library : "libcuda.so.1";
}

absl::StatusOr<std::unique_ptr<CudaDriver>> CudaDriver::Open(
    const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::UnavailableError(
        absl::StrCat("no CUDA driver: cannot load ", library, " (",
                     why != nullptr ? why : "unknown reason",
                     "); is the NVIDIA driver installed?"));
  }
  std::unique_ptr<CudaDriver> driver(new CudaDriver());
  driver->library_ = library;
  driver->handle_ = handle;
  std::string missing;
  auto need = [&](auto* function, std::initializer_list<const char*> names) {
    if (!ResolveSymbol(handle, names, function)) {
      absl::StrAppend(&missing, missing.empty() ? "" : ", ", *names.begin());
    }
  };
  CudaDriver& d = *driver;
  need(&d.cuInit, {"cuInit"});
  need(&d.cuDriverGetVersion, {"cuDriverGetVersion"});
  need(&d.cuGetErrorName, {"cuGetErrorName"});
  need(&d.cuGetErrorString, {"cuGetErrorString"});
  need(&d.cuDeviceGetCount, {"cuDeviceGetCount"});
  need(&d.cuDeviceGet, {"cuDeviceGet"});
  need(&d.cuDeviceGetName, {"cuDeviceGetName"});
  need(&d.cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
  need(&d.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  need(&d.cuDevicePrimaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2"});
  need(&d.cuCtxSetCurrent, {"cuCtxSetCurrent"});
  need(&d.cuModuleLoadDataEx, {"cuModuleLoadDataEx"});
  need(&d.cuModuleUnload, {"cuModuleUnload"});
  need(&d.cuModuleGetFunction, {"cuModuleGetFunction"});
  need(&d.cuFuncSetAttribute, {"cuFuncSetAttribute"});
  need(&d.cuMemAlloc, {"cuMemAlloc_v2"});
  need(&d.cuMemFree, {"cuMemFree_v2"});
  need(&d.cuMemcpyHtoDAsync, {"cuMemcpyHtoDAsync_v2"});
  need(&d.cuMemcpyDtoHAsync, {"cuMemcpyDtoHAsync_v2"});
  need(&d.cuMemcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"});
  need(&d.cuMemsetD8Async, {"cuMemsetD8Async"});
  need(&d.cuMemsetD32Async, {"cuMemsetD32Async"});
  need(&d.cuStreamCreate, {"cuStreamCreate"});
  need(&d.cuStreamDestroy, {"cuStreamDestroy_v2"});
  need(&d.cuStreamSynchronize, {"cuStreamSynchronize"});
  need(&d.cuLaunchKernel, {"cuLaunchKernel"});
  need(&d.cuEventCreate, {"cuEventCreate"});
  need(&d.cuEventRecord, {"cuEventRecord"});
  need(&d.cuEventSynchronize, {"cuEventSynchronize"});
  need(&d.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  need(&d.cuEventDestroy, {"cuEventDestroy_v2"});
  need(&d.cuStreamBeginCapture, {"cuStreamBeginCapture_v2"});
  need(&d.cuStreamEndCapture, {"cuStreamEndCapture"});
  need(&d.cuGraphInstantiate, {"cuGraphInstantiateWithFlags"});
  need(&d.cuGraphLaunch, {"cuGraphLaunch"});
  need(&d.cuGraphExecDestroy, {"cuGraphExecDestroy"});
  need(&d.cuGraphDestroy, {"cuGraphDestroy"});
  if (!missing.empty()) {
    return absl::UnavailableError(absl::StrCat(
        library, " lacks ", missing, " (a CUDA 12 or newer driver is needed)"));
  }
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
    absl::StatusOr<std::unique_ptr<CudaDriver>> opened = Open(DefaultLibrary());
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

#include "runtime/hip_driver.h"

#include <dlfcn.h>

#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/dlopen_symbols.h"

namespace hloc {
namespace hip {

std::string HipDriver::DefaultLibraries() {
  return LibraryNames("HLOC_LIBAMDHIP64",
                      "libamdhip64.so,libamdhip64.so.6,libamdhip64.so.5");
}

absl::StatusOr<std::unique_ptr<HipDriver>> HipDriver::Open(
    const std::string& libraries) {
  absl::StatusOr<OpenedLibrary> opened = OpenFirstLibrary(
      libraries, "HIP runtime",
      "is ROCm's HIP runtime installed (Debian: libamdhip64-5)?");
  if (!opened.ok()) return opened.status();
  std::unique_ptr<HipDriver> driver(new HipDriver());
  driver->library_ = opened->name;
  driver->handle_ = opened->handle;
  HipDriver& d = *driver;
  SymbolBinder binder(d.handle_);
  binder.Bind(&d.hipInit, {"hipInit"});
  binder.Bind(&d.hipDriverGetVersion, {"hipDriverGetVersion"});
  binder.Bind(&d.hipGetErrorName, {"hipGetErrorName"});
  binder.Bind(&d.hipGetErrorString, {"hipGetErrorString"});
  binder.Bind(&d.hipGetDeviceCount, {"hipGetDeviceCount"});
  binder.Bind(&d.hipSetDevice, {"hipSetDevice"});
  binder.Bind(&d.hipDeviceGetName, {"hipDeviceGetName"});
  binder.Bind(&d.hipModuleLoadData, {"hipModuleLoadData"});
  binder.Bind(&d.hipModuleUnload, {"hipModuleUnload"});
  binder.Bind(&d.hipModuleGetFunction, {"hipModuleGetFunction"});
  binder.Bind(&d.hipMalloc, {"hipMalloc"});
  binder.Bind(&d.hipFree, {"hipFree"});
  binder.Bind(&d.hipMemcpyHtoDAsync, {"hipMemcpyHtoDAsync"});
  binder.Bind(&d.hipMemcpyDtoHAsync, {"hipMemcpyDtoHAsync"});
  binder.Bind(&d.hipMemcpyDtoDAsync, {"hipMemcpyDtoDAsync"});
  binder.Bind(&d.hipStreamCreateWithFlags, {"hipStreamCreateWithFlags"});
  binder.Bind(&d.hipStreamDestroy, {"hipStreamDestroy"});
  binder.Bind(&d.hipStreamSynchronize, {"hipStreamSynchronize"});
  binder.Bind(&d.hipModuleLaunchKernel, {"hipModuleLaunchKernel"});
  absl::Status status =
      binder.Check(d.library_, "a ROCm 5 or newer HIP runtime is needed");
  if (!status.ok()) return status;
  return driver;
}

HipDriver::~HipDriver() {
  if (handle_ != nullptr) dlclose(handle_);
}

absl::Status HipDriver::Init() {
  const hipError_t result = hipInit(0);
  if (result == hipErrorNoDevice || result == hipErrorInvalidDevice) {
    return absl::UnavailableError(absl::StrCat("no AMD GPU: the HIP runtime (",
                                               library_, ") sees no device"));
  }
  absl::Status status = Check(result, "hipInit", "initialising HIP");
  if (!status.ok()) return status;
  int count = 0;
  const hipError_t counted = hipGetDeviceCount(&count);
  if (counted == hipErrorNoDevice || (counted == hipSuccess && count < 1)) {
    return absl::UnavailableError(absl::StrCat(
        "no AMD GPU: the HIP runtime (", library_, ") reports no devices"));
  }
  return Check(counted, "hipGetDeviceCount", "counting devices");
}

absl::Status HipDriver::Check(hipError_t result, absl::string_view function,
                              absl::string_view context) const {
  if (result == hipSuccess) return absl::OkStatus();
  const char* name = hipGetErrorName(result);
  const char* text = hipGetErrorString(result);
  std::string message = absl::StrCat(
      function, " failed: ",
      name != nullptr ? name : absl::StrCat("hipError_t ", result));
  if (text != nullptr) absl::StrAppend(&message, " (", text, ")");
  if (!context.empty()) absl::StrAppend(&message, " in ", context);
  return absl::InternalError(message);
}

absl::StatusOr<HipDriver*> HipDriver::Get() {
  // Opened once: the runtime stays loaded for the process's lifetime.
  static std::once_flag once;
  static absl::StatusOr<HipDriver*>* driver = nullptr;
  std::call_once(once, [] {
    absl::StatusOr<std::unique_ptr<HipDriver>> opened =
        Open(DefaultLibraries());
    // Every "no device" error starts the same way, whichever step found it.
    absl::Status status =
        opened.ok() ? (*opened)->Init()
                    : absl::UnavailableError(absl::StrCat(
                          "no AMD GPU: ", opened.status().message()));
    driver = status.ok() ? new absl::StatusOr<HipDriver*>(opened->release())
                         : new absl::StatusOr<HipDriver*>(std::move(status));
  });
  return *driver;
}

bool IsNoHipDevice(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable;
}

}  // namespace hip
}  // namespace hloc

#include "runtime/hip_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <initializer_list>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/dlopen_symbols.h"

namespace hloc {
namespace hip {

std::vector<std::string> HipDriver::DefaultLibraries() {
  const char* library = std::getenv("HLOC_LIBAMDHIP64");
  if (library != nullptr && *library != '\0') return {library};
  return {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
}

absl::StatusOr<std::unique_ptr<HipDriver>> HipDriver::Open(
    const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::UnavailableError(absl::StrCat(
        "no HIP runtime: cannot load ", library, " (",
        why != nullptr ? why : "unknown reason",
        "); is ROCm's HIP runtime installed (Debian: libamdhip64-5)?"));
  }
  std::unique_ptr<HipDriver> driver(new HipDriver());
  driver->library_ = library;
  driver->handle_ = handle;
  std::string missing;
  auto need = [&](auto* function, std::initializer_list<const char*> names) {
    if (!ResolveSymbol(handle, names, function)) {
      absl::StrAppend(&missing, missing.empty() ? "" : ", ", *names.begin());
    }
  };
  HipDriver& d = *driver;
  need(&d.hipInit, {"hipInit"});
  need(&d.hipDriverGetVersion, {"hipDriverGetVersion"});
  need(&d.hipGetErrorName, {"hipGetErrorName"});
  need(&d.hipGetErrorString, {"hipGetErrorString"});
  need(&d.hipGetDeviceCount, {"hipGetDeviceCount"});
  need(&d.hipSetDevice, {"hipSetDevice"});
  need(&d.hipDeviceGetName, {"hipDeviceGetName"});
  need(&d.hipModuleLoadData, {"hipModuleLoadData"});
  need(&d.hipModuleUnload, {"hipModuleUnload"});
  need(&d.hipModuleGetFunction, {"hipModuleGetFunction"});
  need(&d.hipMalloc, {"hipMalloc"});
  need(&d.hipFree, {"hipFree"});
  need(&d.hipMemcpyHtoDAsync, {"hipMemcpyHtoDAsync"});
  need(&d.hipMemcpyDtoHAsync, {"hipMemcpyDtoHAsync"});
  need(&d.hipMemcpyDtoDAsync, {"hipMemcpyDtoDAsync"});
  need(&d.hipStreamCreateWithFlags, {"hipStreamCreateWithFlags"});
  need(&d.hipStreamDestroy, {"hipStreamDestroy"});
  need(&d.hipStreamSynchronize, {"hipStreamSynchronize"});
  need(&d.hipModuleLaunchKernel, {"hipModuleLaunchKernel"});
  if (!missing.empty()) {
    return absl::UnavailableError(
        absl::StrCat(library, " lacks ", missing,
                     " (a ROCm 5 or newer HIP runtime is "
                     "needed)"));
  }
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
    const std::vector<std::string> libraries = DefaultLibraries();
    std::string first_reason;
    for (const std::string& library : libraries) {
      absl::StatusOr<std::unique_ptr<HipDriver>> opened = Open(library);
      if (!opened.ok()) {
        // A library that is there but unusable says more than the ones
        // that are missing.
        if (first_reason.empty() || opened.status().message().find("lacks") !=
                                        absl::string_view::npos) {
          first_reason = std::string(opened.status().message());
        }
        continue;
      }
      absl::Status status = (*opened)->Init();
      driver = status.ok() ? new absl::StatusOr<HipDriver*>(opened->release())
                           : new absl::StatusOr<HipDriver*>(std::move(status));
      return;
    }
    driver = new absl::StatusOr<HipDriver*>(absl::UnavailableError(
        absl::StrCat("no AMD GPU: tried ", absl::StrJoin(libraries, ", "), "; ",
                     first_reason)));
  });
  return *driver;
}

bool IsNoHipDevice(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable;
}

}  // namespace hip
}  // namespace hloc

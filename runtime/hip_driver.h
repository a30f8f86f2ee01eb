// AMD's HIP runtime, loaded at run time with dlopen("libamdhip64.so"), as
// cuda_driver.h loads NVIDIA's driver: the project builds, links and runs
// its non-GPU tests on machines with no ROCm. No HIP header is included;
// the few types and functions the runtime uses are declared below with
// hip_runtime_api.h's ABI (ROCm 5 and 6, LP64). Only functions whose
// signatures take plain types and handles are used: the device properties
// struct and the attribute enum changed between ROCm versions, so a code
// object is chosen by asking the runtime to load it (it refuses code
// objects for another ISA) rather than by reading the device's arch.
//
// Errors: no library, a runtime without devices are absl::UnavailableError,
// so that callers and tests can tell "no AMD GPU here" (IsNoHipDevice) from
// a real failure.
#ifndef RUNTIME_HIP_DRIVER_H_
#define RUNTIME_HIP_DRIVER_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloc {
namespace hip {

// hip_runtime_api.h: typedef enum hipError_t (int-sized).
using hipError_t = int;
inline constexpr hipError_t hipSuccess = 0;
inline constexpr hipError_t hipErrorNoDevice = 100;
inline constexpr hipError_t hipErrorInvalidDevice = 101;
// Opaque handles: pointers to incomplete structs; device pointers are
// void*.
using hipModule_t = struct ihipModule_t*;
using hipFunction_t = struct ihipModuleSymbol_t*;
using hipStream_t = struct ihipStream_t*;
using hipDeviceptr_t = void*;
inline constexpr unsigned int hipStreamNonBlocking = 1;

class HipDriver {
 public:
  // The libraries Get() tries, in order: $HLOC_LIBAMDHIP64 if set (a
  // comma-separated list, as for every vendor library: dlopen_symbols.h),
  // else libamdhip64.so and its ROCm 6 and 5 sonames.
  static std::string DefaultLibraries();

  // Opens the first of the comma-separated `libraries` that loads and
  // resolves every function below; does not call hipInit. Unavailable
  // when none loads or the one that does lacks a function.
  static absl::StatusOr<std::unique_ptr<HipDriver>> Open(
      const std::string& libraries);

  // The process's runtime, opened and initialised (hipInit, at least one
  // device) on first use; later calls return the same runtime or error.
  static absl::StatusOr<HipDriver*> Get();

  ~HipDriver();
  HipDriver(const HipDriver&) = delete;
  HipDriver& operator=(const HipDriver&) = delete;

  // hipInit(0), then at least one device; Unavailable, saying so, if none.
  absl::Status Init();

  // OK for hipSuccess; otherwise an error naming the function, the
  // runtime's error name and text, and `context`.
  absl::Status Check(hipError_t result, absl::string_view function,
                     absl::string_view context) const;

  const std::string& library() const { return library_; }

  hipError_t (*hipInit)(unsigned int flags) = nullptr;
  hipError_t (*hipDriverGetVersion)(int* version) = nullptr;
  const char* (*hipGetErrorName)(hipError_t error) = nullptr;
  const char* (*hipGetErrorString)(hipError_t error) = nullptr;
  hipError_t (*hipGetDeviceCount)(int* count) = nullptr;
  hipError_t (*hipSetDevice)(int ordinal) = nullptr;
  hipError_t (*hipDeviceGetName)(char* name, int length, int device) = nullptr;
  hipError_t (*hipModuleLoadData)(hipModule_t* module,
                                  const void* image) = nullptr;
  hipError_t (*hipModuleUnload)(hipModule_t module) = nullptr;
  hipError_t (*hipModuleGetFunction)(hipFunction_t* function,
                                     hipModule_t module,
                                     const char* name) = nullptr;
  hipError_t (*hipMalloc)(void** pointer, size_t bytes) = nullptr;
  hipError_t (*hipFree)(void* pointer) = nullptr;
  hipError_t (*hipMemcpyHtoDAsync)(hipDeviceptr_t destination, void* source,
                                   size_t bytes, hipStream_t stream) = nullptr;
  hipError_t (*hipMemcpyDtoHAsync)(void* destination, hipDeviceptr_t source,
                                   size_t bytes, hipStream_t stream) = nullptr;
  hipError_t (*hipMemcpyDtoDAsync)(hipDeviceptr_t destination,
                                   hipDeviceptr_t source, size_t bytes,
                                   hipStream_t stream) = nullptr;
  hipError_t (*hipStreamCreateWithFlags)(hipStream_t* stream,
                                         unsigned int flags) = nullptr;
  hipError_t (*hipStreamDestroy)(hipStream_t stream) = nullptr;
  hipError_t (*hipStreamSynchronize)(hipStream_t stream) = nullptr;
  hipError_t (*hipModuleLaunchKernel)(
      hipFunction_t function, unsigned int grid_x, unsigned int grid_y,
      unsigned int grid_z, unsigned int block_x, unsigned int block_y,
      unsigned int block_z, unsigned int shared_memory_bytes,
      hipStream_t stream, void** parameters, void** extra) = nullptr;

 private:
  HipDriver() = default;

  std::string library_;
  void* handle_ = nullptr;
};

// Whether `status` says there is no usable AMD GPU here (no HIP runtime
// library, no device), as opposed to a failure on a device.
bool IsNoHipDevice(const absl::Status& status);

}  // namespace hip
}  // namespace hloc

// Calls (driver)->fn(...) and checks its result.
#define HLOC_HIP_CALL(driver, context, fn, ...) \
  (driver)->Check((driver)->fn(__VA_ARGS__), #fn, (context))

#endif  // RUNTIME_HIP_DRIVER_H_

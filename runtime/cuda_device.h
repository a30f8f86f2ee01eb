// One CUDA device and its primary context (the context the CUDA runtime,
// and so cuBLAS, uses too: the executor and the vendor libraries then share
// streams and memory without further set-up), with the facts the executor
// needs about it.
#ifndef RUNTIME_CUDA_DEVICE_H_
#define RUNTIME_CUDA_DEVICE_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/cuda_driver.h"

namespace hloc {
namespace cuda {

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
  // The most dynamic shared memory a block may opt in to.
  int max_shared_memory_per_block_optin = 0;
  // "sm_90": what a cubin for this device names.
  std::string Arch() const;
};

class CudaDevice {
 public:
  // Retains device `ordinal`'s primary context and makes it current on
  // this thread.
  static absl::StatusOr<std::unique_ptr<CudaDevice>> Open(CudaDriver* driver,
                                                          int ordinal);
  ~CudaDevice();
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  // Contexts are current per thread: a caller on another thread (a run)
  // makes this one current first.
  absl::Status MakeCurrent() const;

  CudaDriver* driver() const { return driver_; }
  CUcontext context() const { return context_; }
  const CudaDeviceInfo& info() const { return info_; }

 private:
  CudaDevice() = default;

  CudaDriver* driver_ = nullptr;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CudaDeviceInfo info_;
};

}  // namespace cuda
}  // namespace hloc

#endif  // RUNTIME_CUDA_DEVICE_H_

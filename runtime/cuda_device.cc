#include "runtime/cuda_device.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace hloc {
namespace cuda {

std::string CudaDeviceInfo::Arch() const {
  return absl::StrCat("sm_", compute_capability_major,
                      compute_capability_minor);
}

absl::StatusOr<std::unique_ptr<CudaDevice>> CudaDevice::Open(CudaDriver* driver,
                                                             int ordinal) {
  const std::string what = absl::StrCat("opening CUDA device ", ordinal);
  int count = 0;
  absl::Status status = HLOC_CUDA_CALL(driver, what, cuDeviceGetCount, &count);
  if (!status.ok()) return status;
  if (ordinal < 0 || ordinal >= count) {
    return absl::InvalidArgumentError(
        absl::StrCat("no CUDA device ", ordinal, ": the driver sees ", count,
                     " device", count == 1 ? "" : "s"));
  }
  std::unique_ptr<CudaDevice> device(new CudaDevice());
  device->driver_ = driver;
  status = HLOC_CUDA_CALL(driver, what, cuDeviceGet, &device->device_, ordinal);
  if (!status.ok()) return status;
  CudaDeviceInfo& info = device->info_;
  info.ordinal = ordinal;
  char name[256] = {};
  status = HLOC_CUDA_CALL(driver, what, cuDeviceGetName, name,
                          static_cast<int>(sizeof(name) - 1), device->device_);
  if (!status.ok()) return status;
  info.name = name;
  for (auto [attribute, value] :
       {std::pair{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                  &info.compute_capability_major},
        std::pair{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                  &info.compute_capability_minor},
        std::pair{CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                  &info.multiprocessors},
        std::pair{CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                  &info.max_shared_memory_per_block_optin}}) {
    status = HLOC_CUDA_CALL(driver, what, cuDeviceGetAttribute, value,
                            attribute, device->device_);
    if (!status.ok()) return status;
  }
  status = HLOC_CUDA_CALL(driver, what, cuDevicePrimaryCtxRetain,
                          &device->context_, device->device_);
  if (!status.ok()) return status;
  status = device->MakeCurrent();
  if (!status.ok()) return status;
  return device;
}

CudaDevice::~CudaDevice() {
  if (context_ != nullptr) driver_->cuDevicePrimaryCtxRelease(device_);
}

absl::Status CudaDevice::MakeCurrent() const {
  return HLOC_CUDA_CALL(driver_, "making the device's context current",
                        cuCtxSetCurrent, context_);
}

}  // namespace cuda
}  // namespace hloc

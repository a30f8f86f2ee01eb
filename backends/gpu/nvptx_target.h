// The NVIDIA implementation of GpuTarget: nvptx64-nvidia-cuda, PTX from
// LLVM's NVPTX backend, libdevice for the math functions.
#ifndef BACKENDS_GPU_NVPTX_TARGET_H_
#define BACKENDS_GPU_NVPTX_TARGET_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "backends/gpu/gpu_target.h"

namespace hloc {

// Where the CUDA toolkit is: `flag` if not empty, else $CUDA_HOME, else
// $CUDA_PATH, else the conventional /usr/local/cuda.
std::string FindCudaPath(const std::string& flag);

// The target for `arch` ("sm_80", "sm_90"); libdevice is looked up under
// cuda_path/nvvm/libdevice when a module needs it (a clear error then if it
// is missing; modules without transcendental functions do not need it).
absl::StatusOr<std::unique_ptr<GpuTarget>> CreateNvptxTarget(
    const std::string& arch, const std::string& cuda_path);

}  // namespace hloc

#endif  // BACKENDS_GPU_NVPTX_TARGET_H_

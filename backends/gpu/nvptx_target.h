// The NVIDIA implementation of GpuTarget: nvptx64-nvidia-cuda, PTX from
// LLVM's NVPTX backend, libdevice for the math functions.
#ifndef BACKENDS_GPU_NVPTX_TARGET_H_
#define BACKENDS_GPU_NVPTX_TARGET_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/gpu_target.h"
#include "backends/gpu/matrix_layout.h"

namespace hloc {

// Where the CUDA toolkit is: `flag` if not empty, else $CUDA_HOME, else
// $CUDA_PATH, else the conventional /usr/local/cuda.
std::string FindCudaPath(const std::string& flag);

// The target for `arch` ("sm_80", "sm_90"); libdevice is looked up under
// cuda_path/nvvm/libdevice when a module needs it (a clear error then if it
// is missing; modules without transcendental functions do not need it).
absl::StatusOr<std::unique_ptr<GpuTarget>> CreateNvptxTarget(
    const std::string& arch, const std::string& cuda_path);

// The tensor-core instruction the tiled dot kernel uses on `device` for
// operands of `operand_type` (sm_80 and later: mma.sync m16n8k16 for f16
// and bf16, accumulating in f32), or none. Shared with the simulated GPU,
// which executes the same choice with a model of the instruction
// (testing/host_simt.h).
std::optional<MatrixShape> NvptxMatrixInstruction(const GpuDeviceInfo& device,
                                                  PrimitiveType operand_type);

// D = A * B + C of one mma.sync of `shape` (matrix_layout.h says which
// elements a lane holds): `a` is the lane's <8 x half|bfloat>, `b` its
// <4 x ...>, `c` its <4 x float>.
llvm::Value* EmitNvptxMatrixMultiplyAdd(const MatrixShape& shape,
                                        llvm::Value* a, llvm::Value* b,
                                        llvm::Value* c,
                                        llvm::IRBuilderBase* builder);

}  // namespace hloc

#endif  // BACKENDS_GPU_NVPTX_TARGET_H_

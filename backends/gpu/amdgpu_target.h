// The AMD implementation of GpuTarget: amdgcn-amd-amdhsa, objects from
// LLVM's AMDGPU backend linked by lld into an HSA code object ("hsaco"),
// ROCm's device libraries (ocml) for the math functions. The kernel
// emitters are NVIDIA's and AMD's alike; the wavefront size (64 on CDNA:
// gfx90a, gfx942; 32 on RDNA: gfx1100) is device().warp_size.
#ifndef BACKENDS_GPU_AMDGPU_TARGET_H_
#define BACKENDS_GPU_AMDGPU_TARGET_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "backends/gpu/gpu_target.h"

namespace hloc {

// Where ROCm's device-library bitcode (ocml.bc, ockl.bc, oclc_*.bc) is:
// `flag` if not empty, else $HLOC_ROCM_DEVICE_LIBS, else
// $ROCM_PATH/amdgcn/bitcode, else the first of the conventional places
// (Debian's rocm-device-libs package, AMD's /opt/rocm) that exists; ""
// if none does.
std::string FindRocmDeviceLibs(const std::string& flag);

// The target for `arch` ("gfx90a", "gfx942", "gfx1100"). The device
// libraries are looked up in `device_libs` when a module calls a math
// function (a clear error then if they are missing); lld when a code
// object is linked.
absl::StatusOr<std::unique_ptr<GpuTarget>> CreateAmdgpuTarget(
    const std::string& arch, const std::string& device_libs);

// The MFMA instruction the tiled dot kernel uses on `device` for operands
// of `operand_type` (gfx90a, gfx942: the 32x32 single-block f32, f16 and
// bf16 ones), or none. Shared with the simulated GPU, which executes the
// same choice with a model of the instruction (testing/host_simt.h).
std::optional<MatrixShape> AmdgpuMatrixInstruction(const GpuDeviceInfo& device,
                                                   PrimitiveType operand_type);

}  // namespace hloc

#endif  // BACKENDS_GPU_AMDGPU_TARGET_H_

// NVIDIA kernels whose logical warps are 64 threads wide, made of two
// hardware warps: the NVPTX target with the device facts' warp size set to
// 64, and every warp shuffle done through shared memory between the two
// hardware warps (each lane stores its value, a named barrier for the
// logical warp's 64 threads, the lane loads its source lane's value, the
// barrier again). So the shared emitters' wave64 logic (AMD's CDNA
// wavefront) runs on an NVIDIA GPU: the reductions' butterflies start 32
// lanes away, the scans shuffle up across the two halves, per-warp
// partials are per 64 threads.
//
// Named barriers 1..15 serve logical warps 0..14 (barrier 0 stays the
// block's), so blocks must have at most 960 threads: the device facts say
// so (max_threads_per_block 960) and have one SM, so that the launch
// heuristics pick blocks of 256 where they would pick 1024 for few rows on
// a full GPU; CheckWideWarpLaunches verifies an executable's blocks.
#ifndef BACKENDS_GPU_TESTING_NVPTX_WIDE_WARP_H_
#define BACKENDS_GPU_TESTING_NVPTX_WIDE_WARP_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/gpu/gpu_target.h"
#include "runtime/executable.h"

namespace hloc {

inline constexpr int64_t kWideWarpSize = 64;
inline constexpr int64_t kWideWarpMaxThreads = 15 * kWideWarpSize;

// The target for `arch` (sm_80, sm_90); cuda_path as CreateNvptxTarget's.
absl::StatusOr<std::unique_ptr<GpuTarget>> CreateNvptxWideWarpTarget(
    const std::string& arch, const std::string& cuda_path);

// FailedPrecondition if a kernel of `executable` is launched with blocks
// of more than kWideWarpMaxThreads threads or not whole logical warps.
absl::Status CheckWideWarpLaunches(const Executable& executable);

}  // namespace hloc

#endif  // BACKENDS_GPU_TESTING_NVPTX_WIDE_WARP_H_

// Facts about a GPU model that code generation and launch dimensions depend
// on, kept as data per architecture (never re-derived from the target
// triple): what `--gpu-arch=sm_90` means for the kernels we emit.
#ifndef BACKENDS_GPU_DEVICE_INFO_H_
#define BACKENDS_GPU_DEVICE_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloc {

struct GpuDeviceInfo {
  // The architecture name the toolchain uses ("sm_90", "gfx942").
  std::string arch;
  // A representative part, for messages ("H100 SXM").
  std::string part;
  // Streaming multiprocessors (NVIDIA) / compute units (AMD).
  int64_t core_count = 0;
  int64_t max_threads_per_block = 1024;
  int64_t max_threads_per_core = 2048;
  // Shared memory (AMD: LDS) a block may use without opting in to more
  // (static plus dynamic); the default the runtime launches with.
  int64_t shared_memory_per_block = 48 * 1024;
  // Threads that execute in lockstep and exchange values by shuffles: a
  // warp (NVIDIA, 32) or wavefront (AMD: 64 on CDNA, 32 on RDNA).
  int64_t warp_size = 32;
  // Largest grid x dimension.
  int64_t max_grid_x = (int64_t{1} << 31) - 1;
  int64_t max_grid_y = 65535;
  // The platform whose code runs on it: "cuda" or "rocm".
  std::string platform = "cuda";
  // Matrix instructions the tiled dot kernel uses where the element type
  // has one (matrix_layout.h): AMD's MFMA (wave64, CDNA2/CDNA3) and
  // NVIDIA's tensor cores through mma.sync (sm_80 and later). On cuda the
  // tiled kernel runs only where cuBLASLt cannot (a dot with a fused
  // prologue, integer dots): cuBLASLt has the plain dots.
  bool matrix_cores = false;
  // Programmatic dependent launch (Hopper, sm_90, and later): a kernel
  // that begins with griddepcontrol.wait may be launched before the kernel
  // ahead of it in the stream has finished; its blocks are scheduled as
  // that grid's last blocks retire and wait there for its completion and
  // its memory. That hides the launch and the ramp up of every kernel
  // behind the tail of the one before (about 1.6 us a launch on an H200:
  // tools/gpu_bench/RESULTS.md, session 21).
  bool grid_dependency_control = false;
  // Asynchronous copies from global to shared memory (cp.async, sm_80 and
  // later; GpuTarget::EmitAsyncCopy): the tiled dot kernel stages its
  // operand tiles with them, several slices in flight.
  bool async_copy = false;
};

// The facts of a known architecture; InvalidArgument naming the known ones
// otherwise.
absl::StatusOr<GpuDeviceInfo> GetGpuDeviceInfo(absl::string_view arch);

// "sm_80", "sm_90", "gfx90a", ...; with `platform`, only that platform's.
std::vector<std::string> KnownGpuArchs(absl::string_view platform = "");

// The facts of `arch` if it is one of `platform`'s architectures;
// InvalidArgument naming that platform's architectures otherwise.
absl::StatusOr<GpuDeviceInfo> GetGpuDeviceInfo(absl::string_view platform,
                                               absl::string_view arch);

}  // namespace hloc

#endif  // BACKENDS_GPU_DEVICE_INFO_H_

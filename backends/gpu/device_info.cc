#include "backends/gpu/device_info.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloc {
namespace {

// From NVIDIA's CUDA C++ Programming Guide (compute capabilities table) and
// the A100 / H100 whitepapers: the SXM parts' SM counts (a PCIe H100 has
// 114; more blocks than SMs is harmless, fewer wastes the difference).
// Both have tensor cores reachable by mma.sync (PTX ISA: m16n8k16 with
// f16/bf16 operands from sm_80).
const std::vector<GpuDeviceInfo>& KnownDevices() {
  static const auto* devices = new std::vector<GpuDeviceInfo>{
      {"sm_80", "A100 SXM", 108, 1024, 2048, 48 * 1024, 32,
       (int64_t{1} << 31) - 1, 65535, "cuda", true,
       /*grid_dependency_control=*/false, /*async_copy=*/true},
      {"sm_90", "H100 SXM", 132, 1024, 2048, 48 * 1024, 32,
       (int64_t{1} << 31) - 1, 65535, "cuda", true,
       /*grid_dependency_control=*/true, /*async_copy=*/true},
      // From AMD's CDNA2/CDNA3 ISA guides and the MI250X/MI300X data sheets
      // (compute units of one GCD / of the whole MI300X; 64 KiB of LDS per
      // workgroup, wave64, 32 waves per CU) and the RDNA3 ISA guide for
      // gfx1100 (RX 7900 XTX: 96 CUs, wave32, 16 waves per SIMD, 2 SIMDs
      // per CU).
      // CDNA2 and CDNA3 have matrix cores (MFMA); RDNA3 has WMMA instead.
      {"gfx90a", "MI250X (one GCD)", 110, 1024, 2048, 64 * 1024, 64,
       (int64_t{1} << 31) - 1, 65535, "rocm", true},
      {"gfx942", "MI300X", 304, 1024, 2048, 64 * 1024, 64,
       (int64_t{1} << 31) - 1, 65535, "rocm", true},
      {"gfx1100", "RX 7900 XTX", 96, 1024, 1024, 64 * 1024, 32,
       (int64_t{1} << 31) - 1, 65535, "rocm"},
  };
  return *devices;
}

}  // namespace

absl::StatusOr<GpuDeviceInfo> GetGpuDeviceInfo(absl::string_view arch) {
  for (const GpuDeviceInfo& info : KnownDevices()) {
    if (info.arch == arch) return info;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown GPU architecture '", arch,
                   "' (known: ", absl::StrJoin(KnownGpuArchs(), ", "), ")"));
}

absl::StatusOr<GpuDeviceInfo> GetGpuDeviceInfo(absl::string_view platform,
                                               absl::string_view arch) {
  for (const GpuDeviceInfo& info : KnownDevices()) {
    if (info.arch == arch && info.platform == platform) return info;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown ", platform, " GPU architecture '", arch,
      "' (known: ", absl::StrJoin(KnownGpuArchs(platform), ", "), ")"));
}

std::vector<std::string> KnownGpuArchs(absl::string_view platform) {
  std::vector<std::string> archs;
  for (const GpuDeviceInfo& info : KnownDevices()) {
    if (platform.empty() || info.platform == platform) {
      archs.push_back(info.arch);
    }
  }
  return archs;
}

}  // namespace hloc

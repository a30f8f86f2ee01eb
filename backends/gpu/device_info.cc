#include "backends/gpu/device_info.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloc {
namespace {

// From NVIDIA's CUDA C++ Programming Guide (compute capabilities table) and
// the A100 / H100 whitepapers: the SXM parts' SM counts (a PCIe H100 has
// 114; more blocks than SMs is harmless, fewer wastes the difference).
const std::vector<GpuDeviceInfo>& KnownDevices() {
  static const auto* devices = new std::vector<GpuDeviceInfo>{
      {"sm_80", "A100 SXM", 108, 1024, 2048, 48 * 1024, 32},
      {"sm_90", "H100 SXM", 132, 1024, 2048, 48 * 1024, 32},
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

std::vector<std::string> KnownGpuArchs() {
  std::vector<std::string> archs;
  for (const GpuDeviceInfo& info : KnownDevices()) archs.push_back(info.arch);
  return archs;
}

}  // namespace hloc

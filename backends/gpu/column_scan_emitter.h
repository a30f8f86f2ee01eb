// Scans down columns, split along their length (column_scan_emitter.cc):
// along a dimension that is not physically minor, with an associative
// single-op body, when the columns are too few for a thread each to keep
// the memory busy. Included only by scan_emitter.cc.
#ifndef BACKENDS_GPU_COLUMN_SCAN_EMITTER_H_
#define BACKENDS_GPU_COLUMN_SCAN_EMITTER_H_

#include "absl/status/statusor.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/kernel_emitters.h"

namespace hloc {

// Whether `scan` is IsSingleOpAssociativeScan (associative_scan.h) along a
// dimension that is not physically minor, and launch_dims.h's
// ComputeColumnScanLaunch splits it on `device`.
bool IsSplitColumnScan(const HloInstruction& scan, const KernelInfo& info,
                       const GpuDeviceInfo& device);

// The kernel of a scan IsSplitColumnScan accepts.
absl::StatusOr<LaunchDims> EmitSplitColumnScanKernel(
    const KernelRequest& request, const HloInstruction* scan);

}  // namespace hloc

#endif  // BACKENDS_GPU_COLUMN_SCAN_EMITTER_H_

// The warp-per-row parallel scan (row_scan_emitter.cc): scans along the
// physically minor dimension with an associative single-op body. Included
// only by scan_emitter.cc.
#ifndef BACKENDS_GPU_ROW_SCAN_EMITTER_H_
#define BACKENDS_GPU_ROW_SCAN_EMITTER_H_

#include "absl/status/statusor.h"
#include "backends/gpu/kernel_emitters.h"

namespace hloc {

// Whether `scan` is IsSingleOpAssociativeScan (associative_scan.h) along
// its operand's physically minor dimension.
bool IsRowScan(const HloInstruction& scan, const KernelInfo& info);

// How many kernels a scan IsRowScan accepts takes: 1, or 3 where its rows
// are cut into segments (launch_dims.h, RowScanLaunch).
int RowScanKernelSteps(const KernelRequest& request,
                       const HloInstruction& scan);

// Kernel `step` of a scan IsRowScan accepts.
absl::StatusOr<LaunchDims> EmitRowScanKernel(const KernelRequest& request,
                                             const HloInstruction* scan,
                                             int step);

}  // namespace hloc

#endif  // BACKENDS_GPU_ROW_SCAN_EMITTER_H_

// Scans along rows too few to keep the GPU busy, a warp per row, are cut
// into segments (launch_dims.h, RowScanLaunch): three kernels (segment
// scans, a fold of the segment ends, the prefixes added), run here on a
// GPU simulated on this CPU (testing/host_simt.h) for the cuda pipeline
// and an H100's facts. Forward and reverse, f32 sums (reassociated, so
// within a tolerance), s32 sums and s64 maxima (exact), rows whose length
// leaves the last segment shorter; each must match the evaluator's
// sequential scan, and each scan must take its three kernels.
#include <string>

#include "backends/gpu/device_info.h"
#include "backends/gpu/testing/simt_check.h"
#include "backends/gpu/testing/warp_modules.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

// The module wave_simt_test runs with 64-lane waves (testing/
// warp_modules.h), here through the cuda pipeline with 32-lane warps.
std::string SplitRowScans() {
  for (const auto& [name, text] : WarpModules()) {
    if (name == "split_row_scans") return text;
  }
  return "";
}

TEST(RowScanSimtTest, FewLongRowsScanInSegments) {
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("cuda", "sm_90");
  ASSERT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(SplitRowScans(), "split_row_scans");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<SimtRun> run =
      RunOnHostSimtAndEvaluate(**module, "cuda", "sm_90", *device, 7);
  ASSERT_TRUE(run.ok()) << run.status();
  // Three scans (reduce-window-to-scan), three kernels each.
  EXPECT_EQ(CountKernelSteps(run->executable), 9);
  Tolerance tolerance;
  tolerance.rtol = 1e-5;
  tolerance.atol = 1e-4;
  ComparisonResult result =
      CompareLiterals(run->actual, run->expected, tolerance);
  EXPECT_TRUE(result.ok()) << DescribeMismatch(result);
}

}  // namespace
}  // namespace hloc

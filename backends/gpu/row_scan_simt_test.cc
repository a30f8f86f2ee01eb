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
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

constexpr char kSplitRowScans[] = R"(
HloModule split_row_scans
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
imax {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  ROOT m = s64[] maximum(a, b)
}
iadd {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x = f32[2,20000] parameter(0)
  y = s64[9001] parameter(1)
  z = s32[3,50001] parameter(2)
  zero = f32[] constant(0)
  lowest = s64[] constant(-9223372036854775808)
  izero = s32[] constant(0)
  sums = f32[2,20000] reduce-window(x, zero), window={size=1x20000 pad=0_0x19999_0}, to_apply=add
  maxes = s64[9001] reduce-window(y, lowest), window={size=9001 pad=0_9000}, to_apply=imax
  counts = s32[3,50001] reduce-window(z, izero), window={size=1x50001 pad=0_0x50000_0}, to_apply=iadd
  ROOT out = (f32[2,20000], s64[9001], s32[3,50001]) tuple(sums, maxes, counts)
})";

TEST(RowScanSimtTest, FewLongRowsScanInSegments) {
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("cuda", "sm_90");
  ASSERT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(kSplitRowScans, "split_row_scans");
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

// The shared GPU kernel emitters' warp-size-dependent algorithms with
// AMD's wavefront sizes, run where no AMD GPU is: every module of
// testing/warp_modules.h goes through the rocm pipeline and is compiled by
// the same emitters with the device facts of gfx942 (wavefront 64) and
// gfx1100 (wavefront 32) for a GPU simulated on this CPU
// (testing/host_simt.h: a thread per GPU thread, lockstep warp shuffles),
// and must match the reference evaluator. The NVIDIA warp size (sm_90's
// facts) runs too, as the control. The radix sort's kernels, which rank
// digits with ballots of the warp's width, run at all three.
#include <string>
#include <vector>

#include "backends/gpu/device_info.h"
#include "backends/gpu/testing/simt_check.h"
#include "backends/gpu/testing/warp_modules.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

std::vector<SimtCase> Cases() {
  std::vector<std::string> names;
  for (const auto* modules : {&WarpModules(), &RadixSortModules()}) {
    for (const auto& [name, text] : *modules) names.push_back(name);
  }
  return OnEverySimulatedGpu(names);
}

const std::string& ModuleText(const std::string& name) {
  for (const auto* modules : {&WarpModules(), &RadixSortModules()}) {
    for (const auto& [n, text] : *modules) {
      if (n == name) return text;
    }
  }
  static const std::string none;
  return none;
}

class WaveSimtTest : public ::testing::TestWithParam<SimtCase> {};

TEST_P(WaveSimtTest, MatchesTheEvaluator) {
  const SimtCase& c = GetParam();
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo(c.platform, c.arch);
  ASSERT_TRUE(device.ok()) << device.status();
  // The tile choice of large transposes, at a size the simulator runs: a
  // device of one SM counts these outputs as large (launch_dims.h).
  const bool large_tiles = c.module.find("large_tiles") != std::string::npos;
  if (large_tiles) device->core_count = 1;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(ModuleText(c.module), c.module);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<SimtRun> run =
      RunOnHostSimtAndEvaluate(**module, c.platform, c.arch, *device, 11);
  ASSERT_TRUE(run.ok()) << run.status();
  // Every block is whole warps of this size.
  for (const ExecutableStep& step : run->executable.steps) {
    if (step.kind != ExecutableStep::Kind::kKernel) continue;
    EXPECT_EQ(step.launch.NumThreadsPerBlock() % device->warp_size, 0)
        << step.kernel_name;
    EXPECT_LE(step.launch.NumThreadsPerBlock(), device->max_threads_per_block)
        << step.kernel_name;
  }
  // These rows are sorted by the radix sort custom call's kernels (the
  // warp's ballots, which the simulator provides at its width).
  if (c.module.rfind("radix_sort", 0) == 0) {
    bool radix = false;
    for (const ExecutableStep& step : run->executable.steps) {
      radix |= step.instruction.rfind("custom-call", 0) == 0;
    }
    EXPECT_TRUE(radix);
  }
  if (large_tiles) {
    // bf16[500,250] in 128-wide tiles is 4 x 2 blocks; f32[310,180] in
    // 64-wide ones 5 x 3 (the smaller tiles would make 32 and 60).
    const int64_t blocks = c.module.find("bf16") != std::string::npos ? 8 : 15;
    ASSERT_EQ(run->executable.steps.size(), 1u);
    EXPECT_EQ(run->executable.steps[0].launch.NumBlocks(), blocks);
  }
  Tolerance tolerance;
  tolerance.rtol = 1e-4;
  tolerance.atol = 1e-4;
  ComparisonResult result =
      CompareLiterals(run->actual, run->expected, tolerance);
  EXPECT_TRUE(result.ok()) << DescribeMismatch(result);
}

INSTANTIATE_TEST_SUITE_P(WarpModules, WaveSimtTest,
                         ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<SimtCase>& info) {
                           return info.param.module + "_" + info.param.arch;
                         });

}  // namespace
}  // namespace hloc

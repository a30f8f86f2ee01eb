// A kernel with more buffers than the simulated GPU (testing/host_simt.h)
// once called: one loop fusion that reads 40 parameters and writes one
// output, 41 kernel arguments (the cyclic reduction of
// tridiagonal-solve-expander passes 35 to one kernel). It must run and
// match the reference evaluator.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/testing/simt_check.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "runtime/compare.h"
#include "runtime/executable.h"

namespace hloc {
namespace {

// sum_i tanh(p_i) * (i + 1) over 40 parameters of f32[37], a chain the
// loop fusion takes whole.
std::string WideModule() {
  std::string text = "HloModule wide\nENTRY main {\n";
  for (int i = 0; i < 40; ++i) {
    absl::StrAppend(&text, "  p", i, " = f32[37] parameter(", i, ")\n", "  t",
                    i, " = f32[37] tanh(p", i, ")\n", "  c", i,
                    " = f32[] constant(", i + 1, ")\n", "  b", i,
                    " = f32[37] broadcast(c", i, "), dimensions={}\n", "  m", i,
                    " = f32[37] multiply(t", i, ", b", i, ")\n");
    if (i > 0) {
      absl::StrAppend(&text, "  s", i, " = f32[37] add(",
                      i == 1 ? "m0" : absl::StrCat("s", i - 1), ", m", i,
                      ")\n");
    }
  }
  absl::StrAppend(&text, "  ROOT r = f32[37] negate(s39)\n}\n");
  return text;
}

TEST(WideKernelSimtTest, FortyOneBuffersInOneKernel) {
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("cuda", "sm_90");
  ASSERT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(WideModule());
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<SimtRun> run =
      RunOnHostSimtAndEvaluate(**module, "cuda", "sm_90", *device, 3);
  ASSERT_TRUE(run.ok()) << run.status();
  // One kernel with all 40 parameters and the output.
  size_t widest = 0;
  for (const ExecutableStep& step : run->executable.steps) {
    if (step.kind == ExecutableStep::Kind::kKernel) {
      widest = std::max(widest, step.buffers.size());
    }
  }
  EXPECT_EQ(widest, 41u);
  Tolerance tolerance;
  tolerance.rtol = 1e-5;
  tolerance.atol = 1e-5;
  ComparisonResult result =
      CompareLiterals(run->actual, run->expected, tolerance);
  EXPECT_TRUE(result.ok()) << DescribeMismatch(result);
}

}  // namespace
}  // namespace hloc

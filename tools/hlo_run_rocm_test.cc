// hlo-run's rocm platform end to end on an AMD GPU: each warp-size-dependent
// module (testing/warp_modules.h) compiled for the GPU's architecture runs
// on the HIP runtime and matches the reference evaluator. Without an AMD
// GPU (or the HIP runtime) the device test skips, saying why, and hlo-run
// --platform=rocm is checked to fail with that message instead.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/testing/warp_modules.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"
#include "runtime/hip_driver.h"
#include "runtime/hip_executor.h"
#include "tools/hlo_run_core.h"
#include "tools/hlo_run_lib.h"

namespace hloc {
namespace {

TEST(HipRunTest, WarpModulesMatchTheEvaluator) {
  absl::StatusOr<hip::HipDriver*> driver = hip::HipDriver::Get();
  if (!driver.ok()) {
    GTEST_SKIP() << driver.status().message();
  }
  for (const auto& [name, text] : WarpModules()) {
    SCOPED_TRACE(name);
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(text, name);
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<std::vector<Literal>> inputs = RandomInputs(**module, 7);
    ASSERT_TRUE(inputs.ok()) << inputs.status();
    absl::StatusOr<Literal> expected = EvaluateModule(**module, *inputs);
    ASSERT_TRUE(expected.ok()) << expected.status();
    auto pipeline = MakePipeline("rocm", PipelineOptions{});
    ASSERT_TRUE(pipeline.ok()) << pipeline.status();
    ASSERT_TRUE(pipeline->Run(module->get()).ok());
    // The first architecture whose code object the device loads.
    std::unique_ptr<HipExecutor> executor;
    std::string refused;
    for (const std::string& arch : KnownGpuArchs("rocm")) {
      GpuCompileOptions options;
      options.platform = "rocm";
      options.arch = arch;
      absl::StatusOr<Executable> executable = CompileForGpu(**module, options);
      ASSERT_TRUE(executable.ok()) << executable.status();
      absl::StatusOr<std::unique_ptr<HipExecutor>> created =
          HipExecutor::Create(*std::move(executable));
      if (created.ok()) {
        executor = *std::move(created);
        break;
      }
      absl::StrAppend(&refused, "\n", arch, ": ", created.status().message());
    }
    ASSERT_NE(executor, nullptr) << "no architecture loads:" << refused;
    absl::StatusOr<Literal> actual = executor->Run(*inputs);
    ASSERT_TRUE(actual.ok()) << actual.status();
    Tolerance tolerance;
    tolerance.rtol = 1e-4;
    tolerance.atol = 1e-4;
    ComparisonResult result = CompareLiterals(*actual, *expected, tolerance);
    EXPECT_TRUE(result.ok())
        << executor->loaded_code() << ": " << result.mismatch_count
        << " mismatches"
        << (result.first_mismatches.empty()
                ? ""
                : ", first " + result.first_mismatches[0].ToString());
  }
}

TEST(HipRunTest, HloRunSaysThereIsNoAmdGpu) {
  if (hip::HipDriver::Get().ok()) {
    GTEST_SKIP() << "an AMD GPU is present: hlo-run --platform=rocm runs";
  }
  const std::string path = ::testing::TempDir() + "/hip_run_test.hlo";
  {
    std::ofstream f(path);
    f << WarpModules()[0].second;
  }
  std::ostringstream out, err;
  const int code =
      HloRunMain({path, "--platform=rocm", "--random-inputs=1"}, out, err);
  EXPECT_EQ(code, kHloRunFailed) << err.str();
  EXPECT_NE(err.str().find("rocm failed to run"), std::string::npos)
      << err.str();
  EXPECT_NE(err.str().find("no AMD GPU"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace hloc

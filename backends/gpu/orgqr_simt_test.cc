// The orgqr expansion (passes/orgqr_expander.h) as the cuda pipeline
// compiles it, on the simulated GPU (testing/host_simt.h) with sm_90's
// facts: a batched cusolver_orgqr_ffi call in f32 and c64 becomes a loop
// of kernels (no library step is left), and its Q matches the evaluator's
// run of the expansion (which orgqr_expander_test checks against the
// Householder product).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/testing/host_simt.h"
#include "backends/gpu/testing/simt_check.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/orgqr_expander.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"
#include "tools/hlo_run_core.h"

namespace hloc {
namespace {

std::string Module(const std::string& type) {
  const std::string a = absl::StrCat(type, "[3,6,4]");
  return absl::StrCat("HloModule m\nENTRY e {\n  a = ", a,
                      " parameter(0)\n  tau = ", type,
                      "[3,4] parameter(1)\n  ROOT q = ", a,
                      " custom-call(a, tau), custom_call_target="
                      "\"cusolver_orgqr_ffi\", "
                      "api_version=API_VERSION_TYPED_FFI\n}\n");
}

class OrgqrSimtTest : public ::testing::TestWithParam<const char*> {};

TEST_P(OrgqrSimtTest, BatchedOrgqrRunsAsKernels) {
  const std::string text = Module(GetParam());
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("cuda", "sm_90");
  ASSERT_TRUE(device.ok()) << device.status();
  // The reference: the expansion alone, in the evaluator.
  absl::StatusOr<std::unique_ptr<HloModule>> reference = ParseHloModule(text);
  ASSERT_TRUE(reference.ok()) << reference.status();
  OrgqrExpander expander;
  absl::StatusOr<bool> expanded = expander.Run(reference->get());
  ASSERT_TRUE(expanded.ok()) << expanded.status();
  ASSERT_TRUE(*expanded);
  absl::StatusOr<std::vector<Literal>> inputs = RandomInputs(**reference, 3);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<Literal> expected = EvaluateModule(**reference, *inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  // The cuda pipeline and the GPU compiler on the call itself.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<HloPassPipeline> pipeline = MakePipeline("cuda", {});
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  absl::Status ran = pipeline->Run(module->get()).status();
  ASSERT_TRUE(ran.ok()) << ran;
  absl::StatusOr<Executable> executable =
      CompileForHostSimt(**module, "cuda", "sm_90", *device);
  ASSERT_TRUE(executable.ok()) << executable.status();
  bool loop = false;
  for (const ExecutableStep& step : executable->steps) {
    EXPECT_NE(step.kind, ExecutableStep::Kind::kLibraryCall) << step.library;
    loop |= step.kind == ExecutableStep::Kind::kWhile;
  }
  EXPECT_TRUE(loop);
  absl::StatusOr<Literal> actual = RunOnHostSimt(*executable, *device, *inputs);
  ASSERT_TRUE(actual.ok()) << actual.status();
  Tolerance tolerance;
  tolerance.rtol = 1e-5;
  tolerance.atol = 1e-5;
  ComparisonResult result = CompareLiterals(*actual, *expected, tolerance);
  EXPECT_TRUE(result.ok()) << DescribeMismatch(result);
}

INSTANTIATE_TEST_SUITE_P(Types, OrgqrSimtTest, ::testing::Values("f32", "c64"));

}  // namespace
}  // namespace hloc

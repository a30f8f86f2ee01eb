// The 64-wide logical warps on NVIDIA (testing/nvptx_wide_warp.h) compile:
// every warp module's kernels have whole logical warps in blocks the named
// barriers can serve, their shuffles are shared-memory exchanges with a
// 64-thread barrier, and ptxas accepts the PTX. Running them needs an
// NVIDIA GPU: tools:wide-warp-cases writes them as gpu_bundle cases.
// Without ptxas the test says so and skips.
#include "backends/gpu/testing/nvptx_wide_warp.h"

#include <string>

#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/nvptx_target.h"
#include "backends/gpu/ptxas.h"
#include "backends/gpu/testing/warp_modules.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"

namespace hloc {
namespace {

TEST(NvptxWideWarpTest, WarpModulesCompileWith64WideWarps) {
  const std::string cuda = FindCudaPath("");
  if (FindPtxas(cuda).empty()) {
    GTEST_SKIP() << "ptxas not found (CUDA toolkit at " << cuda
                 << "): PTX is not checked";
  }
  absl::StatusOr<std::unique_ptr<GpuTarget>> target =
      CreateNvptxWideWarpTarget("sm_90", cuda);
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ((*target)->device().warp_size, 64);
  for (const auto& [name, text] : WarpModules()) {
    SCOPED_TRACE(name);
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(text, name);
    ASSERT_TRUE(module.ok()) << module.status();
    auto pipeline = MakePipeline("cuda", PipelineOptions{});
    ASSERT_TRUE(pipeline.ok());
    ASSERT_TRUE(pipeline->Run(module->get()).ok());
    GpuCompileOptions options;
    options.target = target->get();
    absl::StatusOr<Executable> executable = CompileForGpu(**module, options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    EXPECT_TRUE(CheckWideWarpLaunches(*executable).ok())
        << CheckWideWarpLaunches(*executable);
    EXPECT_TRUE(ValidateExecutable(*executable).ok());
    ASSERT_EQ(executable->device_code.size(), 2u) << "PTX and a cubin";
    const std::string& ptx = executable->device_code[0].code;
    // Every shuffle is an exchange through shared memory between the two
    // hardware warps: no hardware shuffle is left, and the logical warp's
    // 64 threads meet at a named barrier.
    EXPECT_EQ(ptx.find("shfl.sync"), std::string::npos);
    // (Column reductions of wide columns combine their warps' partials
    // through shared memory and the block barrier, and transposes pass
    // their tiles the same way; column scans walk a column per thread or
    // meet their segments' totals in shared memory, and a scan not marked
    // associative (cumlogsumexp) walks a row per thread. They shuffle
    // nothing.)
    if (name != "columns" && name != "column_scans" &&
        name != "split_column_scans" && name != "cumlogsumexp" &&
        name.rfind("transpose", 0) != 0) {
      EXPECT_NE(ptx.find("barrier.sync"), std::string::npos);
      EXPECT_NE(ptx.find(", 64;"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace hloc

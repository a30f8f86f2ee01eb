// Ragged-dots as grouped matmuls (the tiled dot kernel with groups,
// tiled_dot_emitter.cc) on the GPU simulated on this CPU
// (testing/host_simt.h), against the reference evaluator, which computes
// a ragged-dot directly (hlo/evaluator/dot_conv.cc), not by expansion.
// The group sizes are constants of each module, chosen so that tiles span
// group boundaries, groups are empty, negative (overlapping groups) or run
// past the ragged dimension, and rows in no group are left: both modes
// (rows grouped, MoE's forward; contraction grouped, its weight gradient),
// batch dimensions, a transposed rhs, a ragged dimension with another
// free one after it, f32/bf16/s8 operands and s32/s64/u32 sizes. Each
// runs with the facts of sm_90 (mma.sync for bf16), gfx942 (MFMA) and
// gfx1100 (plain tiles), compiled without the expander, so the kernel is
// what runs whatever cuda's pipeline would choose for the size; the last
// tests check those choices.
#include <string>
#include <vector>

#include "backends/gpu/device_info.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/testing/host_simt.h"
#include "backends/gpu/testing/simt_check.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

struct GroupedModule {
  std::string name;
  std::string text;
};

const std::vector<GroupedModule>& GroupedModules() {
  static const auto* modules = new std::vector<GroupedModule>{
      // MoE's forward: 130 tokens sorted by expert, 128 of them routed.
      {"bf16_rows", R"(
HloModule m
ENTRY e {
  a = bf16[130,72] parameter(0)
  b = bf16[5,72,40] parameter(1)
  g = s32[5] constant({30, 0, 45, 50, 3})
  ROOT r = f32[130,40] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})"},
      {"bf16_rows_bf16_out", R"(
HloModule m
ENTRY e {
  a = bf16[200,64] parameter(0)
  b = bf16[3,64,96] parameter(1)
  g = s32[3] constant({64, 70, 66})
  ROOT r = bf16[200,96] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})"},
      // A negative size makes the next groups overlap this one's rows; the
      // last runs past the rows.
      {"f32_rows_negative_overfull", R"(
HloModule m
ENTRY e {
  a = f32[100,33] parameter(0)
  b = f32[4,33,20] parameter(1)
  g = s64[4] constant({40, -10, 35, 200})
  ROOT r = f32[100,20] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})"},
      // The rhs [g, n, k] (the gradient's transposed experts), the group
      // dimension in the middle of a batched rhs.
      {"f32_rows_rhs_transposed", R"(
HloModule m
ENTRY e {
  a = f32[70,24] parameter(0)
  b = f32[3,17,24] parameter(1)
  g = u32[3] constant({20, 31, 19})
  ROOT r = f32[70,17] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={2}, lhs_ragged_dims={0}, rhs_group_dims={0}
})"},
      {"f32_rows_batched", R"(
HloModule m
ENTRY e {
  a = f32[2,33,20] parameter(0)
  b = f32[2,3,20,17] parameter(1)
  g = s32[3] constant({10, 0, 20})
  ROOT r = f32[2,33,17] ragged-dot(a, b, g), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={1}
})"},
      // Rows are [ragged, 5] flattened: a group is 5 times its size of
      // them.
      {"f32_rows_two_free", R"(
HloModule m
ENTRY e {
  a = f32[12,5,16] parameter(0)
  b = f32[3,16,9] parameter(1)
  g = s32[3] constant({5, 4, 2})
  ROOT r = f32[12,5,9] ragged-dot(a, b, g), lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})"},
      // More groups than a warp's lanes (70: three chunks on sm_90 and
      // gfx1100, two on gfx942's wave64), with empty ones, negative ones
      // across chunks and a total short of the rows.
      {"f32_rows_many_groups", R"(
HloModule m
ENTRY e {
  a = f32[400,16] parameter(0)
  b = f32[70,16,8] parameter(1)
  g = s32[70] constant({0, 7, 3, 10, 6, 0, 9, 5, 1, 8, 4, 0, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, -6, 7, 3, 10, 6, 2, 9, 9, 1, 8, 4, 0, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0, 7, 3, 10, 6, 2, 9, 5, 1, -2, 4, 0, 7, 3, 10})
  ROOT r = f32[400,8] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})"},
      {"s8_rows", R"(
HloModule m
ENTRY e {
  a = s8[50,40] parameter(0)
  b = s8[2,40,24] parameter(1)
  g = s32[2] constant({21, 29})
  ROOT r = s32[50,24] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})"},
      // MoE's weight gradient: x^T dy per expert over its tokens; 5 tokens
      // in no group.
      {"f32_contracting", R"(
HloModule m
ENTRY e {
  a = f32[100,24] parameter(0)
  b = f32[100,18] parameter(1)
  g = s32[4] constant({20, 0, 50, 25})
  ROOT r = f32[4,24,18] ragged-dot(a, b, g), lhs_contracting_dims={0}, rhs_contracting_dims={0}, lhs_ragged_dims={0}
})"},
      {"bf16_contracting_negative", R"(
HloModule m
ENTRY e {
  a = bf16[130,40] parameter(0)
  b = bf16[130,72] parameter(1)
  g = s32[4] constant({30, -5, 60, 40})
  ROOT r = f32[4,40,72] ragged-dot(a, b, g), lhs_contracting_dims={0}, rhs_contracting_dims={0}, lhs_ragged_dims={0}
})"},
      {"f32_contracting_batched", R"(
HloModule m
ENTRY e {
  a = f32[2,50,8] parameter(0)
  b = f32[2,50,6] parameter(1)
  g = s32[3] constant({12, 30, 8})
  ROOT r = f32[3,2,8,6] ragged-dot(a, b, g), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={1}
})"},
      // The ragged contraction is [ragged, 3] flattened.
      {"f32_contracting_two_dims", R"(
HloModule m
ENTRY e {
  a = f32[10,3,7] parameter(0)
  b = f32[10,3,5] parameter(1)
  g = s32[2] constant({4, 6})
  ROOT r = f32[2,7,5] ragged-dot(a, b, g), lhs_contracting_dims={0,1}, rhs_contracting_dims={0,1}, lhs_ragged_dims={0}
})"},
  };
  return *modules;
}

std::vector<SimtCase> Cases() {
  std::vector<std::string> names;
  for (const GroupedModule& m : GroupedModules()) names.push_back(m.name);
  return OnEverySimulatedGpu(names);
}

const std::string& ModuleText(const std::string& name) {
  for (const GroupedModule& m : GroupedModules()) {
    if (m.name == name) return m.text;
  }
  static const std::string none;
  return none;
}

class GroupedDotSimtTest : public ::testing::TestWithParam<SimtCase> {};

TEST_P(GroupedDotSimtTest, MatchesTheEvaluator) {
  const SimtCase& c = GetParam();
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo(c.platform, c.arch);
  ASSERT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(ModuleText(c.module), c.module);
  ASSERT_TRUE(module.ok()) << module.status();
  PipelineOptions pipeline_options;
  pipeline_options.disabled_passes = {"ragged-dot-expander"};
  absl::StatusOr<SimtRun> run = RunOnHostSimtAndEvaluate(
      **module, c.platform, c.arch, *device, 7, pipeline_options);
  ASSERT_TRUE(run.ok()) << run.status();
  absl::StatusOr<std::unique_ptr<GpuTarget>> target =
      CreateHostSimtTarget(*device);
  ASSERT_TRUE(target.ok()) << target.status();
  GpuCompileOptions options;
  options.platform = c.platform;
  options.arch = c.arch;
  options.target = target->get();
  // One kernel, the tiled one (its shared K slices), with the matrix
  // instruction where the device has one for the operands.
  absl::StatusOr<std::string> ir =
      GpuStageOutput(**module, "llvm", options, /*summary=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find(".dot_lhs"), std::string::npos) << *ir;
  const bool half = c.module.rfind("bf16", 0) == 0;
  const bool f32 = c.module.rfind("f32", 0) == 0;
  const bool expect_matrix =
      device->matrix_cores && (half || (c.platform == "rocm" && f32));
  EXPECT_EQ(ir->find("matrix.c") != std::string::npos, expect_matrix);

  EXPECT_EQ(CountKernelSteps(run->executable), 1);
  const Tolerance tolerance = DefaultToleranceFor(**module, run->expected);
  ComparisonResult result =
      CompareLiterals(run->actual, run->expected, tolerance);
  EXPECT_TRUE(result.ok()) << DescribeMismatch(result) << " ("
                           << tolerance.ToString() << ")";
}

INSTANTIATE_TEST_SUITE_P(GroupedModules, GroupedDotSimtTest,
                         ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<SimtCase>& info) {
                           return info.param.module + "_" + info.param.arch;
                         });

// What the cuda and rocm pipelines leave of a ragged-dot: the count of
// ragged-dots after them.
int RaggedDotsAfterPipeline(const std::string& platform,
                            const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, "m");
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return -1;
  auto pipeline = MakePipeline(platform, PipelineOptions());
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  absl::StatusOr<bool> run = pipeline->Run(module->get());
  EXPECT_TRUE(run.ok()) << run.status();
  int count = 0;
  for (const HloComputation* computation : (*module)->computations()) {
    for (const HloInstruction* instr : computation->instructions()) {
      count += instr->opcode() == HloOpcode::kRaggedDot ? 1 : 0;
    }
  }
  return count;
}

std::string RowsModule(const std::string& type, int groups) {
  const std::string g = std::to_string(groups);
  return "HloModule m\nENTRY e {\n  a = " + type +
         "[512,256] parameter(0)\n  b = " + type + "[" + g +
         ",256,128] parameter(1)\n  s = s32[" + g +
         "] parameter(2)\n  ROOT r = " + type +
         "[512,128] ragged-dot(a, b, s), lhs_contracting_dims={1}, "
         "rhs_contracting_dims={1}, lhs_ragged_dims={0}, "
         "rhs_group_dims={0}\n}\n";
}

TEST(GroupedDotPipelineTest, CudaKeepsWhereTheKernelPays) {
  // bf16 from 4 groups (the expansion's gemm does 4x the work).
  EXPECT_EQ(RaggedDotsAfterPipeline("cuda", RowsModule("bf16", 4)), 1);
  EXPECT_EQ(RaggedDotsAfterPipeline("cuda", RowsModule("bf16", 3)), 0);
  // f64: the FMA loop against cuBLAS's DGEMM, from 16 groups.
  EXPECT_EQ(RaggedDotsAfterPipeline("cuda", RowsModule("f64", 16)), 1);
  EXPECT_EQ(RaggedDotsAfterPipeline("cuda", RowsModule("f64", 8)), 0);
  // f32: cuBLAS's TF32 against the kernel's FMA loop, from 32 groups.
  EXPECT_EQ(RaggedDotsAfterPipeline("cuda", RowsModule("f32", 16)), 0);
  EXPECT_EQ(RaggedDotsAfterPipeline("cuda", RowsModule("f32", 32)), 1);
  // Past 256 MiB of masked lhs copies, whatever the groups: 8 of a
  // [8192, 4096] f32 lhs.
  EXPECT_EQ(RaggedDotsAfterPipeline(
                "cuda",
                "HloModule m\nENTRY e {\n  a = f32[8192,4096] parameter(0)\n"
                "  b = f32[8,4096,64] parameter(1)\n  s = s32[8] "
                "parameter(2)\n  ROOT r = f32[8192,64] ragged-dot(a, b, s), "
                "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
                "lhs_ragged_dims={0}, rhs_group_dims={0}\n}\n"),
            1);
  // rocm's dots are tiled kernels anyway.
  EXPECT_EQ(RaggedDotsAfterPipeline("rocm", RowsModule("f32", 2)), 1);
  // The CPU expands every one.
  EXPECT_EQ(RaggedDotsAfterPipeline("cpu", RowsModule("bf16", 8)), 0);
}

TEST(GroupedDotPipelineTest, OtherFormsAreExpanded) {
  // group_sizes per batch index ([b, g]): not one set of groups.
  EXPECT_EQ(RaggedDotsAfterPipeline("rocm", R"(
HloModule m
ENTRY e {
  a = f32[2,33,20] parameter(0)
  b = f32[2,3,20,17] parameter(1)
  g = s32[2,3] parameter(2)
  ROOT r = f32[2,33,17] ragged-dot(a, b, g), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={1}
})"),
            0);
  // The ragged dimension after another free one: its groups are not runs
  // of the flattened rows.
  EXPECT_EQ(RaggedDotsAfterPipeline("rocm", R"(
HloModule m
ENTRY e {
  a = f32[5,12,16] parameter(0)
  b = f32[3,16,9] parameter(1)
  g = s32[3] parameter(2)
  ROOT r = f32[5,12,9] ragged-dot(a, b, g), lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={1}, rhs_group_dims={0}
})"),
            0);
  // Complex operands: the tiled kernel holds no complex elements.
  EXPECT_EQ(RaggedDotsAfterPipeline("rocm", R"(
HloModule m
ENTRY e {
  a = c64[40,16] parameter(0)
  b = c64[3,16,9] parameter(1)
  g = s32[3] parameter(2)
  ROOT r = c64[40,9] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})"),
            0);
}

}  // namespace
}  // namespace hloc

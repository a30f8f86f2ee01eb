// The tiled dot kernel (tiled_dot_emitter.cc) on the GPU simulated on this
// CPU (testing/host_simt.h), against the reference evaluator: sizes that
// are not multiples of the tile (1, 17, 65, 130), batch dimensions (also
// between the free ones), several contracting dimensions, transposed
// operands and a column-major layout, f32/f16/bf16/f64/s32/s8 operands, a
// fused bias + relu epilogue, and a convolution that convolution-to-gemm
// turns into a dot. Each module is compiled by the same emitters with the
// facts of gfx942 (wave64, MFMA), gfx1100 (wave32, plain tiles) and sm_90
// (warp 32, mma.sync for f16/bf16 operands, plain tiles otherwise: what
// cuda gets where cuBLASLt has no call or a prologue is fused). The
// simulator executes the matrix instructions with the model of
// testing/matrix_model.h, so the matrix paths' staging, lane layout and
// output positions run, the instruction itself being the model, not the
// hardware. Every case also checks that the tiled kernel is the one
// emitted, and with the matrix instruction exactly where the device has
// one for the operand type.
#include <string>
#include <vector>

#include "backends/gpu/device_info.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/testing/host_simt.h"
#include "backends/gpu/testing/simt_check.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/convolution_to_gemm.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"
#include "tools/hlo_run_core.h"

namespace hloc {
namespace {

struct DotModule {
  std::string name;
  std::string text;
};

const std::vector<DotModule>& DotModules() {
  static const auto* modules = new std::vector<DotModule>{
      {"f32_17x65x130", R"(
HloModule m
ENTRY e {
  a = f32[17,65] parameter(0)
  b = f32[65,130] parameter(1)
  ROOT d = f32[17,130] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"},
      // (A K of 1 is no dot after simplification: an outer product.)
      {"f32_130x17x65", R"(
HloModule m
ENTRY e {
  a = f32[130,17] parameter(0)
  b = f32[17,65] parameter(1)
  ROOT d = f32[130,65] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"},
      {"f32_1x130x1", R"(
HloModule m
ENTRY e {
  a = f32[1,130] parameter(0)
  b = f32[130,1] parameter(1)
  ROOT d = f32[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"},
      {"f32_vector_dot", R"(
HloModule m
ENTRY e {
  a = f32[65] parameter(0)
  b = f32[65] parameter(1)
  ROOT d = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})"},
      {"f32_both_transposed", R"(
HloModule m
ENTRY e {
  a = f32[65,17] parameter(0)
  b = f32[130,65] parameter(1)
  ROOT d = f32[17,130] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
})"},
      {"f32_column_major_lhs", R"(
HloModule m
ENTRY e {
  a = f32[65,130]{0,1} parameter(0)
  b = f32[130,17] parameter(1)
  ROOT d = f32[65,17] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"},
      {"f32_batch", R"(
HloModule m
ENTRY e {
  a = f32[3,17,33] parameter(0)
  b = f32[3,33,65] parameter(1)
  ROOT d = f32[3,17,65] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})"},
      {"f32_attention_bqhd_bkhd", R"(
HloModule m
ENTRY e {
  q = f32[2,17,3,16] parameter(0)
  k = f32[2,65,3,16] parameter(1)
  ROOT s = f32[2,3,17,65] dot(q, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}
})"},
      {"f32_two_contracting", R"(
HloModule m
ENTRY e {
  a = f32[17,4,5] parameter(0)
  b = f32[5,33,4] parameter(1)
  ROOT d = f32[17,33] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={2,0}
})"},
      {"f32_bias_relu_epilogue", R"(
HloModule m
ENTRY e {
  a = f32[65,130] parameter(0)
  b = f32[130,17] parameter(1)
  bias = f32[17] parameter(2)
  d = f32[65,17] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[65,17] broadcast(bias), dimensions={1}
  s = f32[65,17] add(d, bb)
  z = f32[] constant(0)
  zb = f32[65,17] broadcast(z), dimensions={}
  ROOT r = f32[65,17] maximum(s, zb)
})"},
      {"f64_17x65x33", R"(
HloModule m
ENTRY e {
  a = f64[17,65] parameter(0)
  b = f64[65,33] parameter(1)
  ROOT d = f64[17,33] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"},
      {"bf16_to_f32", R"(
HloModule m
ENTRY e {
  a = bf16[65,130] parameter(0)
  b = bf16[130,17] parameter(1)
  ROOT d = f32[65,17] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"},
      // Whole tiles of memory operands: staged by async copies on sm_90,
      // each tile in its operand's orientation (an m-minor lhs, a k-minor
      // rhs), read by matrix loads (ldmatrix, transposed for the lhs).
      {"bf16_whole_tiles_async", R"(
HloModule m
ENTRY e {
  a = bf16[64,128]{0,1} parameter(0)
  b = bf16[128,64]{0,1} parameter(1)
  ROOT d = f32[64,64] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"},
      {"bf16_to_bf16", R"(
HloModule m
ENTRY e {
  a = bf16[17,65] parameter(0)
  b = bf16[65,130] parameter(1)
  ROOT d = bf16[17,130] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"},
      {"f16_batch_to_f16", R"(
HloModule m
ENTRY e {
  a = f16[2,65,17] parameter(0)
  b = f16[2,17,33] parameter(1)
  ROOT d = f16[2,65,33] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})"},
      {"s32_17x65x130", R"(
HloModule m
ENTRY e {
  a = s32[17,65] parameter(0)
  b = s32[65,130] parameter(1)
  ROOT d = s32[17,130] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"},
      {"s8_to_s32_transposed", R"(
HloModule m
ENTRY e {
  a = s8[65,33] parameter(0)
  b = s8[17,65] parameter(1)
  ROOT d = s32[33,17] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
})"},
      // A 3x3 convolution, NHWC/HWIO with SAME padding and a stride:
      // convolution-to-gemm makes it pads, slices, a concatenate and one
      // dot (the test lowers its threshold so this small one qualifies).
      // Prologues (dot-prologue-fusion, on rocm): f32 values rounded to
      // bf16 by the kernel as it loads its tiles; a negated operand and a
      // broadcast bias matrix, with a bias-and-relu epilogue.
      {"bf16_prologue_converts", R"(
HloModule m
ENTRY e {
  a = f32[33,70] parameter(0)
  b = f32[70,45] parameter(1)
  ra = bf16[33,70] convert(a)
  rb = bf16[70,45] convert(b)
  d = bf16[33,45] dot(ra, rb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT w = f32[33,45] convert(d)
})"},
      {"f32_prologue_broadcast_epilogue", R"(
HloModule m
ENTRY e {
  a = f32[40,66] parameter(0)
  v = f32[66] parameter(1)
  c = f32[24] parameter(2)
  na = f32[40,66] negate(a)
  bv = f32[66,24] broadcast(v), dimensions={0}
  d = f32[40,24] dot(na, bv), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bc = f32[40,24] broadcast(c), dimensions={1}
  s = f32[40,24] add(d, bc)
  z = f32[] constant(0)
  zb = f32[40,24] broadcast(z), dimensions={}
  ROOT r = f32[40,24] maximum(s, zb)
})"},
      {"conv_via_gemm", R"(
HloModule m
ENTRY e {
  x = f32[2,9,9,5] parameter(0)
  w = f32[3,3,5,17] parameter(1)
  ROOT c = f32[2,5,5,17] convolution(x, w), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})"},
  };
  return *modules;
}

std::vector<SimtCase> Cases() {
  std::vector<std::string> names;
  for (const DotModule& m : DotModules()) names.push_back(m.name);
  return OnEverySimulatedGpu(names);
}

const std::string& ModuleText(const std::string& name) {
  for (const DotModule& m : DotModules()) {
    if (m.name == name) return m.text;
  }
  static const std::string none;
  return none;
}

class TiledDotSimtTest : public ::testing::TestWithParam<SimtCase> {};

TEST_P(TiledDotSimtTest, MatchesTheEvaluator) {
  const SimtCase& c = GetParam();
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo(c.platform, c.arch);
  ASSERT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(ModuleText(c.module), c.module);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<Literal>> inputs = RandomInputs(**module, 5);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<Literal> expected = EvaluateModule(**module, *inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ConvolutionToGemm to_gemm(ConvolutionToGemmOptions{0, int64_t{1} << 30});
  ASSERT_TRUE(to_gemm.Run(module->get()).ok());
  // The dots here are small on purpose (partial tiles): without
  // dot-strength-reduction, which would make most of them reductions, they
  // stay the tiled kernel's.
  PipelineOptions pipeline_options;
  pipeline_options.disabled_passes = {"dot-strength-reduction"};
  auto pipeline = MakePipeline(c.platform, pipeline_options);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  ASSERT_TRUE(pipeline->Run(module->get()).ok());

  absl::StatusOr<std::unique_ptr<GpuTarget>> target =
      CreateHostSimtTarget(*device);
  ASSERT_TRUE(target.ok()) << target.status();
  GpuCompileOptions options;
  options.platform = c.platform;
  options.arch = c.arch;
  options.target = target->get();
  // The kernel is the tiled one: its shared K slices are in the module,
  // and MFMA's simulated instruction exactly where the device has it.
  absl::StatusOr<std::string> ir =
      GpuStageOutput(**module, "llvm", options, /*summary=*/false);
  ASSERT_TRUE(ir.ok()) << ir.status();
  EXPECT_NE(ir->find(".dot_lhs"), std::string::npos) << *ir;
  EXPECT_NE(ir->find(".dot_rhs"), std::string::npos);
  // MFMA has f32, f16 and bf16 forms, mma.sync f16 and bf16 ones.
  const bool half_type =
      c.module.rfind("bf16", 0) == 0 || c.module.rfind("f16", 0) == 0;
  const bool matrix_type =
      half_type || (c.platform == "rocm" && (c.module.rfind("f32", 0) == 0 ||
                                             c.module.rfind("conv", 0) == 0));
  const bool expect_matrix = device->matrix_cores && matrix_type;
  EXPECT_EQ(ir->find("matrix.c") != std::string::npos, expect_matrix);

  absl::StatusOr<Executable> executable = CompileForGpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  for (const ExecutableStep& step : executable->steps) {
    if (step.kind != ExecutableStep::Kind::kKernel) continue;
    EXPECT_EQ(step.launch.NumThreadsPerBlock() % device->warp_size, 0)
        << step.kernel_name;
    EXPECT_LE(step.launch.NumThreadsPerBlock(), device->max_threads_per_block)
        << step.kernel_name;
  }
  // On ROCm a prologue (and an epilogue) are computed by the dot's own
  // kernel; on CUDA where the tensor-core kernel reads it (a small f16 or
  // bf16 dot: cost_model.h).
  const bool prologue_fused =
      c.platform == "rocm" || (c.platform == "cuda" && half_type);
  if (prologue_fused && c.module.find("prologue") != std::string::npos) {
    int kernels = 0;
    for (const ExecutableStep& step : executable->steps) {
      kernels += step.kind == ExecutableStep::Kind::kKernel ? 1 : 0;
    }
    EXPECT_EQ(kernels, 1) << "the dot and its prologue are one kernel";
  }
  absl::StatusOr<Literal> actual = RunOnHostSimt(*executable, *device, *inputs);
  ASSERT_TRUE(actual.ok()) << actual.status();
  const Tolerance tolerance = DefaultToleranceFor(**module, *expected);
  ComparisonResult result = CompareLiterals(*actual, *expected, tolerance);
  EXPECT_TRUE(result.ok()) << DescribeMismatch(result) << " ("
                           << tolerance.ToString() << ")";
}

INSTANTIATE_TEST_SUITE_P(DotModules, TiledDotSimtTest,
                         ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<SimtCase>& info) {
                           return info.param.module + "_" + info.param.arch;
                         });

}  // namespace
}  // namespace hloc

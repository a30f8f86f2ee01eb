// Reduction epilogue fusion (fusion_kinds.h, kReduction) run on a GPU
// simulated on this CPU (testing/host_simt.h): each module goes through the
// cuda or rocm pipeline, which fuses the elementwise consumers of its
// reductions into the reduction kernels, is compiled by the GPU emitters
// and must match the reference evaluator on the unoptimized module. The
// kernel count shows the epilogue is not a kernel of its own. Devices:
// sm_90 (warp 32), gfx942 (wavefront 64), and sm_90's facts with only 4
// SMs, where the column kernel already gives each thread a run of 4
// columns at these small sizes (one epilogue per column of the run).
#include <string>
#include <vector>

#include "backends/gpu/device_info.h"
#include "backends/gpu/testing/simt_check.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

constexpr char kAdd[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

struct Module {
  std::string name;
  std::string entry;
  int kernels;       // Kernel steps after fusion.
  double tolerance;  // rtol and atol (bf16 outputs: a sum in another order
                     // may round to the neighbouring bf16).
};

std::vector<Module> Modules() {
  return {
      // JAX's bf16 sum over the major dimension, odd sizes.
      {"column_bf16_sum", R"(
ENTRY main {
  x = bf16[301,67] parameter(0)
  xf = f32[301,67] convert(x)
  z = f32[] constant(0)
  r = f32[67] reduce(xf, z), dimensions={0}, to_apply=add
  ROOT o = bf16[67] convert(r)
})",
       1, 1e-2},
      // Kept dimensions on both sides of the reduced one; a mean.
      {"column_mean_outer", R"(
ENTRY main {
  x = f32[6,50,70] parameter(0)
  z = f32[] constant(0)
  r = f32[6,70] reduce(x, z), dimensions={1}, to_apply=add
  n = f32[] constant(50)
  nb = f32[6,70] broadcast(n), dimensions={}
  ROOT d = f32[6,70] divide(r, nb)
})",
       1, 1e-4},
      // An operand of the output's shape, read at each column.
      {"column_scale", R"(
ENTRY main {
  x = f32[8,2048] parameter(0)
  w = f32[2048] parameter(1)
  z = f32[] constant(0)
  r = f32[2048] reduce(x, z), dimensions={0}, to_apply=add
  ROOT m = f32[2048] multiply(r, w)
})",
       1, 1e-4},
      // Multi-output: mean (with an epilogue) and a sum of squares (none)
      // of the same columns, siblings in one kernel.
      {"column_mean_and_sum_of_squares", R"(
ENTRY main {
  x = f32[100,33] parameter(0)
  z = f32[] constant(0)
  s = f32[33] reduce(x, z), dimensions={0}, to_apply=add
  n = f32[] constant(100)
  nb = f32[33] broadcast(n), dimensions={}
  mean = f32[33] divide(s, nb)
  xx = f32[100,33] multiply(x, x)
  sq = f32[33] reduce(xx, z), dimensions={0}, to_apply=add
  ROOT out = (f32[33], f32[33]) tuple(mean, sq)
})",
       1, 1e-4},
      // Rows too long for a row fusion (a block per row): divided by a
      // parameter of the output's shape and converted to bf16.
      {"row_long_divide_bf16", R"(
ENTRY main {
  x = f32[3,20011] parameter(0)
  q = f32[3] parameter(1)
  z = f32[] constant(0)
  r = f32[3] reduce(x, z), dimensions={1}, to_apply=add
  d = f32[3] divide(r, q)
  ROOT o = bf16[3] convert(d)
})",
       1, 1e-2},
      // A long-row mean with an extra output of the input's shape (exp(x),
      // also needed outside): the extra output is written per element, the
      // epilogue once per row.
      {"row_long_mean_with_extra_output", R"(
ENTRY main {
  x = f32[2,17000] parameter(0)
  e = f32[2,17000] exponential(x)
  z = f32[] constant(0)
  r = f32[2] reduce(e, z), dimensions={1}, to_apply=add
  n = f32[] constant(17000)
  nb = f32[2] broadcast(n), dimensions={}
  m = f32[2] divide(r, nb)
  ROOT out = (f32[2], f32[2,17000]) tuple(m, e)
})",
       1, 1e-4},
      // A whole array to a scalar (one row, too long for a row fusion):
      // the epilogue at the empty index.
      {"row_to_scalar_bf16", R"(
ENTRY main {
  x = bf16[40000] parameter(0)
  xf = f32[40000] convert(x)
  z = f32[] constant(0)
  r = f32[] reduce(xf, z), dimensions={0}, to_apply=add
  ROOT o = bf16[] convert(r)
})",
       1, 1e-2},
      // Rows contiguous only in the physical layout (not a row fusion):
      // short rows, a warp per row.
      {"row_physical_layout", R"(
ENTRY main {
  x = f32[200,10]{0,1} parameter(0)
  w = f32[10] parameter(1)
  z = f32[] constant(0)
  r = f32[10] reduce(x, z), dimensions={0}, to_apply=add
  ROOT m = f32[10] multiply(r, w)
})",
       1, 1e-4},
      // A reduction fusion (made elsewhere: row-reduction-fusion would make
      // this a row fusion) whose rows fit a block: the row fusion kernel
      // computes its epilogue as any row fusion's.
      {"row_fits_block_reduction_fusion", R"(
fused {
  p = f32[37,100] parameter(0)
  p1 = f32[37] parameter(1)
  zero = f32[] constant(0)
  sum = f32[37] reduce(p, zero), dimensions={1}, to_apply=add
  ROOT scaled = f32[37] divide(sum, p1)
}
ENTRY main {
  x = f32[37,100] parameter(0)
  w = f32[37] parameter(1)
  ROOT f = f32[37] fusion(x, w), kind=kInput, calls=fused
})",
       1, 1e-4},
      // A loop fusion made elsewhere (XLA's split-K dot: the partial
      // products summed inside a kLoop fusion, then bias and relu): the
      // column kernel computes the reduce, the add and maximum as its
      // epilogue.
      {"loop_fusion_with_reduce", R"(
fused {
  p = f32[4,33,40] parameter(0)
  bias = f32[33,40] parameter(1)
  zero = f32[] constant(0)
  sum = f32[33,40] reduce(p, zero), dimensions={0}, to_apply=add
  biased = f32[33,40] add(sum, bias)
  zb = f32[33,40] broadcast(zero), dimensions={}
  ROOT relu = f32[33,40] maximum(biased, zb)
}
ENTRY main {
  x = f32[4,33,40] parameter(0)
  b = f32[33,40] parameter(1)
  ROOT f = f32[33,40] fusion(x, b), kind=kLoop, calls=fused
})",
       1, 1e-4},
      // Reduced dimensions that are neither rows nor columns: the loop
      // kernel computes the reduce per output element, epilogue included.
      {"non_contiguous", R"(
ENTRY main {
  x = f32[8,6,10] parameter(0)
  z = f32[] constant(0)
  r = f32[6] reduce(x, z), dimensions={0,2}, to_apply=add
  ROOT e = f32[6] exponential(r)
})",
       1, 1e-4},
      // The same with 2048 elements per output: reduction-splitter makes
      // it a row reduction (the 128) and a column reduction (the 16) with
      // the epilogue.
      {"non_contiguous_split", R"(
ENTRY main {
  x = f32[16,6,128] parameter(0)
  z = f32[] constant(0)
  r = f32[6] reduce(x, z), dimensions={0,2}, to_apply=add
  ROOT e = f32[6] exponential(r)
})",
       2, 1e-4},
  };
}

struct Case {
  Module module;
  std::string platform;
  std::string arch;
  int64_t core_count;  // 0: the arch's.
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.module.name << "/" << c.arch << "/" << c.core_count;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const Module& m : Modules()) {
    cases.push_back({m, "cuda", "sm_90", 0});
    cases.push_back({m, "rocm", "gfx942", 0});
    cases.push_back({m, "cuda", "sm_90", 4});
  }
  return cases;
}

class ReductionEpilogueSimtTest : public ::testing::TestWithParam<Case> {};

TEST_P(ReductionEpilogueSimtTest, MatchesTheEvaluator) {
  const Case& c = GetParam();
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo(c.platform, c.arch);
  ASSERT_TRUE(device.ok()) << device.status();
  if (c.core_count > 0) device->core_count = c.core_count;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
      std::string("HloModule ") + c.module.name + "\n" + kAdd + c.module.entry,
      c.module.name);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<SimtRun> run =
      RunOnHostSimtAndEvaluate(**module, c.platform, c.arch, *device, 5);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(CountKernelSteps(run->executable), c.module.kernels);
  Tolerance tolerance;
  tolerance.rtol = c.module.tolerance;
  tolerance.atol = c.module.tolerance;
  ComparisonResult result =
      CompareLiterals(run->actual, run->expected, tolerance);
  EXPECT_TRUE(result.ok()) << DescribeMismatch(result);
}

INSTANTIATE_TEST_SUITE_P(
    Epilogues, ReductionEpilogueSimtTest, ::testing::ValuesIn(Cases()),
    [](const ::testing::TestParamInfo<Case>& info) {
      return info.param.module.name + "_" + info.param.arch +
             (info.param.core_count > 0
                  ? "_" + std::to_string(info.param.core_count) + "cores"
                  : "");
    });

}  // namespace
}  // namespace hloc

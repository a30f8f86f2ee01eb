// While loops on the simulated GPU (testing/host_simt.h) with their loop
// state written in place (buffer_assignment.h, loop_state_in_place): a
// scan's counter, carry and stacked outputs need no copy back after the
// body, its dynamic-update-slice writes one row into the state; leaves
// that are swapped, or whose old value is read after the new one is
// made, still copy. Every loop must match the reference evaluator.
#include <algorithm>
#include <string>
#include <vector>

#include "backends/gpu/device_info.h"
#include "backends/gpu/testing/simt_check.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

// A scan of 10 steps: h = tanh(h * w + xs[i]), ys[i] = h, a counter, a
// weight passed through, two leaves swapped every step, and g += h^T (an
// accumulator updated by a transposing kernel that reads g where it
// writes it).
constexpr char kScan[] = R"(
HloModule scan
body {
  s = (s32[], f32[4,16], f32[10,4,16], f32[4,16], f32[10,4,16], f32[3], f32[3], f32[16,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[4,16] get-tuple-element(s), index=1
  ys = f32[10,4,16] get-tuple-element(s), index=2
  w = f32[4,16] get-tuple-element(s), index=3
  xs = f32[10,4,16] get-tuple-element(s), index=4
  a = f32[3] get-tuple-element(s), index=5
  b = f32[3] get-tuple-element(s), index=6
  g = f32[16,4] get-tuple-element(s), index=7
  zero = s32[] constant(0)
  x = f32[1,4,16] dynamic-slice(xs, i, zero, zero), dynamic_slice_sizes={1,4,16}
  xt = f32[4,16] reshape(x)
  hw = f32[4,16] multiply(h, w)
  pre = f32[4,16] add(hw, xt)
  h2 = f32[4,16] tanh(pre)
  row = f32[1,4,16] reshape(h2)
  ys2 = f32[10,4,16] dynamic-update-slice(ys, row, i, zero, zero)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ht = f32[16,4] transpose(h2), dimensions={1,0}
  g2 = f32[16,4] add(g, ht)
  ROOT r = (s32[], f32[4,16], f32[10,4,16], f32[4,16], f32[10,4,16], f32[3], f32[3], f32[16,4]) tuple(i2, h2, ys2, w, xs, b, a, g2)
}
cond {
  s = (s32[], f32[4,16], f32[10,4,16], f32[4,16], f32[10,4,16], f32[3], f32[3], f32[16,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  h0 = f32[4,16] parameter(0)
  w = f32[4,16] parameter(1)
  xs = f32[10,4,16] parameter(2)
  a = f32[3] parameter(3)
  b = f32[3] parameter(4)
  zero = s32[] constant(0)
  fz = f32[] constant(0)
  ys0 = f32[10,4,16] broadcast(fz), dimensions={}
  g0 = f32[16,4] parameter(5)
  init = (s32[], f32[4,16], f32[10,4,16], f32[4,16], f32[10,4,16], f32[3], f32[3], f32[16,4]) tuple(zero, h0, ys0, w, xs, a, b, g0)
  loop = (s32[], f32[4,16], f32[10,4,16], f32[4,16], f32[10,4,16], f32[3], f32[3], f32[16,4]) while(init), condition=cond, body=body
  hn = f32[4,16] get-tuple-element(loop), index=1
  ysn = f32[10,4,16] get-tuple-element(loop), index=2
  an = f32[3] get-tuple-element(loop), index=5
  gn = f32[16,4] get-tuple-element(loop), index=7
  ROOT out = (f32[4,16], f32[10,4,16], f32[3], f32[16,4]) tuple(hn, ysn, an, gn)
})";

// A loop with no count: x grows until its sum passes a bound, t adds up
// the old x's. Fusion makes x3 and t2 one multi-output kernel, which may
// store x3 before it reads x again for t2: both copy back.
constexpr char kUncounted[] = R"(
HloModule grow
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
body {
  s = (f32[32], f32[32], s32[]) parameter(0)
  x = f32[32] get-tuple-element(s), index=0
  t = f32[32] get-tuple-element(s), index=1
  k = s32[] get-tuple-element(s), index=2
  c = f32[] constant(1.5)
  cs = f32[32] broadcast(c), dimensions={}
  x2 = f32[32] multiply(x, cs)
  e = f32[32] exponential(x2)
  x3 = f32[32] add(x2, e)
  t2 = f32[32] add(t, x)
  one = s32[] constant(1)
  k2 = s32[] add(k, one)
  ROOT r = (f32[32], f32[32], s32[]) tuple(x3, t2, k2)
}
cond {
  s = (f32[32], f32[32], s32[]) parameter(0)
  x = f32[32] get-tuple-element(s), index=0
  zero = f32[] constant(0)
  total = f32[] reduce(x, zero), dimensions={0}, to_apply=add
  bound = f32[] constant(1000)
  ROOT lt = pred[] compare(total, bound), direction=LT
}
ENTRY main {
  p = f32[32] parameter(0)
  small = f32[] constant(0.01)
  smalls = f32[32] broadcast(small), dimensions={}
  x0 = f32[32] multiply(p, smalls)
  fz = f32[] constant(0)
  t0 = f32[32] broadcast(fz), dimensions={}
  zero = s32[] constant(0)
  init = (f32[32], f32[32], s32[]) tuple(x0, t0, zero)
  ROOT loop = (f32[32], f32[32], s32[]) while(init), condition=cond, body=body
})";

const ExecutableStep* FindWhile(const std::vector<ExecutableStep>& steps) {
  for (const ExecutableStep& step : steps) {
    if (step.kind == ExecutableStep::Kind::kWhile) return &step;
  }
  return nullptr;
}

// The state leaves (by number) that the body copies back into.
std::vector<int64_t> CopiedBack(const ExecutableStep& loop) {
  std::vector<int64_t> leaves;
  for (const ExecutableStep& step : loop.body) {
    if (step.kind != ExecutableStep::Kind::kCopy) continue;
    auto it =
        std::find(loop.buffers.begin(), loop.buffers.end(), step.buffers[1]);
    if (it != loop.buffers.end()) leaves.push_back(it - loop.buffers.begin());
  }
  std::sort(leaves.begin(), leaves.end());
  return leaves;
}

SimtRun RunAndCompare(const std::string& text, const std::string& platform,
                      const std::string& arch) {
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo(platform, arch);
  EXPECT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  absl::StatusOr<SimtRun> run =
      RunOnHostSimtAndEvaluate(**module, platform, arch, *device, 5);
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return SimtRun();
  Tolerance tolerance;
  tolerance.rtol = 1e-5;
  tolerance.atol = 1e-5;
  ComparisonResult result =
      CompareLiterals(run->actual, run->expected, tolerance);
  EXPECT_TRUE(result.ok()) << DescribeMismatch(result);
  return *std::move(run);
}

class LoopStateSimtTest : public ::testing::TestWithParam<const char*> {};

TEST_P(LoopStateSimtTest, ScanWritesItsStateInPlace) {
  const std::string platform = GetParam();
  SimtRun run =
      RunAndCompare(kScan, platform, platform == "cuda" ? "sm_90" : "gfx942");
  const ExecutableStep* loop = FindWhile(run.executable.steps);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->trip_count, 10);
  // Only the swapped pair copies: counter, carry, outputs and accumulator
  // are written where they live, and the weight and inputs pass through.
  EXPECT_EQ(CopiedBack(*loop), (std::vector<int64_t>{5, 6}));
  // The update writes ys's row into the state itself: some body kernel's
  // output is ys's state slot, and it reads that slot too.
  const int64_t ys = loop->buffers[2];
  bool in_place = false;
  for (const ExecutableStep& step : loop->body) {
    if (step.kind != ExecutableStep::Kind::kKernel) continue;
    const std::vector<int64_t>& b = step.buffers;
    in_place |= b.back() == ys && std::count(b.begin(), b.end(), ys) == 2;
  }
  EXPECT_TRUE(in_place);
}

TEST_P(LoopStateSimtTest, UncountedLoopKeepsTheOldStateItStillReads) {
  const std::string platform = GetParam();
  SimtRun run = RunAndCompare(kUncounted, platform,
                              platform == "cuda" ? "sm_90" : "gfx942");
  const ExecutableStep* loop = FindWhile(run.executable.steps);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->trip_count, -1);
  // The multi-output fusion's leaves copy back; the counter does not.
  EXPECT_EQ(CopiedBack(*loop), (std::vector<int64_t>{0, 1}));
}

INSTANTIATE_TEST_SUITE_P(Platforms, LoopStateSimtTest,
                         ::testing::Values("cuda", "rocm"));

}  // namespace
}  // namespace hloc

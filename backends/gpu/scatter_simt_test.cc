// Scatters whose sorted indices meet in runs (JAX's segment_sum, _prod,
// _max with indices_are_sorted), run on a GPU simulated on this CPU
// (testing/host_simt.h, every GPU thread an OS thread, so the atomics race
// for real): a thread walks a chunk of consecutive scatter positions,
// combining a run of equal targets in registers before one atomic
// (scatter_emitter.cc). Segment ids are iota / width: runs of `width`
// updates, some ids past the last segment (dropped), runs crossing
// chunks. Each must match the evaluator's serial scatter; the same
// scatter without indices_are_sorted (a thread per update) is the control,
// and the sorted one must launch fewer threads than it has updates. The
// ids, the updates and the operand's broadcast are computed by the
// scatter's two kernels (a scatter fusion).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/testing/simt_check.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

// A scalar segment op over `n` values into `segments` segments of the ids
// iota(n) / `width`, with combiner `op` on `type`; `sorted` sets
// indices_are_sorted. `init` is the operand's value, `prologue` makes the
// updates `u` from the parameter `x`.
std::string SegmentModule(const std::string& type, const std::string& op,
                          const std::string& init, const std::string& prologue,
                          int n, int segments, int width, bool sorted) {
  return absl::StrReplaceAll(R"(HloModule segments
combine {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT r = $T[] $OP(a, b)
}
ENTRY main {
  x = f32[$N] parameter(0)
  $PROLOGUE
  i = s32[$N] iota(), iota_dimension=0
  w = s32[] constant($W)
  ws = s32[$N] broadcast(w), dimensions={}
  ids = s32[$N] divide(i, ws)
  idx = s32[$N,1] reshape(ids)
  init = $T[] constant($INIT)
  base = $T[$S] broadcast(init), dimensions={}
  ROOT scatter = $T[$S] scatter(base, idx, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, indices_are_sorted=$SORTED, to_apply=combine
})",
                             {{"$T", type},
                              {"$OP", op},
                              {"$INIT", init},
                              {"$PROLOGUE", prologue},
                              {"$N", std::to_string(n)},
                              {"$S", std::to_string(segments)},
                              {"$W", std::to_string(width)},
                              {"$SORTED", sorted ? "true" : "false"}});
}

// Rows of 8 scattered into `segments` rows by sorted row ids iota / width:
// a thread per column of a chunk of rows (adjacent threads adjacent
// columns).
std::string RowSegmentModule(int n, int segments, int width, bool sorted) {
  return absl::StrReplaceAll(R"(HloModule row_segments
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY main {
  u = f32[$N,8] parameter(0)
  i = s32[$N] iota(), iota_dimension=0
  w = s32[] constant($W)
  ws = s32[$N] broadcast(w), dimensions={}
  ids = s32[$N] divide(i, ws)
  idx = s32[$N,1] reshape(ids)
  zero = f32[] constant(0)
  base = f32[$S,8] broadcast(zero), dimensions={}
  ROOT scatter = f32[$S,8] scatter(base, idx, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, indices_are_sorted=$SORTED, to_apply=add
})",
                             {{"$N", std::to_string(n)},
                              {"$S", std::to_string(segments)},
                              {"$W", std::to_string(width)},
                              {"$SORTED", sorted ? "true" : "false"}});
}

struct Module {
  std::string name;
  std::string text;
  int64_t updates;  // scatter positions times window elements
  int kernels;      // of the executable
};

constexpr char kNearOne[] =
    "k = f32[] constant(0.001)\n  ks = f32[3001] broadcast(k), "
    "dimensions={}\n  xk = f32[3001] multiply(x, ks)\n  one = f32[] "
    "constant(1)\n  ones = f32[3001] broadcast(one), dimensions={}\n  u = "
    "f32[3001] add(xk, ones)";
constexpr char kAsInt[] =
    "k = f32[] constant(1000)\n  ks = f32[3001] broadcast(k), "
    "dimensions={}\n  xk = f32[3001] multiply(x, ks)\n  u = s32[3001] "
    "convert(xk)";

std::vector<Module> Modules(bool sorted) {
  const std::string tag = sorted ? "sorted_" : "unsorted_";
  return {
      // segment_prod of 3001 values near one into 60 segments of 43 (ids
      // 60 to 69 dropped): a compare-and-swap loop per run.
      {tag + "prod",
       SegmentModule("f32", "multiply", "1", kNearOne, 3001, 60, 43, sorted),
       3001, 2},
      // segment_sum: an atomic add per run; runs of 5 cross the chunks.
      {tag + "sum",
       SegmentModule("f32", "add", "0", "u = f32[3001] copy(x)", 3001, 700, 5,
                     sorted),
       3001, 2},
      // segment_max of integers: an integer atomic max per run.
      {tag + "max",
       SegmentModule("s32", "maximum", "-2147483648", kAsInt, 3001, 100, 37,
                     sorted),
       3001, 2},
      // segment_max of floats: an integer atomic on the bits per run
      // (EmitFloatMinMax), values of both signs.
      {tag + "fmax",
       SegmentModule("f32", "maximum", "-inf", "u = f32[3001] copy(x)", 3001,
                     100, 37, sorted),
       3001, 2},
      // Rows of 8: runs of 9 rows, 6 row ids past the end. Each id would
      // be read by 8 threads, so its integer division is a kernel of its
      // own (the cost model's recompute limit).
      {tag + "rows", RowSegmentModule(300, 28, 9, sorted), 300 * 8, 3},
  };
}

struct Case {
  Module module;
  bool sorted;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.module.name; }

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (bool sorted : {true, false}) {
    for (const Module& m : Modules(sorted)) cases.push_back({m, sorted});
  }
  return cases;
}

// The most threads any top-level kernel step whose instruction begins with
// `prefix` launches.
int64_t WidestLaunch(const Executable& executable, const std::string& prefix) {
  int64_t widest = 0;
  for (const ExecutableStep& step : executable.steps) {
    if (step.kind != ExecutableStep::Kind::kKernel ||
        step.instruction.rfind(prefix, 0) != 0) {
      continue;
    }
    widest = std::max(
        widest, step.launch.NumBlocks() * step.launch.NumThreadsPerBlock());
  }
  return widest;
}

// The run's outputs equal the evaluator's serial scatter bit for bit (NaN
// matching NaN): for updates whose every combining order gives the same
// result.
void ExpectTheSerialResultExactly(const SimtRun& run) {
  Tolerance exact;
  exact.rtol = 0;
  exact.atol = 0;
  ComparisonResult result = CompareLiterals(run.actual, run.expected, exact);
  EXPECT_TRUE(result.ok()) << DescribeMismatch(result);
}

class ScatterSimtTest : public ::testing::TestWithParam<Case> {};

TEST_P(ScatterSimtTest, MatchesTheSerialScatter) {
  const Case& c = GetParam();
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("cuda", "sm_90");
  ASSERT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(c.module.text, c.module.name);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<SimtRun> run =
      RunOnHostSimtAndEvaluate(**module, "cuda", "sm_90", *device, 5);
  ASSERT_TRUE(run.ok()) << run.status();
  // The scatter fusion's two kernels (fusion_kinds.h, kScatter): the copy
  // of operand 0, which computes its broadcast, and the updates, which
  // compute the ids from iota and the updates from x (the rows' ids are a
  // kernel before them). The wider is the update kernel.
  const int64_t widest = WidestLaunch(run->executable, "scatter_fusion");
  EXPECT_EQ(CountKernelSteps(run->executable), c.module.kernels);
  if (c.sorted) {
    EXPECT_LT(widest, c.module.updates) << "a thread per update";
  } else {
    EXPECT_GE(widest, c.module.updates);
  }
  Tolerance tolerance;
  tolerance.rtol = 1e-5;
  tolerance.atol = 1e-5;
  ComparisonResult result =
      CompareLiterals(run->actual, run->expected, tolerance);
  EXPECT_TRUE(result.ok()) << DescribeMismatch(result);
}

// Half-precision scatter-adds with duplicate indices (an embedding
// gradient's: 1000 rows of 32 into 64 rows, unsorted) are 16-bit atomic
// adds, a thread per update element, not a thread per column walking the
// 1000 rows in order. The updates are small integers, so every order sums
// exactly and the result must equal the serial scatter's bit for bit.
TEST(ScatterSimtTest, HalfPrecisionAddsAreAtomic) {
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("cuda", "sm_90");
  ASSERT_TRUE(device.ok()) << device.status();
  for (const char* type : {"bf16", "f16"}) {
    SCOPED_TRACE(type);
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(absl::StrReplaceAll(R"(
HloModule half_scatter
add {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT r = $T[] add(a, b)
}
ENTRY main {
  x = $T[64,32] parameter(0)
  r = s32[1000] iota(), iota_dimension=0
  seven = s32[] constant(7)
  sevens = s32[1000] broadcast(seven), dimensions={}
  r7 = s32[1000] multiply(r, sevens)
  rows = s32[] constant(64)
  rows_b = s32[1000] broadcast(rows), dimensions={}
  ids = s32[1000] remainder(r7, rows_b)
  idx = s32[1000,1] reshape(ids)
  i0 = s32[1000,32] iota(), iota_dimension=0
  i1 = s32[1000,32] iota(), iota_dimension=1
  three = s32[] constant(3)
  threes = s32[1000,32] broadcast(three), dimensions={}
  i03 = s32[1000,32] multiply(i0, threes)
  mix = s32[1000,32] add(i03, i1)
  four = s32[] constant(4)
  fours = s32[1000,32] broadcast(four), dimensions={}
  small = s32[1000,32] remainder(mix, fours)
  u = $T[1000,32] convert(small)
  zero = $T[] constant(0)
  zeros = $T[64,32] broadcast(zero), dimensions={}
  x0 = $T[64,32] multiply(x, zeros)
  ROOT scatter = $T[64,32] scatter(x0, idx, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})",
                                           {{"$T", type}}),
                       "half_scatter");
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<SimtRun> run =
        RunOnHostSimtAndEvaluate(**module, "cuda", "sm_90", *device, 3);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_GE(WidestLaunch(run->executable, ""), 1000 * 32)
        << "a thread per update element";
    ExpectTheSerialResultExactly(*run);
  }
}

// 8- and 16-bit combiners with duplicate indices swap the 32-bit word that
// holds their element (atomic_combine.cc), a thread per update: 3000
// updates into 13 elements (so elements sit at every byte of a word, the
// last word part-filled), u8 and s16 maximum (a HyperLogLog register
// update), s8 sum (wrapping) and u16 minimum. Each result is the same in
// any order, so the run must equal the serial scatter bit for bit.
TEST(ScatterSimtTest, NarrowCombinersSwapTheirWord) {
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("cuda", "sm_90");
  ASSERT_TRUE(device.ok()) << device.status();
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"u8", "maximum"}, {"s16", "maximum"}, {"s8", "add"}, {"u16", "minimum"}};
  for (const auto& [type, op] : cases) {
    SCOPED_TRACE(absl::StrCat(type, " ", op));
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(absl::StrReplaceAll(R"(
HloModule narrow_scatter
combine {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT r = $T[] $OP(a, b)
}
ENTRY main {
  x = $T[13] parameter(0)
  i = u32[3000] iota(), iota_dimension=0
  k = u32[] constant(2654435761)
  ks = u32[3000] broadcast(k), dimensions={}
  h = u32[3000] multiply(i, ks)
  s = u32[] constant(13)
  ss = u32[3000] broadcast(s), dimensions={}
  hs = u32[3000] shift-right-logical(h, ss)
  m = u32[] constant(13)
  ms = u32[3000] broadcast(m), dimensions={}
  slot = u32[3000] remainder(hs, ms)
  idx = u32[3000,1] reshape(slot)
  u = $T[3000] convert(h)
  ROOT scatter = $T[13] scatter(x, idx, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
})",
                                           {{"$T", type}, {"$OP", op}}),
                       "narrow_scatter");
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<SimtRun> run =
        RunOnHostSimtAndEvaluate(**module, "cuda", "sm_90", *device, 3);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_GE(WidestLaunch(run->executable, ""), 3000) << "a thread per update";
    ExpectTheSerialResultExactly(*run);
  }
}

// An assignment whose indices repeat (an inverse permutation of a sort
// with ties, 2000 positions into 700 elements, some out of bounds) must
// give the serial result, the last position winning, without one thread
// walking the positions: the cuda pipeline makes it a max of positions
// and a scatter of the winners (passes/scatter_winners.h), every kernel a
// thread per position.
TEST(ScatterSimtTest, RepeatedAssignmentsKeepTheLastInParallel) {
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("cuda", "sm_90");
  ASSERT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(R"(
HloModule repeated_assignment
assign {
  a = s64[] parameter(0)
  ROOT b = s64[] parameter(1)
}
ENTRY main {
  x = s64[700] parameter(0)
  u = s64[2000] parameter(1)
  i = s32[2000] iota(), iota_dimension=0
  k = s32[] constant(37)
  ks = s32[2000] broadcast(k), dimensions={}
  h = s32[2000] multiply(i, ks)
  m = s32[] constant(705)
  ms = s32[2000] broadcast(m), dimensions={}
  r = s32[2000] remainder(h, ms)
  two = s32[] constant(2)
  twos = s32[2000] broadcast(two), dimensions={}
  slot = s32[2000] subtract(r, twos)
  idx = s32[2000,1] reshape(slot)
  ROOT scatter = s64[700] scatter(x, idx, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign
})",
                     "repeated_assignment");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<SimtRun> run =
      RunOnHostSimtAndEvaluate(**module, "cuda", "sm_90", *device, 3);
  ASSERT_TRUE(run.ok()) << run.status();
  for (const ExecutableStep& step : run->executable.steps) {
    if (step.kind != ExecutableStep::Kind::kKernel) continue;
    EXPECT_GT(step.launch.NumBlocks() * step.launch.NumThreadsPerBlock(), 1)
        << step.instruction << " walks serially";
  }
  EXPECT_GE(WidestLaunch(run->executable, ""), 2000);
  ExpectTheSerialResultExactly(*run);
}

// Many updates of a small output (a count-min sketch: 20000 increments of
// a [4,64] table, a row and a hashed column each) are combined per block in
// a shared-memory copy of the table first, then applied with one atomic
// per changed element (scatter_emitter.cc, Walk::kPrivateCopy): the update
// kernel launches fewer threads than there are updates. Sums of small
// integers, maxima and minima give the same result in any order, so the
// run must equal the serial scatter bit for bit; the u8 maximum (a
// HyperLogLog register) swaps 32-bit words of the shared copy, the f32
// maximum uses integer atomics on its bits, the f32 product's updates are
// 1 or 2 (exact in any order), and the bf16 sums stay below 256 (exact).
TEST(ScatterSimtTest, ManyUpdatesOfFewElementsCombineInAPrivateCopy) {
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("cuda", "sm_90");
  ASSERT_TRUE(device.ok()) << device.status();
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"f32", "add"},     {"s32", "add"},     {"u8", "maximum"},
      {"f32", "maximum"}, {"s64", "minimum"}, {"f32", "multiply"},
      {"bf16", "add"}};
  for (const auto& [type, op] : cases) {
    SCOPED_TRACE(absl::StrCat(type, " ", op));
    // The products' updates are 1 or 2, the bf16 sums' 0 or 1, the
    // others' 0 to 4; the operand's elements are 0 to 2.
    const std::string modulus = std::string(op) == "multiply" ? "2"
                                : std::string(type) == "bf16" ? "2"
                                                              : "5";
    const std::string offset = std::string(op) == "multiply" ? "1" : "0";
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(absl::StrReplaceAll(R"(
HloModule sketch_scatter
combine {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT r = $T[] $OP(a, b)
}
ENTRY main {
  xi = u32[4,64] iota(), iota_dimension=1
  three = u32[] constant(3)
  threes = u32[4,64] broadcast(three), dimensions={}
  xs = u32[4,64] remainder(xi, threes)
  x = $T[4,64] convert(xs)
  i = u32[20000] iota(), iota_dimension=0
  k = u32[] constant(2654435761)
  ks = u32[20000] broadcast(k), dimensions={}
  h = u32[20000] multiply(i, ks)
  s = u32[] constant(13)
  ss = u32[20000] broadcast(s), dimensions={}
  hs = u32[20000] shift-right-logical(h, ss)
  w = u32[] constant(64)
  ws = u32[20000] broadcast(w), dimensions={}
  column = u32[20000] remainder(hs, ws)
  d = u32[] constant(4)
  ds = u32[20000] broadcast(d), dimensions={}
  row = u32[20000] remainder(i, ds)
  row2 = u32[20000,1] reshape(row)
  column2 = u32[20000,1] reshape(column)
  idx = u32[20000,2] concatenate(row2, column2), dimensions={1}
  m = u32[] constant($MOD)
  ms = u32[20000] broadcast(m), dimensions={}
  small = u32[20000] remainder(hs, ms)
  o = u32[] constant($OFFSET)
  os = u32[20000] broadcast(o), dimensions={}
  v = u32[20000] add(small, os)
  u = $T[20000] convert(v)
  ROOT scatter = $T[4,64] scatter(x, idx, u), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=combine
})",
                                           {{"$T", type},
                                            {"$OP", op},
                                            {"$MOD", modulus},
                                            {"$OFFSET", offset}}),
                       "sketch_scatter");
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<SimtRun> run =
        RunOnHostSimtAndEvaluate(**module, "cuda", "sm_90", *device, 3);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_LT(WidestLaunch(run->executable, "scatter"), 20000)
        << "a thread per update";
    ExpectTheSerialResultExactly(*run);
  }
}

// f32 and f64 maximum and minimum scatters are integer atomics on the
// floats' bits (atomic_combine.cc, EmitFloatMinMax): 1000 rows of 16 into
// 64 rows, every fourth into row 17, a thread per update element; 2000
// rows, enough per element that each block combines its share in a
// shared-memory copy first, with the same atomics there and in the flush.
// NaN must propagate as XLA's maximum and minimum do, whatever its sign: the
// operand's row 5 is -NaN and row 6 +NaN (no update may replace either),
// update row 100 (into row 17) is +NaN and row 201 (into row 63) -NaN;
// rows 300 and 401 are +inf and -inf. Max and min pick one of their
// operands, so any order gives the serial result (NaN matches NaN).
TEST(ScatterSimtTest, FloatMinMaxPropagateNaN) {
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("cuda", "sm_90");
  ASSERT_TRUE(device.ok()) << device.status();
  struct Type {
    const char* name;
    const char* bits;      // the integer type of its width
    const char* plus_nan;  // NaN bit patterns, sign clear and set
    const char* minus_nan;
  };
  for (const Type& type :
       {Type{"f32", "s32", "2143289344", "-4194304"},
        Type{"f64", "s64", "9221120237041090560", "-2251799813685248"}}) {
    for (const auto& [op, rows] :
         {std::pair{"maximum", 1000}, std::pair{"minimum", 1000},
          std::pair{"maximum", 2000}, std::pair{"minimum", 2000}}) {
      SCOPED_TRACE(absl::StrCat(type.name, " ", op, " ", rows, " rows"));
      absl::StatusOr<std::unique_ptr<HloModule>> module =
          ParseHloModule(absl::StrReplaceAll(R"(
HloModule minmax_scatter
combine {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT r = $T[] $OP(a, b)
}
ENTRY main {
  x = $T[64,16] parameter(0)
  y = $T[$N,16] parameter(1)
  pb = $I[] constant($PLUS)
  nb = $I[] constant($MINUS)
  pnan = $T[] bitcast-convert(pb)
  nnan = $T[] bitcast-convert(nb)
  inf = $T[] constant(inf)
  ninf = $T[] constant(-inf)
  xr = s32[64,16] iota(), iota_dimension=0
  five = s32[] constant(5)
  fives = s32[64,16] broadcast(five), dimensions={}
  six = s32[] constant(6)
  sixes = s32[64,16] broadcast(six), dimensions={}
  r5 = pred[64,16] compare(xr, fives), direction=EQ
  r6 = pred[64,16] compare(xr, sixes), direction=EQ
  xn = $T[64,16] broadcast(nnan), dimensions={}
  xp = $T[64,16] broadcast(pnan), dimensions={}
  x5 = $T[64,16] select(r5, xn, x)
  base = $T[64,16] select(r6, xp, x5)
  i = s32[$N] iota(), iota_dimension=0
  seven = s32[] constant(7)
  sevens = s32[$N] broadcast(seven), dimensions={}
  i7 = s32[$N] multiply(i, sevens)
  rows = s32[] constant(64)
  rows_b = s32[$N] broadcast(rows), dimensions={}
  spread = s32[$N] remainder(i7, rows_b)
  four = s32[] constant(4)
  fours = s32[$N] broadcast(four), dimensions={}
  phase = s32[$N] remainder(i, fours)
  zero = s32[] constant(0)
  zeros = s32[$N] broadcast(zero), dimensions={}
  hot = pred[$N] compare(phase, zeros), direction=EQ
  seventeen = s32[] constant(17)
  seventeens = s32[$N] broadcast(seventeen), dimensions={}
  ids = s32[$N] select(hot, seventeens, spread)
  idx = s32[$N,1] reshape(ids)
  ur = s32[$N,16] iota(), iota_dimension=0
  c100 = s32[] constant(100)
  b100 = s32[$N,16] broadcast(c100), dimensions={}
  c201 = s32[] constant(201)
  b201 = s32[$N,16] broadcast(c201), dimensions={}
  c300 = s32[] constant(300)
  b300 = s32[$N,16] broadcast(c300), dimensions={}
  c401 = s32[] constant(401)
  b401 = s32[$N,16] broadcast(c401), dimensions={}
  m100 = pred[$N,16] compare(ur, b100), direction=EQ
  m201 = pred[$N,16] compare(ur, b201), direction=EQ
  m300 = pred[$N,16] compare(ur, b300), direction=EQ
  m401 = pred[$N,16] compare(ur, b401), direction=EQ
  un = $T[$N,16] broadcast(nnan), dimensions={}
  up = $T[$N,16] broadcast(pnan), dimensions={}
  ui = $T[$N,16] broadcast(inf), dimensions={}
  uni = $T[$N,16] broadcast(ninf), dimensions={}
  u1 = $T[$N,16] select(m100, up, y)
  u2 = $T[$N,16] select(m201, un, u1)
  u3 = $T[$N,16] select(m300, ui, u2)
  u = $T[$N,16] select(m401, uni, u3)
  ROOT scatter = $T[64,16] scatter(base, idx, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
})",
                                             {{"$T", type.name},
                                              {"$I", type.bits},
                                              {"$PLUS", type.plus_nan},
                                              {"$MINUS", type.minus_nan},
                                              {"$OP", op},
                                              {"$N", absl::StrCat(rows)}}),
                         "minmax_scatter");
      ASSERT_TRUE(module.ok()) << module.status();
      absl::StatusOr<SimtRun> run =
          RunOnHostSimtAndEvaluate(**module, "cuda", "sm_90", *device, 11);
      ASSERT_TRUE(run.ok()) << run.status();
      if (rows == 1000) {
        EXPECT_GE(WidestLaunch(run->executable, ""), rows * 16)
            << "a thread per update element";
      } else {
        EXPECT_LT(WidestLaunch(run->executable, "scatter"), rows * 16)
            << "a thread per update element, not a private copy";
      }
      // Rows 5, 6, 17 and 63 are NaN in the serial result.
      int nans = 0;
      for (int64_t k = 0; k < 64 * 16; ++k) {
        const double v = type.name == std::string("f32")
                             ? run->expected.data<float>()[k]
                             : run->expected.data<double>()[k];
        nans += std::isnan(v);
      }
      EXPECT_EQ(nans, 4 * 16);
      ExpectTheSerialResultExactly(*run);
    }
  }
}

// Scatters that update their operand in place (buffer_assignment.h,
// in_place_scatter: the GPU's plans): the second of two chained scatters,
// whose operand dies there, and a scatter on a while loop's state, which
// writes the state leaf itself each iteration. Each is then one kernel
// (no copy of its operand) and must still match the evaluator.
TEST(ScatterInPlaceSimtTest, ChainedAndLoopStateScattersUpdateInPlace) {
  absl::StatusOr<GpuDeviceInfo> device = GetGpuDeviceInfo("cuda", "sm_90");
  ASSERT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(R"(
HloModule in_place_scatters
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] maximum(a, b)
}
cond {
  p = (s32[], f32[100,8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(7)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[100,8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  s = f32[100,8] get-tuple-element(p), index=1
  three = s32[] constant(3)
  k = s32[] multiply(i, three)
  ks = s32[2] broadcast(k), dimensions={}
  io = s32[2] iota(), iota_dimension=0
  idx0 = s32[2] add(ks, io)
  idx = s32[2,1] reshape(idx0)
  fi = f32[] convert(i)
  u = f32[2,8] broadcast(fi), dimensions={}
  s2 = f32[100,8] scatter(s, idx, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[100,8]) tuple(i2, s2)
}
ENTRY main {
  x = f32[100,8] parameter(0)
  i = s32[40,1] parameter(1)
  u = f32[40,8] parameter(2)
  e = f32[100,8] exponential(x)
  first = f32[100,8] scatter(e, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  chained = f32[100,8] scatter(first, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mx
  zero = s32[] constant(0)
  init = (s32[], f32[100,8]) tuple(zero, chained)
  w = (s32[], f32[100,8]) while(init), condition=cond, body=body
  ROOT r = f32[100,8] get-tuple-element(w), index=1
})",
                     "in_place");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<SimtRun> run =
      RunOnHostSimtAndEvaluate(**module, "cuda", "sm_90", *device, 7);
  ASSERT_TRUE(run.ok()) << run.status();
  // first computes exp(x) as it copies it (a scatter fusion); chained
  // updates first's buffer: one kernel. The loop body's scatter: one
  // kernel writing the state leaf it reads.
  int chained_kernels = 0;
  const ExecutableStep* loop = nullptr;
  for (const ExecutableStep& step : run->executable.steps) {
    if (step.kind == ExecutableStep::Kind::kKernel &&
        step.instruction == "chained") {
      ++chained_kernels;
    }
    if (step.kind == ExecutableStep::Kind::kWhile) loop = &step;
  }
  EXPECT_EQ(chained_kernels, 1);
  ASSERT_NE(loop, nullptr);
  int body_scatter_kernels = 0;
  for (const ExecutableStep& step : loop->body) {
    if (step.kind != ExecutableStep::Kind::kKernel) continue;
    if (step.instruction.rfind("scatter", 0) != 0) continue;
    ++body_scatter_kernels;
    // Its output (the last buffer) is one of its operands' buffers.
    ASSERT_GE(step.buffers.size(), 2u);
    EXPECT_NE(std::find(step.buffers.begin(), step.buffers.end() - 1,
                        step.buffers.back()),
              step.buffers.end() - 1)
        << "the state leaf in place";
  }
  EXPECT_EQ(body_scatter_kernels, 1);
  Tolerance tolerance;
  tolerance.rtol = 1e-5;
  tolerance.atol = 1e-5;
  ComparisonResult result =
      CompareLiterals(run->actual, run->expected, tolerance);
  EXPECT_TRUE(result.ok()) << DescribeMismatch(result);
}

INSTANTIATE_TEST_SUITE_P(Scatters, ScatterSimtTest,
                         ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.module.name;
                         });

}  // namespace
}  // namespace hloc

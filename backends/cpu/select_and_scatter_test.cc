// select-and-scatter kernels against the evaluator: max-pool gradients in
// 2-D and 4-D (stride = window, overlapping windows, SAME padding), ge and
// gt selects on ties, NaNs in the operand, integers, f16/bf16/f64, min
// pooling, other scatter combiners, window and base dilation, negative
// padding, layouts, ranks 1 and 3, empty shapes, windows in the padding,
// random windows, and the parallel "owner computes" scatter. None may fall
// back, and every result must equal the evaluator's bit for bit (each
// output element receives the same updates in the same order).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace {

using testing_util::CheckAgainstEvaluator;
using testing_util::MakeOpInput;

struct Dim {
  int64_t size;
  int64_t window;
  int64_t stride;
  int64_t pad_lo = 0;
  int64_t pad_hi = 0;
  int64_t window_dilation = 1;
  int64_t base_dilation = 1;
};

// Window count along a dimension (reduce-window's output size).
int64_t WindowCount(const Dim& d) {
  const int64_t padded =
      (d.size - 1) * d.base_dilation + 1 + d.pad_lo + d.pad_hi;
  const int64_t extent = (d.window - 1) * d.window_dilation + 1;
  if (padded < extent) return 0;
  return (padded - extent) / d.stride + 1;
}

// XLA's SAME padding for a dimension.
Dim Same(int64_t size, int64_t window, int64_t stride) {
  const int64_t out = (size + stride - 1) / stride;
  const int64_t total =
      std::max<int64_t>(0, (out - 1) * stride + window - size);
  return Dim{size, window, stride, total / 2, total - total / 2};
}

struct Options {
  std::string type = "f32";
  std::string select = "GE";    // compare direction of the select
  std::string scatter = "add";  // binary op of the scatter
  std::string init = "0";
  std::string layout;  // e.g. "{0,1}" for operand and output
  std::string source_layout;
};

std::string SasModule(const std::vector<Dim>& dims, const Options& o = {}) {
  std::vector<int64_t> op_dims, src_dims;
  std::vector<std::string> size, stride, pad, lhs, rhs;
  for (const Dim& d : dims) {
    op_dims.push_back(d.size);
    src_dims.push_back(WindowCount(d));
    size.push_back(absl::StrCat(d.window));
    stride.push_back(absl::StrCat(d.stride));
    pad.push_back(absl::StrCat(d.pad_lo, "_", d.pad_hi));
    lhs.push_back(absl::StrCat(d.base_dilation));
    rhs.push_back(absl::StrCat(d.window_dilation));
  }
  std::string window;
  if (!dims.empty()) {
    window = absl::StrCat(", window={size=", absl::StrJoin(size, "x"),
                          " stride=", absl::StrJoin(stride, "x"),
                          " pad=", absl::StrJoin(pad, "x"),
                          " lhs_dilate=", absl::StrJoin(lhs, "x"),
                          " rhs_dilate=", absl::StrJoin(rhs, "x"), "}");
  }
  const std::string op_shape =
      absl::StrCat(o.type, "[", absl::StrJoin(op_dims, ","), "]", o.layout);
  const std::string src_shape = absl::StrCat(
      o.type, "[", absl::StrJoin(src_dims, ","), "]", o.source_layout);
  return absl::StrReplaceAll(
      R"(HloModule sas
select {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=$DIR
}
scatter {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT c = $T[] $SCATTER(a, b)
}
ENTRY main {
  x = $OP parameter(0)
  s = $SRC parameter(1)
  init = $T[] constant($INIT)
  ROOT d = $OP select-and-scatter(x, s, init)$WINDOW, select=select, scatter=scatter
}
)",
      {{"$T", o.type},
       {"$DIR", o.select},
       {"$SCATTER", o.scatter},
       {"$INIT", o.init},
       {"$OP", op_shape},
       {"$SRC", src_shape},
       {"$WINDOW", window}});
}

struct Results {
  Literal expected;
  Literal actual;
  std::vector<std::string> fallbacks;
  std::string optimized_ir;
};

// Runs `text` in the evaluator and on the CPU (on `args`, or generated
// inputs).
Results RunBoth(const std::string& text, std::vector<Literal> args = {},
                CpuCompileOptions options = {}) {
  Results r;
  auto module = ParseHloModule(text, "test");
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << text;
  if (!module.ok()) return r;
  const HloComputation* entry = (*module)->entry_computation();
  if (args.empty()) {
    for (int64_t i = 0; i < entry->num_parameters(); ++i) {
      args.push_back(
          MakeOpInput(entry->parameter_instruction(i)->shape(), 7 + 13 * i));
    }
  }
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  EXPECT_TRUE(expected.ok()) << expected.status();
  options.jit.keep_ir = true;
  auto executable = CompileForCpu(**module, options);
  EXPECT_TRUE(executable.ok()) << executable.status();
  if (!expected.ok() || !executable.ok()) return r;
  absl::StatusOr<Literal> actual = (*executable)->Run(args);
  EXPECT_TRUE(actual.ok()) << actual.status();
  if (!actual.ok()) return r;
  r.expected = std::move(*expected);
  r.actual = std::move(*actual);
  r.fallbacks = (*executable)->fallback_instructions();
  r.optimized_ir = (*executable)->optimized_ir();
  return r;
}

// Bit for bit, no fallback.
void ExpectIdentical(const Results& r, const std::string& what) {
  EXPECT_TRUE(r.fallbacks.empty())
      << what << ": falls back: " << absl::StrJoin(r.fallbacks, ", ");
  ASSERT_EQ(r.expected.shape(), r.actual.shape()) << what;
  ASSERT_EQ(r.expected.size_bytes(), r.actual.size_bytes()) << what;
  int64_t first = -1, count = 0;
  const int64_t width = r.expected.size_bytes() /
                        std::max<int64_t>(1, r.expected.element_count());
  for (int64_t i = 0; i < r.expected.element_count(); ++i) {
    if (std::memcmp(r.expected.untyped_data() + i * width,
                    r.actual.untyped_data() + i * width, width) != 0) {
      if (first < 0) first = i;
      ++count;
    }
  }
  EXPECT_EQ(count, 0) << what << ": " << count << " of "
                      << r.expected.element_count()
                      << " elements differ, first at " << first << ": "
                      << (first >= 0 ? r.expected.GetAsDouble(first) : 0)
                      << " expected, "
                      << (first >= 0 ? r.actual.GetAsDouble(first) : 0);
}

void CheckIdentical(const std::string& text, std::vector<Literal> args = {},
                    CpuCompileOptions options = {}) {
  ExpectIdentical(RunBoth(text, std::move(args), options), text);
}

// Forces the parallel scatter on small shapes.
CpuCompileOptions Parallel() {
  CpuCompileOptions options;
  options.codegen.min_parallel_elements = 0;
  return options;
}

CpuCompileOptions Serial() {
  CpuCompileOptions options;
  options.codegen.parallel = false;
  return options;
}

// Operand with many ties: small integers as floats.
Literal Ties(const Shape& shape, uint32_t seed, int64_t levels = 3) {
  Literal literal(shape);
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < shape.ElementCount(); ++i) {
    literal.SetFromDouble(i, static_cast<double>(rng() % levels));
  }
  return literal;
}

Shape ParamShape(const std::string& text, int64_t i) {
  auto module = ParseHloModule(text, "test");
  EXPECT_TRUE(module.ok()) << module.status();
  return (*module)->entry_computation()->parameter_instruction(i)->shape();
}

std::vector<Literal> Args(const std::string& text, Literal operand) {
  std::vector<Literal> args;
  args.push_back(std::move(operand));
  args.push_back(MakeOpInput(ParamShape(text, 1), 20));
  return args;
}

TEST(SelectAndScatterTest, MaxPoolGrad2DStrideEqualsWindow) {
  const std::string text = SasModule({{8, 2, 2}, {16, 2, 2}});
  EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
  CheckIdentical(text);
  CheckIdentical(text, {}, Parallel());
  CheckIdentical(text, {}, Serial());
}

TEST(SelectAndScatterTest, MaxPoolGrad2DOverlapping) {
  for (const std::string& text :
       {SasModule({{9, 3, 2}, {11, 3, 2}}), SasModule({{7, 3, 1}, {6, 2, 1}}),
        SasModule({{13, 4, 3}, {10, 5, 2}})}) {
    EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
    CheckIdentical(text);
    CheckIdentical(text, {}, Parallel());
  }
}

TEST(SelectAndScatterTest, MaxPoolGrad2DSamePadding) {
  for (const std::string& text : {SasModule({Same(9, 3, 2), Same(12, 3, 2)}),
                                  SasModule({Same(10, 2, 2), Same(7, 2, 2)}),
                                  SasModule({Same(8, 3, 1), Same(5, 3, 1)})}) {
    EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
    CheckIdentical(text);
    CheckIdentical(text, {}, Parallel());
  }
}

TEST(SelectAndScatterTest, MaxPoolGrad4D) {
  // NHWC, window 1x3x3x1 stride 1x2x2x1 SAME (JAX's max_pool gradient),
  // 1x2x2x1 VALID, and NCHW.
  const std::vector<std::string> texts = {
      SasModule({{2, 1, 1}, Same(15, 3, 2), Same(14, 3, 2), {5, 1, 1}}),
      SasModule({{3, 1, 1}, {16, 2, 2}, {16, 2, 2}, {4, 1, 1}}),
      SasModule({{2, 1, 1}, {3, 1, 1}, Same(11, 3, 2), Same(9, 3, 1)}),
  };
  for (const std::string& text : texts) {
    EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
    CheckIdentical(text);
    CheckIdentical(text, {}, Parallel());
    CheckIdentical(text, {}, Serial());
  }
}

TEST(SelectAndScatterTest, GeAndGtPickDifferentlyOnTies) {
  // Overlapping windows over an operand of ties: GE keeps the first of
  // equal maxima, GT moves to the last.
  std::vector<Dim> dims = {Same(12, 3, 2), Same(10, 3, 1)};
  Options ge, gt;
  gt.select = "GT";
  const std::string ge_text = SasModule(dims, ge);
  const std::string gt_text = SasModule(dims, gt);
  const Shape shape = ParamShape(ge_text, 0);
  Results a = RunBoth(ge_text, Args(ge_text, Ties(shape, 3)));
  Results b = RunBoth(gt_text, Args(gt_text, Ties(shape, 3)));
  ExpectIdentical(a, "ge");
  ExpectIdentical(b, "gt");
  EXPECT_FALSE(a.expected == b.expected) << "ties should pick differently";
  ExpectIdentical(RunBoth(ge_text, Args(ge_text, Ties(shape, 3)), Parallel()),
                  "ge parallel");
  ExpectIdentical(RunBoth(gt_text, Args(gt_text, Ties(shape, 3)), Parallel()),
                  "gt parallel");
  // All equal: GE picks every window's first element, GT its last.
  ExpectIdentical(RunBoth(ge_text, Args(ge_text, Ties(shape, 3, 1))), "ge 1");
  ExpectIdentical(RunBoth(gt_text, Args(gt_text, Ties(shape, 3, 1))), "gt 1");
}

TEST(SelectAndScatterTest, NaNsInTheOperand) {
  for (std::string dir : {"GE", "GT", "LE"}) {
    Options o;
    o.select = dir;
    const std::string text =
        SasModule({{2, 1, 1}, Same(11, 3, 2), Same(9, 2, 2), {3, 1, 1}}, o);
    const Shape shape = ParamShape(text, 0);
    Literal operand = MakeOpInput(shape, 5);
    std::mt19937 rng(9);
    for (int64_t i = 0; i < shape.ElementCount(); ++i) {
      if (rng() % 5 == 0) {
        operand.SetFromDouble(i, std::numeric_limits<double>::quiet_NaN());
      }
    }
    ExpectIdentical(RunBoth(text, Args(text, operand)), dir);
    ExpectIdentical(RunBoth(text, Args(text, operand), Parallel()),
                    dir + " parallel");
  }
}

TEST(SelectAndScatterTest, Integers) {
  for (std::string type : {"s32", "s64", "u8", "s16", "u32"}) {
    Options o;
    o.type = type;
    const std::string text = SasModule({Same(9, 3, 2), Same(10, 2, 1)}, o);
    EXPECT_TRUE(CheckAgainstEvaluator(text).empty()) << type;
    CheckIdentical(text);
    CheckIdentical(text, {}, Parallel());
    o.select = "GT";
    const std::string gt = SasModule({{6, 3, 1}, Same(10, 3, 2)}, o);
    CheckIdentical(gt);
    CheckIdentical(gt, {}, Parallel());
  }
}

TEST(SelectAndScatterTest, HalfBfloatAndDouble) {
  for (std::string type : {"f16", "bf16", "f64"}) {
    Options o;
    o.type = type;
    const std::string text =
        SasModule({{2, 1, 1}, Same(13, 3, 2), Same(8, 3, 1), {3, 1, 1}}, o);
    EXPECT_TRUE(CheckAgainstEvaluator(text).empty()) << type;
    CheckIdentical(text);
    CheckIdentical(text, {}, Parallel());
  }
}

TEST(SelectAndScatterTest, MinPoolAndOtherCombiners) {
  Options min_pool;
  min_pool.select = "LE";
  Options multiply;
  multiply.scatter = "multiply";
  multiply.init = "1";
  Options max;
  max.scatter = "maximum";
  max.init = "-inf";
  for (const Options& o : {min_pool, multiply, max}) {
    const std::string text = SasModule({Same(10, 3, 2), {9, 2, 1}}, o);
    EXPECT_TRUE(CheckAgainstEvaluator(text).empty()) << text;
    CheckIdentical(text);
    CheckIdentical(text, {}, Parallel());
  }
}

TEST(SelectAndScatterTest, DilationsAndNegativePadding) {
  const std::vector<std::vector<Dim>> cases = {
      // Window dilation.
      {{11, 3, 2, 1, 1, 2, 1}, {9, 2, 1, 0, 0, 3, 1}},
      // Base dilation (padding positions between operand elements).
      {{6, 3, 2, 1, 1, 1, 2}, {5, 2, 1, 0, 1, 1, 3}},
      // Negative padding (cropping).
      {{12, 3, 2, -1, -2}, {10, 2, 2, -2, 1}},
      // Windows entirely in the padding scatter nothing.
      {{4, 2, 1, 3, 3}, {3, 1, 1}},
  };
  for (const auto& dims : cases) {
    const std::string text = SasModule(dims);
    EXPECT_TRUE(CheckAgainstEvaluator(text).empty()) << text;
    CheckIdentical(text);
    CheckIdentical(text, {}, Parallel());
  }
}

TEST(SelectAndScatterTest, Layouts) {
  Options o;
  o.layout = "{0,1,2}";
  o.source_layout = "{1,2,0}";
  const std::string text =
      SasModule({Same(9, 3, 2), {7, 2, 2}, Same(6, 3, 1)}, o);
  EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
  CheckIdentical(text);
  CheckIdentical(text, {}, Parallel());
}

TEST(SelectAndScatterTest, RanksOneAndThree) {
  CheckIdentical(SasModule({Same(17, 4, 3)}));
  CheckIdentical(SasModule({Same(40, 5, 2)}), {}, Parallel());
  CheckIdentical(SasModule({{3, 2, 1}, Same(8, 3, 2), {5, 1, 1}}), {},
                 Parallel());
}

TEST(SelectAndScatterTest, EmptyShapes) {
  CheckIdentical(SasModule({{0, 1, 1}, {4, 2, 2}}));
  CheckIdentical(SasModule({{2, 3, 1}, {4, 2, 2}}));  // no window fits
}

TEST(SelectAndScatterTest, RandomWindowsSerialAndParallel) {
  std::mt19937 rng(1234);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<Dim> dims;
    const int64_t rank = pick(1, 4);
    for (int64_t d = 0; d < rank; ++d) {
      Dim dim{pick(1, 12),
              pick(1, 4),
              pick(1, 3),
              pick(-1, 2),
              pick(-1, 2),
              pick(0, 3) == 0 ? 2 : 1,
              pick(0, 4) == 0 ? 2 : 1};
      if ((dim.size - 1) * dim.base_dilation + 1 + dim.pad_lo + dim.pad_hi <
          1) {
        dim.pad_lo = dim.pad_hi = 0;
      }
      dims.push_back(dim);
    }
    Options o;
    o.select = std::vector<std::string>{"GE", "GT", "LE", "LT"}[pick(0, 3)];
    const std::string text = SasModule(dims, o);
    const Shape shape = ParamShape(text, 0);
    ExpectIdentical(RunBoth(text, Args(text, Ties(shape, trial, 4))), text);
    ExpectIdentical(
        RunBoth(text, Args(text, Ties(shape, trial, 4)), Parallel()), text);
  }
}

TEST(SelectAndScatterTest, LargePoolRunsInParallelBitIdentically) {
  // 2x56x56x32 NHWC, 3x3 stride 2 SAME: big enough for the default options
  // to run both loops on all threads.
  const std::string text =
      SasModule({{2, 1, 1}, Same(56, 3, 2), Same(56, 3, 2), {32, 1, 1}});
  Results r = RunBoth(text);
  ExpectIdentical(r, "large");
  EXPECT_NE(r.optimized_ir.find(".loop1.omp"), std::string::npos)
      << "the scatter loop should run on all threads";
  Results serial = RunBoth(text, {}, Serial());
  ExpectIdentical(serial, "large serial");
  EXPECT_EQ(serial.optimized_ir.find(".omp"), std::string::npos);
  // With ties, and batch 1 (the split falls on H).
  const std::string one =
      SasModule({{1, 1, 1}, Same(64, 3, 2), Same(64, 3, 2), {16, 1, 1}});
  ExpectIdentical(RunBoth(one, Args(one, Ties(ParamShape(one, 0), 4))),
                  "batch 1 ties");
}

TEST(SelectAndScatterTest, FollowedByElementwiseOp) {
  // The case that used to show an evaluator fallback in cpu_test.
  const std::string text = R"(HloModule with_select_and_scatter
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY main {
  x = f32[8,16] parameter(0)
  s = f32[4,8] parameter(1)
  zero = f32[] constant(0)
  d = f32[8,16] select-and-scatter(x, s, zero), window={size=2x2 stride=2x2}, select=ge, scatter=add
  ROOT e = f32[8,16] exponential(d)
}
)";
  EXPECT_TRUE(CheckAgainstEvaluator(text).empty());
}

// The lane path (NHWC, window 1 over the contiguous channel dimension):
// the scan runs over the channels in the innermost loop.
bool UsesLanes(const Results& r) {
  return r.optimized_ir.find("lane.") != std::string::npos;
}

// The select (GE on f32) compares vectors of channels.
bool Vectorized(const Results& r) {
  return r.optimized_ir.find("fcmp oge <") != std::string::npos ||
         r.optimized_ir.find("fcmp ult <") != std::string::npos;
}

TEST(SelectAndScatterTest, LanePathMaxPoolGradNHWC) {
  for (int64_t c : {1, 3, 16, 64, 67}) {
    for (const std::vector<Dim>& dims :
         {std::vector<Dim>{{2, 1, 1}, Same(15, 3, 2), Same(14, 3, 2),
                           {c, 1, 1}},
          std::vector<Dim>{{3, 1, 1}, {12, 2, 2}, {10, 2, 2}, {c, 1, 1}},
          std::vector<Dim>{{1, 1, 1}, Same(9, 3, 1), Same(8, 3, 1),
                           {c, 1, 1}}}) {
      const std::string text = SasModule(dims);
      const std::string what = absl::StrCat("C=", c, " ", text);
      Results r = RunBoth(text);
      ExpectIdentical(r, what);
      EXPECT_TRUE(UsesLanes(r)) << what;
      if (c >= 16) {
        EXPECT_TRUE(Vectorized(r)) << what;
      }
      ExpectIdentical(RunBoth(text, {}, Parallel()), what + " parallel");
      ExpectIdentical(RunBoth(text, {}, Serial()), what + " serial");
    }
  }
}

TEST(SelectAndScatterTest, LanePathTiesAndNaNs) {
  for (int64_t c : {1, 3, 16, 64, 67}) {
    for (std::string dir : {"GE", "GT", "LE", "LT"}) {
      Options o;
      o.select = dir;
      const std::string text = SasModule(
          {{2, 1, 1}, Same(11, 3, 2), Same(13, 3, 2), {c, 1, 1}}, o);
      const Shape shape = ParamShape(text, 0);
      const std::string what = absl::StrCat("C=", c, " ", dir);
      Results ties = RunBoth(text, Args(text, Ties(shape, c, 3)));
      ExpectIdentical(ties, what + " ties");
      EXPECT_TRUE(UsesLanes(ties)) << what;
      ExpectIdentical(RunBoth(text, Args(text, Ties(shape, c, 1)), Parallel()),
                      what + " all equal parallel");
      Literal operand = MakeOpInput(shape, 5);
      std::mt19937 rng(c);
      for (int64_t i = 0; i < shape.ElementCount(); ++i) {
        if (rng() % 4 == 0) {
          operand.SetFromDouble(i, std::numeric_limits<double>::quiet_NaN());
        }
      }
      ExpectIdentical(RunBoth(text, Args(text, operand)), what + " NaN");
      ExpectIdentical(RunBoth(text, Args(text, std::move(operand)), Parallel()),
                      what + " NaN parallel");
    }
  }
}

TEST(SelectAndScatterTest, LanePathTypesLayoutsAndPadding) {
  // Other element types, a channel-minor layout that is not NHWC, source
  // in another layout, dilations and negative padding around the lanes.
  for (std::string type : {"f16", "bf16", "f64", "s32", "u8"}) {
    Options o;
    o.type = type;
    const std::string text =
        SasModule({{2, 1, 1}, Same(9, 3, 2), Same(10, 3, 2), {19, 1, 1}}, o);
    Results r = RunBoth(text);
    ExpectIdentical(r, type);
    EXPECT_TRUE(UsesLanes(r)) << type;
    ExpectIdentical(RunBoth(text, {}, Parallel()), type + " parallel");
  }
  Options layout;
  layout.layout = "{1,3,2,0}";
  layout.source_layout = "{0,1,2,3}";
  const std::string nchw =
      SasModule({{3, 1, 1}, {21, 1, 1}, Same(9, 3, 2), Same(8, 2, 1)}, layout);
  Results r = RunBoth(nchw);
  ExpectIdentical(r, nchw);
  EXPECT_TRUE(UsesLanes(r)) << nchw;
  ExpectIdentical(RunBoth(nchw, {}, Parallel()), nchw + " parallel");
  for (const std::vector<Dim>& dims :
       {std::vector<Dim>{{11, 3, 2, 1, 1, 2, 1}, {9, 2, 1, 0, 0, 3, 1},
                         {5, 1, 1}},
        std::vector<Dim>{{6, 3, 2, 1, 1, 1, 2}, {5, 2, 1, 0, 1, 1, 3},
                         {7, 1, 1}},
        std::vector<Dim>{{12, 3, 2, -1, -2}, {10, 2, 2, -2, 1}, {9, 1, 1}},
        std::vector<Dim>{{4, 2, 1, 3, 3}, {3, 1, 1}, {6, 1, 1}}}) {
    const std::string text = SasModule(dims);
    Results d = RunBoth(text);
    ExpectIdentical(d, text);
    EXPECT_TRUE(UsesLanes(d)) << text;
    ExpectIdentical(RunBoth(text, {}, Parallel()), text + " parallel");
    ExpectIdentical(RunBoth(text, {}, Serial()), text + " serial");
  }
  // Padding along the channel dimension: the general path.
  const std::string padded = SasModule({Same(9, 3, 2), Same(8, 3, 1)});
  EXPECT_FALSE(UsesLanes(RunBoth(padded))) << padded;
}

TEST(SelectAndScatterTest, LanePathLargePoolBitIdentically) {
  // 2x56x56x64 NHWC, 3x3 stride 2 SAME with the default options (parallel).
  const std::string text =
      SasModule({{2, 1, 1}, Same(56, 3, 2), Same(56, 3, 2), {64, 1, 1}});
  Results r = RunBoth(text);
  ExpectIdentical(r, "large");
  EXPECT_TRUE(UsesLanes(r));
  EXPECT_TRUE(Vectorized(r));
  ExpectIdentical(RunBoth(text, Args(text, Ties(ParamShape(text, 0), 8))),
                  "large ties");
}

// Timing of JAX's 8x112x112x64 NHWC 3x3 stride-2 SAME max-pool gradient
// (the whole module, best of 20 runs). Run with
// --gtest_also_run_disabled_tests --gtest_filter=*Timing*.
TEST(SelectAndScatterTest, DISABLED_TimingMaxPoolGrad) {
  const std::string text =
      SasModule({{8, 1, 1}, Same(112, 3, 2), Same(112, 3, 2), {64, 1, 1}});
  auto module = ParseHloModule(text, "timing");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<Literal> args;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    args.push_back(
        MakeOpInput(entry->parameter_instruction(i)->shape(), 7 + 13 * i));
  }
  auto executable = CompileForCpu(**module, CpuCompileOptions{});
  ASSERT_TRUE(executable.ok()) << executable.status();
  double best = 1e30;
  for (int run = 0; run < 20; ++run) {
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<Literal> result = (*executable)->Run(args);
    const auto end = std::chrono::steady_clock::now();
    ASSERT_TRUE(result.ok()) << result.status();
    best = std::min(
        best, std::chrono::duration<double, std::milli>(end - start).count());
  }
  std::printf("select-and-scatter 8x112x112x64: best %.2f ms\n", best);
}

}  // namespace
}  // namespace hloc

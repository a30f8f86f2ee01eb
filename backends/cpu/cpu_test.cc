// The CPU backend against the reference evaluator: small HLO modules (fused
// by hand, so these tests do not depend on the fusion passes) run on both,
// with deterministic pseudo-random inputs plus edge values. Integers and
// predicates must match exactly, floats within a tolerance (the CPU's exp,
// log and tanh are polynomial approximations, and row reductions are
// reassociated into vector partial sums).
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/target_cpu.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/float16.h"
#include "hlo/text/parser.h"
#include "passes/sub_byte_normalization.h"

namespace hloc {
namespace {

struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-6;
};

// Deterministic values for an array shape: floats in [-4, 4] with a few
// specials at the front, integers over their whole range (small ones for
// shift amounts and the like come from the modules themselves).
Literal MakeInput(const Shape& shape, uint32_t seed) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes())
      elements.push_back(MakeInput(s, seed++));
    return Literal::MakeTuple(std::move(elements));
  }
  Literal literal(shape);
  std::mt19937 rng(seed);
  int64_t n = shape.ElementCount();
  PrimitiveType t = shape.element_type();
  for (int64_t i = 0; i < n; ++i) {
    if (IsFloatingPointType(t)) {
      double v = std::uniform_real_distribution<double>(-4.0, 4.0)(rng);
      literal.SetFromDouble(i, v);
    } else if (t == PRED) {
      literal.SetFromInt64(i, rng() & 1);
    } else {
      int64_t v =
          static_cast<int64_t>((static_cast<uint64_t>(rng()) << 32) | rng());
      literal.SetFromInt64(i, v);
    }
  }
  return literal;
}

bool IsFloatLiteral(const Literal& l) {
  return IsFloatingPointType(l.element_type());
}

void ExpectNear(const Literal& expected, const Literal& actual,
                const Tolerance& tol, const std::string& where) {
  ASSERT_TRUE(expected.shape().Compatible(actual.shape()))
      << where << ": " << expected.shape().ToString() << " vs "
      << actual.shape().ToString();
  if (expected.shape().IsTuple()) {
    for (size_t i = 0; i < expected.tuple_elements().size(); ++i) {
      ExpectNear(expected.tuple_elements()[i], actual.tuple_elements()[i], tol,
                 absl::StrCat(where, "{", i, "}"));
    }
    return;
  }
  if (!IsFloatLiteral(expected)) {
    ASSERT_EQ(expected.size_bytes(), actual.size_bytes());
    int64_t width = ByteWidth(expected.element_type());
    int mismatches = 0;
    for (int64_t i = 0; i < expected.element_count(); ++i) {
      if (std::memcmp(expected.untyped_data() + i * width,
                      actual.untyped_data() + i * width, width) != 0) {
        if (++mismatches <= 5) {
          ADD_FAILURE() << where << " element " << i << ": expected "
                        << expected.GetAsInt64(i) << ", got "
                        << actual.GetAsInt64(i);
        }
      }
    }
    EXPECT_EQ(mismatches, 0) << where;
    return;
  }
  int mismatches = 0;
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    double e = expected.GetAsDouble(i);
    double a = actual.GetAsDouble(i);
    bool ok;
    if (std::isnan(e) || std::isnan(a)) {
      ok = std::isnan(e) && std::isnan(a);
    } else if (std::isinf(e) || std::isinf(a)) {
      ok = e == a;
    } else {
      ok = std::fabs(e - a) <= tol.atol + tol.rtol * std::fabs(e);
    }
    if (!ok && ++mismatches <= 5) {
      ADD_FAILURE() << where << " element " << i << ": expected " << e
                    << ", got " << a;
    }
  }
  EXPECT_EQ(mismatches, 0) << where;
}

struct RunResult {
  int64_t fallbacks = 0;
  int64_t kernels = 0;
};

// Parses `text`, runs it in the evaluator and on the CPU (with the given
// arguments, or generated ones) and compares.
RunResult CheckAgainstEvaluator(const std::string& text,
                                std::vector<Literal> args = {},
                                Tolerance tol = {},
                                CpuCompileOptions options = {}) {
  RunResult out;
  auto module = ParseHloModule(text, "test");
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return out;
  const HloComputation* entry = (*module)->entry_computation();
  if (args.empty()) {
    for (int64_t i = 0; i < entry->num_parameters(); ++i) {
      args.push_back(
          MakeInput(entry->parameter_instruction(i)->shape(), 17 + i));
    }
  }
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  EXPECT_TRUE(expected.ok()) << expected.status();
  auto executable = CompileForCpu(**module, options);
  EXPECT_TRUE(executable.ok()) << executable.status();
  if (!expected.ok() || !executable.ok()) return out;
  // The evaluator is IEEE: the kernels keep denormals too, so the test
  // checks the generated code, not the runtime's flushing.
  absl::StatusOr<Literal> actual =
      (*executable)->Run(args, DenormalMode::kKeep);
  EXPECT_TRUE(actual.ok()) << actual.status();
  if (!actual.ok()) return out;
  ExpectNear(*expected, *actual, tol, (*module)->name());
  out.fallbacks =
      static_cast<int64_t>((*executable)->fallback_instructions().size());
  out.kernels = (*executable)->kernel_count();
  return out;
}

template <typename T>
Literal R1(PrimitiveType type, std::vector<T> values) {
  return Literal::CreateR1<T>(type, values);
}

// --- Elementwise
// ----------------------------------------------------------------

TEST(CpuElementwiseTest, FusedChainMatchesEvaluator) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule chain
fused {
  x = f32[64,200] parameter(0)
  y = f32[64,200] parameter(1)
  one = f32[] constant(1)
  ones = f32[64,200] broadcast(one), dimensions={}
  a = f32[64,200] add(x, ones)
  m = f32[64,200] multiply(a, y)
  e = f32[64,200] exponential(m)
  t = f32[64,200] tanh(x)
  l = f32[64,200] log(e)
  s = f32[64,200] subtract(l, t)
  mx = f32[64,200] maximum(s, y)
  ROOT d = f32[64,200] divide(mx, ones)
}
ENTRY main {
  p0 = f32[64,200] parameter(0)
  p1 = f32[64,200] parameter(1)
  ROOT f = f32[64,200] fusion(p0, p1), kind=kLoop, calls=fused
}
)",
                                      {}, {1e-5, 1e-5});
  EXPECT_EQ(r.fallbacks, 0);
  EXPECT_EQ(r.kernels, 1);
}

TEST(CpuElementwiseTest, FloatUnaryOpsOnSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v = {0.0f,       -0.0f,   1.0f,
                          -1.0f,      0.5f,    -2.5f,
                          2.5f,       3.5f,    1e-30f,
                          1e-40f,     -1e-40f, 88.0f,
                          88.8f,      -87.0f,  -104.0f,
                          100.0f,     -100.0f, inf,
                          -inf,       nan,     1e30f,
                          7.0f,       0.0003f, -0.9f,
                          20.0f,      3e38f,   1.17549435e-38f,
                          0.70710677f};
  int n = static_cast<int>(v.size());
  std::string body;
  std::string roots;
  const char* ops[] = {"abs",
                       "negate",
                       "sign",
                       "ceil",
                       "floor",
                       "round-nearest-afz",
                       "round-nearest-even",
                       "sqrt",
                       "rsqrt",
                       "cbrt",
                       "exponential",
                       "exponential-minus-one",
                       "log",
                       "log-plus-one",
                       "sine",
                       "cosine",
                       "tan",
                       "tanh",
                       "erf",
                       "logistic"};
  int i = 0;
  for (const char* op : ops) {
    absl::StrAppend(&body, "  r", i, " = f32[", n, "] ", op, "(x)\n");
    absl::StrAppend(&roots, i ? ", " : "", "r", i);
    ++i;
  }
  std::string shapes;
  for (int j = 0; j < i; ++j)
    absl::StrAppend(&shapes, j ? ", " : "", "f32[", n, "]");
  std::string text = absl::StrCat("HloModule unary\nENTRY main {\n  x = f32[",
                                  n, "] parameter(0)\n", body, "  ROOT t = (",
                                  shapes, ") tuple(", roots, ")\n}\n");
  std::vector<Literal> args;
  args.push_back(R1<float>(F32, v));
  RunResult r = CheckAgainstEvaluator(text, std::move(args), {2e-6, 1e-37});
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuElementwiseTest, FloatBinaryOps) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule binary
ENTRY main {
  x = f32[1000] parameter(0)
  y = f32[1000] parameter(1)
  a = f32[1000] add(x, y)
  s = f32[1000] subtract(x, y)
  m = f32[1000] multiply(x, y)
  d = f32[1000] divide(x, y)
  r = f32[1000] remainder(x, y)
  mx = f32[1000] maximum(x, y)
  mn = f32[1000] minimum(x, y)
  ax = f32[1000] abs(x)
  p = f32[1000] power(ax, y)
  at = f32[1000] atan2(x, y)
  c = f32[1000] clamp(y, x, ax)
  pr = pred[1000] compare(x, y), direction=LT
  sel = f32[1000] select(pr, x, y)
  fin = pred[1000] is-finite(d)
  ROOT t = (f32[1000], f32[1000], f32[1000], f32[1000], f32[1000], f32[1000], f32[1000], f32[1000], f32[1000], f32[1000], f32[1000], pred[1000]) tuple(a, s, m, d, r, mx, mn, p, at, c, sel, fin)
}
)",
                                      {}, {1e-6, 1e-6});
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuElementwiseTest, NaNPropagatingMaxMinAndTotalOrderCompare) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {nan, 1.0f, -0.0f, 0.0f, -inf, 2.0f, -nan, 3.0f};
  std::vector<float> y = {1.0f, nan, 0.0f, -0.0f, inf, 2.0f, 1.0f, -nan};
  std::vector<Literal> args;
  args.push_back(R1<float>(F32, x));
  args.push_back(R1<float>(F32, y));
  RunResult r = CheckAgainstEvaluator(R"(
HloModule maxmin
ENTRY main {
  x = f32[8] parameter(0)
  y = f32[8] parameter(1)
  mx = f32[8] maximum(x, y)
  mn = f32[8] minimum(x, y)
  lt = pred[8] compare(x, y), direction=LT, type=TOTALORDER
  eq = pred[8] compare(x, y), direction=EQ, type=TOTALORDER
  ne = pred[8] compare(x, y), direction=NE
  ge = pred[8] compare(x, y), direction=GE
  ROOT t = (f32[8], f32[8], pred[8], pred[8], pred[8], pred[8]) tuple(mx, mn, lt, eq, ne, ge)
}
)",
                                      std::move(args));
  EXPECT_EQ(r.fallbacks, 0);
}

// f16 maximum/minimum with NaN on a vectorized loop: LLVM narrowed the f32
// intrinsics back to f16 and x86 lowered them to return the zero operand
// of (NaN, 0) (found by tests/conformance).
TEST(CpuElementwiseTest, HalfMaxMinPropagateNaNWhenVectorized) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x, y;
  for (int i = 0; i < 64; ++i) {
    const float pattern_x[] = {nan, 0.0f, -0.0f, nan, 1.0f, 0.0f, -0.0f, nan};
    const float pattern_y[] = {0.0f, nan, nan, -0.0f, nan, -0.0f, 0.0f, 2.0f};
    x.push_back(pattern_x[i % 8]);
    y.push_back(pattern_y[i % 8]);
  }
  std::vector<Literal> args;
  args.push_back(R1<float>(F32, x));
  args.push_back(R1<float>(F32, y));
  RunResult r = CheckAgainstEvaluator(R"(
HloModule halfmaxmin
ENTRY main {
  x = f32[64] parameter(0)
  y = f32[64] parameter(1)
  hx = f16[64] convert(x)
  hy = f16[64] convert(y)
  mx = f16[64] maximum(hx, hy)
  mn = f16[64] minimum(hx, hy)
  ROOT t = (f16[64], f16[64]) tuple(mx, mn)
}
)",
                                      std::move(args), Tolerance{0, 0});
  EXPECT_EQ(r.fallbacks, 0);
}

// cbrt of denormals with the runtime's DAZ/FTZ on: libm's cbrt misread
// them (cbrtf(1e-45) = -5.6e-16); the kernel rescales them first and
// gives the IEEE root with its sign (found by tests/conformance).
TEST(CpuElementwiseTest, CbrtOfDenormalsUnderFlushMode) {
  auto module = ParseHloModule(R"(
HloModule cbrt_denormal
ENTRY main {
  x = f32[6] parameter(0)
  y = f64[6] parameter(1)
  cx = f32[6] cbrt(x)
  cy = f64[6] cbrt(y)
  ROOT t = (f32[6], f64[6]) tuple(cx, cy)
}
)",
                               "test");
  ASSERT_TRUE(module.ok()) << module.status();
  const float fd = std::numeric_limits<float>::denorm_min();
  const double dd = std::numeric_limits<double>::denorm_min();
  std::vector<float> x = {fd, -fd, 3 * fd, -FLT_MIN / 2, 8.0f, -0.0f};
  std::vector<double> y = {dd, -dd, 7 * dd, -DBL_MIN / 4, 27.0, 0.0};
  std::vector<Literal> args;
  args.push_back(R1<float>(F32, x));
  args.push_back(R1<double>(F64, y));
  auto executable = CompileForCpu(**module, {});
  ASSERT_TRUE(executable.ok()) << executable.status();
  absl::StatusOr<Literal> out = (*executable)->Run(args, DenormalMode::kFlush);
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 6; ++i) {
    const float got = out->tuple_elements()[0].data<float>()[i];
    const float want = std::cbrt(x[i]);
    EXPECT_EQ(std::signbit(got), std::signbit(want)) << "f32 " << x[i];
    EXPECT_NEAR(got, want, 2e-7 * std::fabs(want)) << "f32 " << x[i];
    const double got64 = out->tuple_elements()[1].data<double>()[i];
    const double want64 = std::cbrt(y[i]);
    EXPECT_EQ(std::signbit(got64), std::signbit(want64)) << "f64 " << y[i];
    EXPECT_NEAR(got64, want64, 1e-15 * std::fabs(want64)) << "f64 " << y[i];
  }
}

TEST(CpuElementwiseTest, IntegerEdgeSemantics) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  std::vector<int32_t> x = {7, -7, kMin, kMin, 5, 0, -1, 123456, 2, -3, 1, -1};
  std::vector<int32_t> y = {2, 2, -1, 0, 0, 0, 31, 33, 40, 3, -2, -3};
  std::vector<Literal> args;
  args.push_back(R1<int32_t>(S32, x));
  args.push_back(R1<int32_t>(S32, y));
  RunResult r = CheckAgainstEvaluator(R"(
HloModule ints
ENTRY main {
  x = s32[12] parameter(0)
  y = s32[12] parameter(1)
  d = s32[12] divide(x, y)
  r = s32[12] remainder(x, y)
  shl = s32[12] shift-left(x, y)
  sra = s32[12] shift-right-arithmetic(x, y)
  srl = s32[12] shift-right-logical(x, y)
  clz = s32[12] count-leading-zeros(x)
  pop = s32[12] popcnt(x)
  pw = s32[12] power(x, y)
  ab = s32[12] abs(x)
  ng = s32[12] negate(x)
  sg = s32[12] sign(x)
  nt = s32[12] not(x)
  mx = s32[12] maximum(x, y)
  mn = s32[12] minimum(x, y)
  an = s32[12] and(x, y)
  o = s32[12] or(x, y)
  xo = s32[12] xor(x, y)
  c = s32[12] clamp(y, x, d)
  ROOT t = (s32[12], s32[12], s32[12], s32[12], s32[12], s32[12], s32[12], s32[12], s32[12], s32[12], s32[12], s32[12], s32[12], s32[12], s32[12], s32[12], s32[12], s32[12]) tuple(d, r, shl, sra, srl, clz, pop, pw, ab, ng, sg, nt, mx, mn, an, o, xo, c)
}
)",
                                      std::move(args));
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuElementwiseTest, UnsignedAndNarrowIntegers) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule uints
ENTRY main {
  x = u8[300] parameter(0)
  y = u8[300] parameter(1)
  d = u8[300] divide(x, y)
  r = u8[300] remainder(x, y)
  shl = u8[300] shift-left(x, y)
  srl = u8[300] shift-right-logical(x, y)
  sra = u8[300] shift-right-arithmetic(x, y)
  mx = u8[300] maximum(x, y)
  lt = pred[300] compare(x, y), direction=LT
  a = s16[300] parameter(2)
  b = s16[300] parameter(3)
  m = s16[300] multiply(a, b)
  q = s16[300] divide(a, b)
  u = u64[300] parameter(4)
  v = u64[300] parameter(5)
  uq = u64[300] divide(u, v)
  ur = u64[300] remainder(u, v)
  um = u64[300] minimum(u, v)
  ROOT t = (u8[300], u8[300], u8[300], u8[300], u8[300], u8[300], pred[300], s16[300], s16[300], u64[300], u64[300], u64[300]) tuple(d, r, shl, srl, sra, mx, lt, m, q, uq, ur, um)
}
)");
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuElementwiseTest, ConvertEdgeCases) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> v = {
      0.0f,   -0.0f,          1.5f,        -1.5f,        2.5f,
      127.9f, 128.0f,         -129.0f,     255.5f,       256.0f,
      -1.0f,  3e9f,           -3e9f,       1e20f,        -1e20f,
      inf,    -inf,           nan,         65504.0f,     65520.0f,
      1e-8f,  1.00048828125f, 1.00390625f, 3.3895314e38f};
  int n = static_cast<int>(v.size());
  std::string text = absl::StrCat(R"(
HloModule converts
ENTRY main {
  x = f32[N] parameter(0)
  s8 = s8[N] convert(x)
  u8 = u8[N] convert(x)
  s32 = s32[N] convert(x)
  u32 = u32[N] convert(x)
  s64 = s64[N] convert(x)
  u64 = u64[N] convert(x)
  h = f16[N] convert(x)
  bf = bf16[N] convert(x)
  d = f64[N] convert(x)
  p = pred[N] convert(x)
  hb = f32[N] convert(h)
  bfb = f32[N] convert(bf)
  i2f = f32[N] convert(s32)
  u2h = f16[N] convert(u32)
  p2f = f32[N] convert(p)
  p2i = s32[N] convert(p)
  i2p = pred[N] convert(s8)
  d2h = f16[N] convert(d)
  d2bf = bf16[N] convert(d)
  h2s = s16[N] convert(h)
  ROOT t = (s8[N], u8[N], s32[N], u32[N], s64[N], u64[N], f16[N], bf16[N], f64[N], pred[N], f32[N], f32[N], f32[N], f16[N], f32[N], s32[N], pred[N], f16[N], bf16[N], s16[N]) tuple(s8, u8, s32, u32, s64, u64, h, bf, d, p, hb, bfb, i2f, u2h, p2f, p2i, i2p, d2h, d2bf, h2s)
}
)");
  std::string sized =
      absl::StrReplaceAll(text, {{"[N]", absl::StrCat("[", n, "]")}});
  std::vector<Literal> args;
  args.push_back(R1<float>(F32, v));
  RunResult r = CheckAgainstEvaluator(sized, std::move(args), {0, 0});
  EXPECT_EQ(r.fallbacks, 0);
}

// Every 8-bit float format both ways, bit for bit against the evaluator
// (whose conversions hlo/ir_test.cc checks against ml_dtypes): f32 values
// on a grid with every tie of every format (1 + k/64 times powers of two
// from their denormals past their largest values), the specials, and all
// 256 bit patterns decoded.
TEST(CpuElementwiseTest, Float8ConversionsBitForBit) {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          1e-30f,
                          -1e-30f,
                          3e38f};
  for (int e = -20; e <= 17; ++e) {
    for (int k = 0; k < 64; ++k) {
      const float f = std::ldexp(1.0f + k / 64.0f, e);
      v.push_back(f);
      v.push_back(-f);
    }
  }
  std::vector<uint8_t> patterns(256);
  for (int i = 0; i < 256; ++i) patterns[i] = static_cast<uint8_t>(i);
  std::string lines, results, shapes;
  for (const char* t : {"f8e5m2", "f8e4m3", "f8e3m4", "f8e4m3fn", "f8e4m3fnuz",
                        "f8e5m2fnuz", "f8e4m3b11fnuz"}) {
    absl::StrAppend(&lines, "  q_", t, " = ", t, "[N] convert(x)\n", "  b_", t,
                    " = u8[N] bitcast-convert(q_", t, ")\n", "  back_", t,
                    " = f32[N] convert(q_", t, ")\n", "  p_", t, " = ", t,
                    "[256] bitcast-convert(bits)\n", "  d_", t,
                    " = f32[256] convert(p_", t, ")\n");
    absl::StrAppend(&results, results.empty() ? "" : ", ", "b_", t, ", back_",
                    t, ", d_", t);
    absl::StrAppend(&shapes, shapes.empty() ? "" : ", ",
                    "u8[N], f32[N], f32[256]");
  }
  std::string text = absl::StrCat(
      "HloModule float8_converts\nENTRY main {\n  x = f32[N] parameter(0)\n"
      "  bits = u8[256] parameter(1)\n",
      lines, "  ROOT t = (", shapes, ") tuple(", results, ")\n}\n");
  std::string sized =
      absl::StrReplaceAll(text, {{"[N]", absl::StrCat("[", v.size(), "]")}});
  std::vector<Literal> args;
  args.push_back(R1<float>(F32, v));
  args.push_back(R1<uint8_t>(U8, patterns));
  RunResult r = CheckAgainstEvaluator(sized, std::move(args), {0, 0});
  EXPECT_EQ(r.fallbacks, 0);
}

// f64 to every narrow float, bit for bit against the evaluator (whose
// one rounding hlo/narrow_types_test.cc checks against XLA:CPU): values
// just either side of every half way point, where rounding to f32 first
// (by nearest) would land on the point.
TEST(CpuElementwiseTest, NarrowFloatsFromF64RoundOnce) {
  std::vector<double> v = {0.0,
                           -0.0,
                           1e300,
                           -1e300,
                           1e-300,
                           std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()};
  for (int e = -20; e <= 17; ++e) {
    for (int k = 0; k < 64; ++k) {
      const double f = std::ldexp(1.0 + (k + 0.5) / 64.0, e);
      for (double d : {f, f * (1 + 0x1p-40), f * (1 - 0x1p-40)}) {
        v.push_back(d);
        v.push_back(-d);
      }
    }
  }
  std::string lines, results, shapes;
  for (const char* t : {"f8e5m2", "f8e4m3", "f8e3m4", "f8e4m3fn", "f8e4m3fnuz",
                        "f8e5m2fnuz", "f8e4m3b11fnuz", "f8e8m0fnu"}) {
    absl::StrAppend(&lines, "  q_", t, " = ", t, "[N] convert(x)\n", "  b_", t,
                    " = u8[N] bitcast-convert(q_", t, ")\n");
    absl::StrAppend(&results, results.empty() ? "" : ", ", "b_", t);
    absl::StrAppend(&shapes, shapes.empty() ? "" : ", ", "u8[N]");
  }
  std::string text = absl::StrCat(
      "HloModule narrow_from_f64\nENTRY main {\n  x = f64[N] parameter(0)\n",
      lines,
      "  q4 = f4e2m1fn[N] convert(x)\n  b4 = u4[N] bitcast-convert(q4)\n",
      "  ROOT t = (", shapes, ", u4[N]) tuple(", results, ", b4)\n}\n");
  std::string sized =
      absl::StrReplaceAll(text, {{"[N]", absl::StrCat("[", v.size(), "]")}});
  std::vector<Literal> args;
  args.push_back(R1<double>(F64, v));
  RunResult r = CheckAgainstEvaluator(sized, std::move(args), {0, 0});
  EXPECT_EQ(r.fallbacks, 0);
}

// f4e2m1fn and f8e8m0fnu both ways, bit for bit against the evaluator
// (whose conversions hlo/narrow_types_test.cc checks against ml_dtypes):
// the f32 value of every bf16 bit pattern, some f32 ties and neighbours
// (f8e8m0fnu rounds the f32 bits), and every encoding decoded.
TEST(CpuElementwiseTest, MicroscalingConversionsBitForBit) {
  std::vector<float> v;
  for (uint32_t p = 0; p < 0x10000; ++p) v.push_back(BitsToFloat(p << 16));
  for (uint32_t bits : {0x00400000u, 0x00400001u, 0x3fbfffffu, 0x3fc00001u,
                        0x7f3fffffu, 0x40a00001u, 0x409fffffu}) {
    v.push_back(BitsToFloat(bits));
  }
  std::vector<uint8_t> patterns(256);
  for (int i = 0; i < 256; ++i) patterns[i] = static_cast<uint8_t>(i);
  const std::string sized = absl::StrCat("[", v.size(), "]");
  const std::string text = absl::StrReplaceAll(R"(
HloModule microscaling_converts
ENTRY main {
  x = f32[N] parameter(0)
  bits = u8[256] parameter(1)
  q4 = f4e2m1fn[N] convert(x)
  b4 = u4[N] bitcast-convert(q4)
  back4 = f32[N] convert(q4)
  h = bf16[N] convert(x)
  h4 = f4e2m1fn[N] convert(h)
  e8 = f8e8m0fnu[N] convert(x)
  b8 = u8[N] bitcast-convert(e8)
  back8 = f32[N] convert(e8)
  low = u4[256] convert(bits)
  p4 = f4e2m1fn[256] bitcast-convert(low)
  d4 = f32[256] convert(p4)
  p8 = f8e8m0fnu[256] bitcast-convert(bits)
  d8 = f32[256] convert(p8)
  i4 = s32[256] convert(p4)
  ROOT t = (u4[N], f32[N], f4e2m1fn[N], u8[N], f32[N], f32[256], f32[256], s32[256]) tuple(b4, back4, h4, b8, back8, d4, d8, i4)
}
)",
                                               {{"[N]", sized}});
  std::vector<Literal> args;
  args.push_back(R1<float>(F32, v));
  args.push_back(R1<uint8_t>(U8, patterns));
  RunResult r = CheckAgainstEvaluator(text, std::move(args), {0, 0});
  EXPECT_EQ(r.fallbacks, 0);
}

// Sub-byte integers: every pair of values through every operation the
// sub-byte-normalization pass widens (and the converts to and from them),
// compiled after the pass, bit for bit against the evaluator on the module
// as written (it computes them at their width).
TEST(CpuElementwiseTest, SubByteIntegersBitForBit) {
  std::string lines, results, shapes;
  for (const char* t : {"s4", "u4", "s2", "u2"}) {
    absl::StrAppend(&lines, "  a_", t, " = ", t, "[256] convert(a)\n", "  b_",
                    t, " = ", t, "[256] convert(b)\n");
    for (const char* op :
         {"add", "subtract", "multiply", "divide", "remainder", "maximum",
          "minimum", "power", "and", "or", "xor", "shift-left",
          "shift-right-logical", "shift-right-arithmetic"}) {
      absl::StrAppend(&lines, "  ", op, "_", t, " = ", t, "[256] ", op, "(a_",
                      t, ", b_", t, ")\n");
      absl::StrAppend(&results, results.empty() ? "" : ", ", op, "_", t);
      absl::StrAppend(&shapes, shapes.empty() ? "" : ", ", t, "[256]");
    }
    const bool is_signed = t[0] == 's';
    for (const char* op : {"negate", "abs", "not", "count-leading-zeros",
                           "popcnt", "sign"}) {
      // abs and sign take signed operands only.
      if (!is_signed && (op[0] == 'a' || op[1] == 'i')) continue;
      absl::StrAppend(&lines, "  ", op, "_", t, " = ", t, "[256] ", op, "(a_",
                      t, ")\n");
      absl::StrAppend(&results, ", ", op, "_", t);
      absl::StrAppend(&shapes, ", ", t, "[256]");
    }
    absl::StrAppend(&lines, "  lt_", t, " = pred[256] compare(a_", t, ", b_",
                    t, "), direction=LT\n", "  f_", t, " = ", t,
                    "[256] convert(x)\n", "  w_", t,
                    " = f32[256] convert(a_", t, ")\n");
    absl::StrAppend(&results, ", lt_", t, ", f_", t, ", w_", t);
    absl::StrAppend(&shapes, ", pred[256], ", t, "[256], f32[256]");
  }
  const std::string text = absl::StrCat(
      "HloModule sub_byte\nENTRY main {\n  a = s8[256] parameter(0)\n"
      "  b = s8[256] parameter(1)\n  x = f32[256] parameter(2)\n",
      lines, "  ROOT t = (", shapes, ") tuple(", results, ")\n}\n");
  std::vector<int8_t> a, b;
  std::vector<float> x;
  for (int i = 0; i < 256; ++i) {
    a.push_back(static_cast<int8_t>(i % 16 - 8));
    b.push_back(static_cast<int8_t>(i / 16 - 8));
    x.push_back((i - 128) * 0.37f);
  }
  x[0] = std::numeric_limits<float>::quiet_NaN();
  x[1] = std::numeric_limits<float>::infinity();
  std::vector<Literal> args;
  args.push_back(R1<int8_t>(S8, a));
  args.push_back(R1<int8_t>(S8, b));
  args.push_back(R1<float>(F32, x));
  auto module = ParseHloModule(text, "test");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<bool> changed = SubByteNormalization().Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  auto executable = CompileForCpu(**module, {});
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_EQ((*executable)->fallback_instructions().size(), 0u);
  absl::StatusOr<Literal> actual =
      (*executable)->Run(args, DenormalMode::kKeep);
  ASSERT_TRUE(actual.ok()) << actual.status();
  ExpectNear(*expected, *actual, {0, 0}, "sub_byte");
}

TEST(CpuElementwiseTest, HalfAndBFloat16ComputeInF32) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule halves
fused {
  x = f16[33,70] parameter(0)
  y = bf16[33,70] parameter(1)
  yh = f16[33,70] convert(y)
  a = f16[33,70] add(x, yh)
  m = f16[33,70] multiply(a, x)
  e = f16[33,70] exponential(m)
  xb = bf16[33,70] convert(x)
  b = bf16[33,70] subtract(xb, y)
  bt = bf16[33,70] tanh(b)
  rp = f16[33,70] reduce-precision(e), exponent_bits=5, mantissa_bits=3
  ROOT t = (f16[33,70], bf16[33,70], f16[33,70]) tuple(e, bt, rp)
}
ENTRY main {
  p0 = f16[33,70] parameter(0)
  p1 = bf16[33,70] parameter(1)
  ROOT f = (f16[33,70], bf16[33,70], f16[33,70]) fusion(p0, p1), kind=kLoop, calls=fused
}
)",
                                      {}, {1e-2, 1e-3});
  EXPECT_EQ(r.fallbacks, 0);
  EXPECT_EQ(r.kernels, 1);
}

TEST(CpuElementwiseTest, ReducePrecisionF32) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule rp
ENTRY main {
  x = f32[500] parameter(0)
  big = f32[] constant(1e30)
  bigs = f32[500] broadcast(big), dimensions={}
  y = f32[500] multiply(x, bigs)
  a = f32[500] reduce-precision(y), exponent_bits=5, mantissa_bits=10
  b = f32[500] reduce-precision(x), exponent_bits=8, mantissa_bits=7
  c = f32[500] reduce-precision(x), exponent_bits=2, mantissa_bits=0
  ROOT t = (f32[500], f32[500], f32[500]) tuple(a, b, c)
}
)",
                                      {}, {0, 0});
  EXPECT_EQ(r.fallbacks, 0);
}

// --- Data movement
// ----------------------------------------------------------------

TEST(CpuDataMovementTest, BroadcastTransposeReshapeSliceReverse) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule movement
ENTRY main {
  x = f32[6,10] parameter(0)
  v = f32[10] parameter(1)
  b = f32[4,6,10] broadcast(v), dimensions={2}
  bx = f32[4,6,10] broadcast(x), dimensions={1,2}
  s = f32[4,6,10] add(b, bx)
  t = f32[10,4,6] transpose(s), dimensions={2,0,1}
  r = f32[40,6] reshape(t)
  sl = f32[13,3] slice(r), slice={[1:40:3], [0:6:2]}
  rv = f32[13,3] reverse(sl), dimensions={0,1}
  tc = f32[6,10]{0,1} copy(x)
  tt = f32[10,6]{1,0} transpose(tc), dimensions={1,0}
  ROOT out = (f32[13,3], f32[10,6], f32[6,10]{0,1}) tuple(rv, tt, tc)
}
)");
  EXPECT_EQ(r.fallbacks, 0);
}

// Outputs with a zero dimension after a non-zero one: the compiler divided
// by the zero row length (SIGFPE while compiling; found by
// tests/conformance).
TEST(CpuDataMovementTest, ZeroSizedRowsCompile) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule zero_rows
ENTRY main {
  p = s8[] parameter(0)
  q = f32[0,3] parameter(1)
  b = s8[7,0] broadcast(p), dimensions={}
  r = f32[3,0] reshape(q)
  ROOT t = (s8[7,0], f32[3,0]) tuple(b, r)
}
)");
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuDataMovementTest, ConcatenatePadIota) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule concat_pad
ENTRY main {
  a = f32[3,5] parameter(0)
  b = f32[4,5] parameter(1)
  c = f32[1,5] parameter(2)
  cat = f32[8,5] concatenate(a, b, c), dimensions={0}
  z = f32[] constant(-7)
  p = f32[18,11] pad(cat, z), padding=1_2_1x-1_3_1
  i = s32[14,9] iota(), iota_dimension=1
  fi = f32[14,9] iota(), iota_dimension=0
  ROOT t = (f32[8,5], f32[18,11], s32[14,9], f32[14,9]) tuple(cat, p, i, fi)
}
)");
  EXPECT_EQ(r.fallbacks, 0);
}

// Concatenates of many operands read each element through a binary search
// over the operands' offsets (elemental_emitter.cc): every operand, uneven
// widths, an operand of width 0, the major and the minor dimension.
TEST(CpuDataMovementTest, ConcatenateManyOperands) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule concat_many
ENTRY main {
  a = f32[3,1] parameter(0)
  b = f32[3,2] parameter(1)
  c = f32[3,3] parameter(2)
  d = f32[3,0] parameter(3)
  e = f32[3,5] parameter(4)
  f = f32[3,1] parameter(5)
  g = f32[3,4] parameter(6)
  minor = f32[3,16] concatenate(a, b, c, d, e, f, g), dimensions={1}
  ta = f32[1,3] reshape(a)
  tf = f32[1,3] reshape(f)
  tb = f32[2,3] transpose(b), dimensions={1,0}
  tc = f32[3,3] transpose(c), dimensions={1,0}
  major = f32[9,3] concatenate(ta, tb, tf, tc, ta, tf), dimensions={0}
  ROOT t = (f32[3,16], f32[9,3]) tuple(minor, major)
}
)");
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuDataMovementTest, DynamicSliceUpdateSliceGather) {
  std::vector<Literal> args;
  args.push_back(MakeInput(Shape::Array(F32, {8, 6}), 3));
  args.push_back(Literal::CreateR0<int32_t>(S32, 5));   // clamped to 4
  args.push_back(Literal::CreateR0<int32_t>(S32, -2));  // clamped to 0
  args.push_back(MakeInput(Shape::Array(F32, {2, 3}), 4));
  args.push_back(R1<int32_t>(S32, {0, 7, 3, -1, 100}));
  RunResult r = CheckAgainstEvaluator(R"(
HloModule dynamic
ENTRY main {
  x = f32[8,6] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  u = f32[2,3] parameter(3)
  idx = s32[5] parameter(4)
  ds = f32[4,3] dynamic-slice(x, i, j), dynamic_slice_sizes={4,3}
  dus = f32[8,6] dynamic-update-slice(x, u, j, i)
  idx2 = s32[5,1] reshape(idx)
  g = f32[5,6] gather(x, idx2), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}
  ROOT t = (f32[4,3], f32[8,6], f32[5,6]) tuple(ds, dus, g)
}
)",
                                      std::move(args));
  EXPECT_EQ(r.fallbacks, 0);
}

// Unsigned start indices past the signed range of their width (a u8 of
// 200, a u32 of 4e9, a u64 of 2^63 + 5) are far past the end: they clamp
// to the last start, as the evaluator clamps them, never wrap negative to
// 0. The u32 case is what the GPU got wrong with its 32-bit indices; the
// CPU indexes in 64 bits, where the u64 case was the one that wrapped.
TEST(CpuDataMovementTest, UnsignedStartIndicesBeyondTheSignedRange) {
  std::vector<Literal> args;
  args.push_back(MakeInput(Shape::Array(F32, {9, 7, 6}), 5));
  args.push_back(Literal::CreateR0<uint8_t>(U8, 200));
  args.push_back(Literal::CreateR0<uint32_t>(U32, 4000000000u));
  args.push_back(Literal::CreateR0<uint64_t>(U64, (uint64_t{1} << 63) + 5));
  args.push_back(MakeInput(Shape::Array(F32, {2, 3, 4}), 6));
  args.push_back(R1<uint32_t>(U32, {4000000000u, 3, 2147483648u, 0}));
  RunResult r = CheckAgainstEvaluator(R"(
HloModule unsigned_starts
ENTRY main {
  x = f32[9,7,6] parameter(0)
  i = u8[] parameter(1)
  j = u32[] parameter(2)
  k = u64[] parameter(3)
  u = f32[2,3,4] parameter(4)
  idx = u32[4] parameter(5)
  one8 = u8[] constant(1)
  one32 = u32[] constant(1)
  one64 = u64[] constant(1)
  ds8 = f32[2,3,4] dynamic-slice(x, i, one8, i), dynamic_slice_sizes={2,3,4}
  ds32 = f32[2,3,4] dynamic-slice(x, one32, j, j), dynamic_slice_sizes={2,3,4}
  ds64 = f32[2,3,4] dynamic-slice(x, k, k, one64), dynamic_slice_sizes={2,3,4}
  dus = f32[9,7,6] dynamic-update-slice(x, u, one64, k, k)
  idx2 = u32[4,1] reshape(idx)
  g = f32[4,7,6] gather(x, idx2), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,7,6}
  ROOT t = (f32[2,3,4], f32[2,3,4], f32[2,3,4], f32[9,7,6], f32[4,7,6]) tuple(ds8, ds32, ds64, dus, g)
}
)",
                                      std::move(args));
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuDataMovementTest, ColumnMajorParameterLayouts) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule layouts
ENTRY main {
  x = f32[7,9]{0,1} parameter(0)
  y = f32[7,9]{1,0} parameter(1)
  a = f32[7,9]{0,1} add(x, y)
  ROOT m = f32[7,9]{1,0} multiply(a, x)
}
)");
  EXPECT_EQ(r.fallbacks, 0);
}

// A tuple element in another layout than its operand's (valid HLO) gets
// the copy XLA's layout assignment would insert (passes/tuple_layout.h),
// with or without the pipeline; the result is in the tuple's layouts.
TEST(CpuDataMovementTest, TupleElementInAnotherLayoutThanItsOperand) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule tuple_layouts
ENTRY main {
  a = f32[3] parameter(0)
  p = s32[4,1]{0,1} parameter(1)
  q = f32[5,7]{0,1} parameter(2)
  ROOT t = (f32[3], s32[4,1]{1,0}, f32[5,7]{1,0}) tuple(a, p, q)
}
)");
  EXPECT_EQ(r.fallbacks, 0);
}

// --- Reductions
// ------------------------------------------------------------------

constexpr char kAdd[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

TEST(CpuReductionTest, RowAndColumnSums) {
  RunResult r = CheckAgainstEvaluator(absl::StrCat("HloModule sums\n", kAdd, R"(
ENTRY main {
  x = f32[96,1000] parameter(0)
  zero = f32[] constant(0)
  row = f32[96] reduce(x, zero), dimensions={1}, to_apply=add
  col = f32[1000] reduce(x, zero), dimensions={0}, to_apply=add
  all = f32[] reduce(x, zero), dimensions={0,1}, to_apply=add
  ROOT t = (f32[96], f32[1000], f32[]) tuple(row, col, all)
}
)"),
                                      {}, {1e-4, 1e-3});
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuReductionTest, MiddleDimensionAndColumnMajorInput) {
  RunResult r =
      CheckAgainstEvaluator(absl::StrCat("HloModule middle\n", kAdd, R"(
ENTRY main {
  x = f32[5,300,17] parameter(0)
  y = f32[40,30]{0,1} parameter(1)
  zero = f32[] constant(0)
  mid = f32[5,17] reduce(x, zero), dimensions={1}, to_apply=add
  outer = f32[300] reduce(x, zero), dimensions={0,2}, to_apply=add
  ycols = f32[30] reduce(y, zero), dimensions={0}, to_apply=add
  yrows = f32[40] reduce(y, zero), dimensions={1}, to_apply=add
  ROOT t = (f32[5,17], f32[300], f32[30], f32[40]) tuple(mid, outer, ycols, yrows)
}
)"),
                            {}, {1e-4, 1e-4});
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuReductionTest, MaxWithNaNAndIntegerReductions) {
  Literal x = MakeInput(Shape::Array(F32, {16, 64}), 9);
  x.data<float>()[3 * 64 + 5] = std::numeric_limits<float>::quiet_NaN();
  x.data<float>()[7] = std::numeric_limits<float>::quiet_NaN();
  std::vector<Literal> args;
  args.push_back(std::move(x));
  args.push_back(MakeInput(Shape::Array(S32, {16, 64}), 10));
  RunResult r = CheckAgainstEvaluator(R"(
HloModule maxes
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
iadd {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
imax {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY main {
  x = f32[16,64] parameter(0)
  y = s32[16,64] parameter(1)
  ninf = f32[] constant(-inf)
  z = s32[] constant(0)
  lo = s32[] constant(-2147483648)
  rmax = f32[16] reduce(x, ninf), dimensions={1}, to_apply=max
  cmax = f32[64] reduce(x, ninf), dimensions={0}, to_apply=max
  isum = s32[16] reduce(y, z), dimensions={1}, to_apply=iadd
  icol = s32[64] reduce(y, lo), dimensions={0}, to_apply=imax
  ROOT t = (f32[16], f32[64], s32[16], s32[64]) tuple(rmax, cmax, isum, icol)
}
)",
                                      std::move(args), {0, 0});
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuReductionTest, VariadicArgmax) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule argmax
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lti = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lti)
  pick = pred[] or(gt, tie)
  v = f32[] select(pick, av, bv)
  i = s32[] select(pick, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  x = f32[12,50] parameter(0)
  iota = s32[12,50] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[12], s32[12]) reduce(x, iota, ninf, z), dimensions={1}, to_apply=argmax
}
)",
                                      {}, {0, 0});
  EXPECT_EQ(r.fallbacks, 0);
}

// jnp.argmax's reducer (NaN wins, ties to the lower index) on rows full of
// ties and NaNs; 13 rows, so the rows reduced four at a time
// (kVariadicRowsPerPass) leave one over, and a small parallel chunking
// starts groups anywhere.
TEST(CpuReductionTest, VariadicArgmaxNanAndTiesInterleavedRows) {
  Literal x(Shape::Array(F32, {13, 37}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t i = 0; i < 13; ++i) {
    for (int64_t j = 0; j < 37; ++j) {
      float v = static_cast<float>((i * 7 + j * 3) % 5);
      if (i % 3 == 0 && (j == 20 || j == 30)) v = nan;
      if (i % 4 == 1 && j == 2 + i) v = nan;
      if (i == 12) v = -std::numeric_limits<float>::infinity();
      x.data<float>()[i * 37 + j] = v;
    }
  }
  for (bool parallel : {false, true}) {
    CpuCompileOptions options;
    options.codegen.parallel = parallel;
    options.codegen.min_parallel_elements = 1;
    RunResult r = CheckAgainstEvaluator(R"(
HloModule argmax
argmax {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  nan = pred[] compare(a, a), direction=NE
  eq = pred[] compare(a, b), direction=EQ
  lower = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lower)
  a_wins = pred[] or(gt, nan)
  first = pred[] or(a_wins, tie)
  v = f32[] select(first, a, b)
  i = s32[] select(first, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY main {
  x = f32[13,37] parameter(0)
  iota = s32[13,37] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[13], s32[13]) reduce(x, iota, ninf, z), dimensions={1}, to_apply=argmax
}
)",
                                        {x}, {0, 0}, options);
    EXPECT_EQ(r.fallbacks, 0);
  }
}

TEST(CpuReductionTest, MultiOutputReductionFusion) {
  // Softmax-like: row max and row sum of exp(x - max) computed by a fusion
  // that also returns the elementwise exp.
  RunResult r =
      CheckAgainstEvaluator(absl::StrCat("HloModule multi\n", kAdd, R"(
fused {
  x = f32[33,257] parameter(0)
  e = f32[33,257] exponential(x)
  zero = f32[] constant(0)
  s = f32[33] reduce(e, zero), dimensions={1}, to_apply=add
  sq = f32[33,257] multiply(x, x)
  s2 = f32[33] reduce(sq, zero), dimensions={1}, to_apply=add
  ROOT t = (f32[33], f32[33], f32[33,257]) tuple(s, s2, e)
}
colfused {
  x = f32[70,129] parameter(0)
  n = f32[70,129] negate(x)
  zero = f32[] constant(0)
  s = f32[129] reduce(n, zero), dimensions={0}, to_apply=add
  ROOT t = (f32[129], f32[70,129]) tuple(s, n)
}
ENTRY main {
  p = f32[33,257] parameter(0)
  q = f32[70,129] parameter(1)
  f = (f32[33], f32[33], f32[33,257]) fusion(p), kind=kInput, calls=fused
  g = (f32[129], f32[70,129]) fusion(q), kind=kInput, calls=colfused
  ROOT t = ((f32[33], f32[33], f32[33,257]), (f32[129], f32[70,129])) tuple(f, g)
}
)"),
                            {}, {1e-4, 1e-4});
  EXPECT_EQ(r.fallbacks, 0);
  EXPECT_EQ(r.kernels, 2);
}

TEST(CpuReductionTest, ReduceWindowAndMap) {
  RunResult r =
      CheckAgainstEvaluator(absl::StrCat("HloModule windows\n", kAdd, R"(
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[2,9,9,3] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  pool = f32[2,4,4,3] reduce-window(x, ninf), window={size=1x3x3x1 stride=1x2x2x1}, to_apply=max
  v = f32[20] parameter(1)
  cumsum = f32[20] reduce-window(v, zero), window={size=20 pad=19_0}, to_apply=add
  m = f32[20] map(v, cumsum), dimensions={0}, to_apply=add
  ROOT t = (f32[2,4,4,3], f32[20], f32[20]) tuple(pool, cumsum, m)
}
)"),
                            {}, {1e-5, 1e-5});
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuReductionTest, DifferentReducesInOneFusionAndReduceInsideLoopFusion) {
  RunResult r =
      CheckAgainstEvaluator(absl::StrCat("HloModule mixed\n", kAdd, R"(
fused {
  x = f32[24,40] parameter(0)
  zero = f32[] constant(0)
  rows = f32[24] reduce(x, zero), dimensions={1}, to_apply=add
  cols = f32[40] reduce(x, zero), dimensions={0}, to_apply=add
  ROOT t = (f32[24], f32[40]) tuple(rows, cols)
}
centered {
  x = f32[24,40] parameter(0)
  zero = f32[] constant(0)
  rows = f32[24] reduce(x, zero), dimensions={1}, to_apply=add
  b = f32[24,40] broadcast(rows), dimensions={0}
  ROOT s = f32[24,40] subtract(x, b)
}
ENTRY main {
  p = f32[24,40] parameter(0)
  f = (f32[24], f32[40]) fusion(p), kind=kInput, calls=fused
  g = f32[24,40] fusion(p), kind=kLoop, calls=centered
  ROOT t = ((f32[24], f32[40]), f32[24,40]) tuple(f, g)
}
)"),
                            {}, {1e-5, 1e-5});
  EXPECT_EQ(r.fallbacks, 0);
  EXPECT_EQ(r.kernels, 2);
}

TEST(CpuReductionTest, EmptyAndScalarShapes) {
  RunResult r =
      CheckAgainstEvaluator(absl::StrCat("HloModule empty\n", kAdd, R"(
ENTRY main {
  x = f32[0,5] parameter(0)
  s = f32[] parameter(1)
  zero = f32[] constant(0)
  e = f32[0,5] exponential(x)
  cols = f32[5] reduce(x, zero), dimensions={0}, to_apply=add
  rows = f32[0] reduce(x, zero), dimensions={1}, to_apply=add
  sc = f32[] reduce(s, zero), dimensions={}, to_apply=add
  n = f32[] negate(s)
  ROOT t = (f32[0,5], f32[5], f32[0], f32[], f32[]) tuple(e, cols, rows, sc, n)
}
)"));
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuElementwiseTest, F64AndPredOps) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule f64pred
ENTRY main {
  x = f64[257] parameter(0)
  y = f64[257] parameter(1)
  e = f64[257] exponential(x)
  l = f64[257] log(e)
  t = f64[257] tanh(y)
  p = f64[257] power(e, y)
  a = pred[257] parameter(2)
  b = pred[257] parameter(3)
  an = pred[257] and(a, b)
  o = pred[257] or(a, b)
  xo = pred[257] xor(a, b)
  nt = pred[257] not(a)
  eq = pred[257] compare(a, b), direction=EQ
  gt = pred[257] compare(a, b), direction=GT
  sel = f64[257] select(an, x, y)
  mx = f64[257] maximum(x, y)
  mn = f64[257] minimum(x, y)
  h = f16[257] convert(x)
  hm = f16[257] maximum(h, h)
  ROOT r = (f64[257], f64[257], f64[257], pred[257], pred[257], pred[257], pred[257], pred[257], pred[257], f64[257], f64[257], f64[257], f16[257]) tuple(l, t, p, an, o, xo, nt, eq, gt, sel, mx, mn, hm)
}
)",
                                      {}, {1e-13, 1e-13});
  EXPECT_EQ(r.fallbacks, 0);
}

TEST(CpuDataMovementTest, FusedBitcastConcatenateMinorAndMultiShapeOutputs) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule fused_movement
fused {
  x = f32[4,6] parameter(0)
  y = f32[4,3] parameter(1)
  bc = f32[6,4]{0,1} bitcast(x)
  c = f32[4,9] concatenate(x, y), dimensions={1}
  n = f32[4,9] negate(c)
  v = f32[6,1] slice(bc), slice={[0:6], [1:2]}
  bcc = s32[4,6] bitcast-convert(x)
  ROOT t = (f32[6,4]{0,1}, f32[4,9], f32[6,1], s32[4,6]) tuple(bc, n, v, bcc)
}
ENTRY main {
  x = f32[4,6] parameter(0)
  y = f32[4,3] parameter(1)
  ROOT f = (f32[6,4]{0,1}, f32[4,9], f32[6,1], s32[4,6]) fusion(x, y), kind=kLoop, calls=fused
}
)");
  EXPECT_EQ(r.fallbacks, 0);
  EXPECT_EQ(r.kernels, 1);
}

TEST(CpuDataMovementTest, GatherWithIndexVectorInTheMiddle) {
  std::vector<Literal> args;
  args.push_back(MakeInput(Shape::Array(F32, {5, 7, 3}), 5));
  Literal idx(Shape::Array(S32, {2, 2, 3}));
  std::vector<int32_t> values = {0, 1, 4, 6, 2, 5, -3, 9, 3, 0, 1, 2};
  std::memcpy(idx.untyped_data(), values.data(), values.size() * 4);
  args.push_back(std::move(idx));
  RunResult r = CheckAgainstEvaluator(R"(
HloModule gather
ENTRY main {
  x = f32[5,7,3] parameter(0)
  i = s32[2,2,3] parameter(1)
  ROOT g = f32[2,3,2,3] gather(x, i), offset_dims={1,2}, collapsed_slice_dims={2}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={3,2,1}
}
)",
                                      std::move(args), {0, 0});
  EXPECT_EQ(r.fallbacks, 0);
}

// --- Parallel loops, multi-output loop fusion, fallback
// ------------------------------

TEST(CpuParallelTest, LargeLoopAndReductionsRunOnThreads) {
  RunResult r = CheckAgainstEvaluator(absl::StrCat("HloModule big\n", kAdd, R"(
fused {
  x = f32[512,300] parameter(0)
  y = f32[300] parameter(1)
  yb = f32[512,300] broadcast(y), dimensions={1}
  a = f32[512,300] add(x, yb)
  t = f32[300,512] transpose(a), dimensions={1,0}
  ROOT r = (f32[512,300], f32[300,512]) tuple(a, t)
}
ENTRY main {
  x = f32[512,300] parameter(0)
  y = f32[300] parameter(1)
  f = (f32[512,300], f32[300,512]) fusion(x, y), kind=kLoop, calls=fused
  a = f32[512,300] get-tuple-element(f), index=0
  zero = f32[] constant(0)
  row = f32[512] reduce(a, zero), dimensions={1}, to_apply=add
  col = f32[300] reduce(a, zero), dimensions={0}, to_apply=add
  big = f32[40000] parameter(2)
  ex = f32[40000] exponential(big)
  ROOT t = (f32[512], f32[300], (f32[512,300], f32[300,512]), f32[40000]) tuple(row, col, f, ex)
}
)"),
                                      {}, {1e-4, 1e-3});
  EXPECT_EQ(r.fallbacks, 0);
  EXPECT_EQ(r.kernels, 4);
}

TEST(CpuFallbackTest, UnsupportedOpsRunInTheEvaluatorVisibly) {
  RunResult r = CheckAgainstEvaluator(R"(
HloModule with_rng_bit_generator
ENTRY main {
  s = u64[2] parameter(0)
  r = (u64[2], u32[8,3]) rng-bit-generator(s), algorithm=rng_three_fry
  v = u32[8,3] get-tuple-element(r), index=1
  ROOT e = u32[8,3] add(v, v)
}
)",
                                      {}, {1e-5, 1e-5});
  EXPECT_EQ(r.fallbacks, 1);
  EXPECT_EQ(r.kernels, 1);
}

// --- Vector code
// ------------------------------------------------------------------

// The CPU is pinned (target_cpu.h) so these check the same code on every
// host: AVX2 vectors of 8 floats in ymm, AVX-512 vectors of 16 in zmm.
struct VectorCpu {
  const char* cpu;
  const char* lanes;
  const char* reg;
};
constexpr VectorCpu kVectorCpus[] = {{"x86-64-v3", "8", "%ymm"},
                                     {"znver4", "16", "%zmm"}};

TEST(CpuVectorizationTest, FusedElementwiseLoopUsesPackedVectorInstructions) {
  auto module = ParseHloModule(R"(
HloModule vec
fused {
  x = f32[64,1024] parameter(0)
  y = f32[64,1024] parameter(1)
  m = f32[64,1024] multiply(x, y)
  ROOT a = f32[64,1024] add(m, x)
}
ENTRY main {
  p0 = f32[64,1024] parameter(0)
  p1 = f32[64,1024] parameter(1)
  ROOT f = f32[64,1024] fusion(p0, p1), kind=kLoop, calls=fused
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  for (const VectorCpu& target : kVectorCpus) {
    CpuCompileOptions options;
    options.jit.cpu = target.cpu;
    options.jit.keep_ir = true;
    options.jit.keep_asm = true;
    auto executable = CompileForCpu(**module, options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    const std::string& ir = (*executable)->optimized_ir();
    const std::string& asm_text = (*executable)->assembly();
    EXPECT_NE(ir.find(absl::StrCat("fmul <", target.lanes, " x float>")),
              std::string::npos)
        << target.cpu << "\n"
        << ir;
    // x * y + x: one packed fused multiply-add, contracted as XLA:CPU
    // contracts it (jit.h SetCpuTargetOptions).
    EXPECT_NE(asm_text.find("vfmadd"), std::string::npos) << target.cpu;
    EXPECT_NE(asm_text.find(target.reg), std::string::npos)
        << target.cpu << "\n"
        << asm_text;
  }
}

// A multiply feeding an add rounds once where the CPU has fused
// multiply-adds, as in XLA:CPU's code: (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24
// with the product kept exact, 0 with it rounded to f32 first (a tie to
// even). An escape-time loop iterating z * z + c amplified that last bit
// into escape counts that differed from XLA's.
TEST(CpuFmaTest, MultiplyAddRoundsOnceWhereTheCpuHasFma) {
  auto module = ParseHloModule(R"(
HloModule fma
fused {
  x = f32[16] parameter(0)
  y = f32[16] parameter(1)
  z = f32[16] parameter(2)
  m = f32[16] multiply(x, y)
  ROOT a = f32[16] add(m, z)
}
ENTRY main {
  p0 = f32[16] parameter(0)
  p1 = f32[16] parameter(1)
  p2 = f32[16] parameter(2)
  ROOT f = f32[16] fusion(p0, p1, p2), kind=kLoop, calls=fused
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  const float x = 1.0f + std::ldexp(1.0f, -12);
  const float z = -(1.0f + std::ldexp(1.0f, -11));
  std::vector<Literal> args;
  args.push_back(R1<float>(F32, std::vector<float>(16, x)));
  args.push_back(R1<float>(F32, std::vector<float>(16, x)));
  args.push_back(R1<float>(F32, std::vector<float>(16, z)));
  absl::StatusOr<TargetCpu> cpu = ResolveTargetCpu();
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  auto executable = CompileForCpu(**module, {});
  ASSERT_TRUE(executable.ok()) << executable.status();
  absl::StatusOr<Literal> out = (*executable)->Run(args, DenormalMode::kKeep);
  ASSERT_TRUE(out.ok()) << out.status();
  const float want = cpu->Has("fma") ? std::ldexp(1.0f, -24) : 0.0f;
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(out->data<float>()[i], want) << cpu->name << " element " << i;
  }

  // Without contraction both round, as the evaluator computes them.
  CpuCompileOptions strict;
  strict.jit.contract_multiply_add = false;
  auto rounded_twice = CompileForCpu(**module, strict);
  ASSERT_TRUE(rounded_twice.ok()) << rounded_twice.status();
  out = (*rounded_twice)->Run(args, DenormalMode::kKeep);
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(out->data<float>()[i], 0.0f) << cpu->name << " element " << i;
  }
}

TEST(CpuVectorizationTest, RowReductionIsVectorized) {
  auto module = ParseHloModule(absl::StrCat("HloModule vecred\n", kAdd, R"(
ENTRY main {
  x = f32[64,1024] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[64] reduce(x, zero), dimensions={1}, to_apply=add
}
)"));
  ASSERT_TRUE(module.ok()) << module.status();
  for (const VectorCpu& target : kVectorCpus) {
    CpuCompileOptions options;
    options.jit.cpu = target.cpu;
    options.jit.keep_ir = true;
    auto executable = CompileForCpu(**module, options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    const std::string& ir = (*executable)->optimized_ir();
    EXPECT_NE(
        ir.find(absl::StrCat("fadd reassoc <", target.lanes, " x float>")),
        std::string::npos)
        << target.cpu << "\n"
        << ir;
  }
}

}  // namespace
}  // namespace hloc

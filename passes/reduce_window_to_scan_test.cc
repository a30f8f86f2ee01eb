// reduce-window-to-scan keeps results: the reference evaluator gives the
// same outputs before and after the pass on small cumulative ops (every
// reducer opcode, forward and reverse, each axis of a rank-3 array, inits
// other than the identity). Inputs are small integers and powers of two,
// so even the reassociated float sums and products of the reverse scans
// are exact and the comparison is exact.
#include "passes/reduce_window_to_scan.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

struct Case {
  std::string name;
  std::string type;  // "f32" or "s32"
  std::string dims;  // "3,5"
  std::string window;
  std::string op;  // add, multiply, maximum, minimum, and, or
  std::string init;
};

std::string ModuleFor(const Case& c) {
  return absl::StrCat("HloModule ", c.name, "\n\nreducer {\n  a = ", c.type,
                      "[] parameter(0)\n  b = ", c.type,
                      "[] parameter(1)\n  ROOT r = ", c.type, "[] ", c.op,
                      "(a, b)\n}\n\nENTRY main {\n  x = ", c.type, "[", c.dims,
                      "] parameter(0)\n  init = ", c.type, "[] constant(",
                      c.init, ")\n  ROOT rw = ", c.type, "[", c.dims,
                      "] reduce-window(x, init), window={", c.window,
                      "}, to_apply=reducer\n}\n");
}

// Deterministic inputs: floats from {-2, -1, -0.5, 0.5, 1, 2} (exact
// products and sums), integers from -7..7.
Literal MakeInput(const Shape& shape) {
  const int64_t n = shape.ElementCount();
  if (shape.element_type() == F32) {
    static constexpr float kValues[] = {-2.0f, -1.0f, -0.5f, 0.5f, 1.0f, 2.0f};
    std::vector<float> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = kValues[(i * 7 + 3) % 6];
    return Literal::FromVector<float>(shape, v);
  }
  std::vector<int32_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>((i * 5) % 15) - 7;
  return Literal::FromVector<int32_t>(shape, v);
}

class ReduceWindowToScanTest : public testing::TestWithParam<Case> {};

TEST_P(ReduceWindowToScanTest, SameResultsAsTheReduceWindow) {
  const Case& c = GetParam();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(ModuleFor(c));
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> inputs;
  inputs.push_back(MakeInput(
      (*module)->entry_computation()->parameter_instruction(0)->shape()));
  absl::StatusOr<Literal> before = EvaluateModule(**module, inputs);
  ASSERT_TRUE(before.ok()) << before.status();

  ReduceWindowToScan pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  ASSERT_TRUE(*changed) << ModuleText(**module);
  EXPECT_EQ(
      (*module)->entry_computation()->root_instruction()->operand(0)->opcode(),
      HloOpcode::kScan)
      << ModuleText(**module);

  absl::StatusOr<Literal> after = EvaluateModule(**module, inputs);
  ASSERT_TRUE(after.ok()) << after.status() << "\n" << ModuleText(**module);
  EXPECT_TRUE(*after == *before) << ModuleText(**module);
}

INSTANTIATE_TEST_SUITE_P(
    Cumulative, ReduceWindowToScanTest,
    testing::Values(
        Case{"cumsum_rows", "f32", "3,5", "size=1x5 pad=0_0x4_0", "add", "0"},
        Case{"cumsum_init", "f32", "3,5", "size=1x5 pad=0_0x4_0", "add", "1.5"},
        Case{"cumsum_axis0", "f32", "6,2", "size=6x1 pad=5_0x0_0", "add", "0"},
        Case{"reverse_cumsum", "f32", "3,5", "size=1x5 pad=0_0x0_4", "add",
             "0"},
        Case{"cumprod", "f32", "2,9", "size=1x9 pad=0_0x8_0", "multiply", "1"},
        Case{"reverse_cumprod_axis0", "f32", "9,2", "size=9x1 pad=0_8x0_0",
             "multiply", "2"},
        Case{"cummax", "f32", "4,7", "size=1x7 pad=0_0x6_0", "maximum", "-inf"},
        Case{"cummin_init", "s32", "4,7", "size=1x7 pad=0_0x6_0", "minimum",
             "3"},
        Case{"cumand", "s32", "2,6", "size=1x6 pad=0_0x5_0", "and", "-1"},
        Case{"reverse_cumor", "s32", "2,6", "size=1x6 pad=0_0x0_5", "or", "0"},
        Case{"cumsum_middle", "s32", "2,5,3", "size=1x5x1 pad=0_0x4_0x0_0",
             "add", "0"},
        Case{"cumsum_vector", "f32", "2", "size=2 pad=1_0", "add", "0"}),
    [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

// A reducer of several elementwise instructions and a constant (the
// log-add-exp of lax.cumlogsumexp, with a constant folded in to check that
// constants become broadcasts in the body) becomes a scan too, the carry
// as its first operand, not marked associative: it folds in the
// reduce-window's order, so the results are the same bits. The same
// reducer over a reverse window stays a reduce-window.
constexpr char kLogAddExpModule[] = R"(
HloModule cumlogsumexp
logaddexp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  d = f32[] subtract(a, b)
  nan = pred[] compare(d, d), direction=NE
  sum = f32[] add(a, b)
  m = f32[] maximum(a, b)
  ad = f32[] abs(d)
  nd = f32[] negate(ad)
  e = f32[] exponential(nd)
  l = f32[] log-plus-one(e)
  zero = f32[] constant(0)
  l0 = f32[] add(l, zero)
  r = f32[] add(m, l0)
  ROOT s = f32[] select(nan, sum, r)
}
ENTRY main {
  x = f32[3,7] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT rw = f32[3,7] reduce-window(x, ninf), window={size=1x7 pad=0_0x6_0}, to_apply=logaddexp
})";

TEST(ReduceWindowToScanReducerTest, ElementwiseReducerBecomesAScan) {
  auto module = ParseAndVerify(kLogAddExpModule);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> inputs = {MakeInput(Shape::Array(F32, {3, 7}))};
  absl::StatusOr<Literal> before = EvaluateModule(**module, inputs);
  ASSERT_TRUE(before.ok()) << before.status();
  ReduceWindowToScan pass;
  ASSERT_TRUE(RunAndVerify(pass, module->get()).value_or(false));
  const std::string text = ModuleText(**module);
  EXPECT_EQ(text.find("reduce-window"), std::string::npos) << text;
  EXPECT_EQ(text.find("is_associative"), std::string::npos) << text;
  // Two broadcasts: the carry's init, and the reducer's constant in the body.
  int broadcasts = 0;
  for (size_t at = text.find(" broadcast("); at != std::string::npos;
       at = text.find(" broadcast(", at + 1)) {
    ++broadcasts;
  }
  EXPECT_EQ(broadcasts, 2) << text;
  absl::StatusOr<Literal> after = EvaluateModule(**module, inputs);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(*after == *before) << text;

  auto reverse = ParseAndVerify(
      absl::StrReplaceAll(kLogAddExpModule, {{"pad=0_0x6_0", "pad=0_0x0_6"}}));
  ASSERT_TRUE(reverse.ok()) << reverse.status();
  EXPECT_FALSE(RunAndVerify(pass, reverse->get()).value_or(true));
}

// lax.cumlogsumexp's own reducer, as JAX writes it (no constant in it),
// is log-add-exp (hlo/reducer_patterns.h): associative in real arithmetic,
// so its reverse windows become reverse scans marked associative, which
// give the windows' results up to rounding (a reverse cumlogsumexp of
// 20000 took the cpu 8 s as windows).
TEST(ReduceWindowToScanReducerTest, ReverseCumLogSumExpBecomesAReverseScan) {
  const std::string jax_form = absl::StrReplaceAll(
      kLogAddExpModule,
      {{"  zero = f32[] constant(0)\n  l0 = f32[] add(l, zero)\n", ""},
       {"add(m, l0)", "add(m, l)"},
       {"pad=0_0x6_0", "pad=0_0x0_6"}});
  auto module = ParseAndVerify(jax_form);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<Literal> inputs = {MakeInput(Shape::Array(F32, {3, 7}))};
  absl::StatusOr<Literal> before = EvaluateModule(**module, inputs);
  ASSERT_TRUE(before.ok()) << before.status();
  ReduceWindowToScan pass;
  ASSERT_TRUE(RunAndVerify(pass, module->get()).value_or(false));
  const std::string text = ModuleText(**module);
  EXPECT_EQ(text.find("reduce-window"), std::string::npos) << text;
  EXPECT_NE(text.find("is_reverse=true"), std::string::npos) << text;
  EXPECT_NE(text.find("is_associative=true"), std::string::npos) << text;
  absl::StatusOr<Literal> after = EvaluateModule(**module, inputs);
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_EQ(after->element_count(), before->element_count());
  for (int64_t i = 0; i < after->element_count(); ++i) {
    const double want = before->GetAsDouble(i);
    EXPECT_NEAR(after->GetAsDouble(i), want, 1e-6 * (1 + std::fabs(want))) << i;
  }
}

// bf16 and f16 sums are scanned in f32 where the pipeline allows excess
// precision, each output rounded once: folded in bf16, a cumulative sum of
// ones stops at 256 (XLA:CPU's blocked scans reach 1000). Maxima keep
// their type (exact either way), and so does everything without the
// option.
TEST(ReduceWindowToScanReducerTest, NarrowSumsAreScannedInF32) {
  constexpr char kNarrow[] = R"(
HloModule narrow
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT r = bf16[] add(a, b)
}
max {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT r = bf16[] maximum(a, b)
}
ENTRY main {
  x = bf16[1000] parameter(0)
  zero = bf16[] constant(0)
  sum = bf16[1000] reduce-window(x, zero), window={size=1000 pad=999_0}, to_apply=add
  rev = bf16[1000] reduce-window(x, zero), window={size=1000 pad=0_999}, to_apply=add
  ninf = bf16[] constant(-inf)
  m = bf16[1000] reduce-window(x, ninf), window={size=1000 pad=999_0}, to_apply=max
  ROOT t = (bf16[1000], bf16[1000], bf16[1000]) tuple(sum, rev, m)
})";
  for (bool widen : {false, true}) {
    SCOPED_TRACE(widen);
    auto module = ParseAndVerify(kNarrow);
    ASSERT_TRUE(module.ok()) << module.status();
    ReduceWindowToScan pass(widen);
    ASSERT_TRUE(RunAndVerify(pass, module->get()).value_or(false));
    const std::string text = ModuleText(**module);
    // Two f32 scans (the sums) with the option, none without.
    int f32_scans = 0;
    for (size_t at = text.find("(f32[1000]{0}, f32[]) scan(");
         at != std::string::npos;
         at = text.find("(f32[1000]{0}, f32[]) scan(", at + 1)) {
      ++f32_scans;
    }
    EXPECT_EQ(f32_scans, widen ? 2 : 0) << text;
    Literal ones(Shape::Array(BF16, {1000}));
    for (int64_t i = 0; i < 1000; ++i) ones.SetFromDouble(i, 1.0);
    absl::StatusOr<Literal> out = EvaluateModule(**module, {ones});
    ASSERT_TRUE(out.ok()) << out.status();
    const double sum_end = out->tuple_elements()[0].GetAsDouble(999);
    const double rev_start = out->tuple_elements()[1].GetAsDouble(0);
    EXPECT_EQ(sum_end, widen ? 1000.0 : 256.0);
    EXPECT_EQ(rev_start, widen ? 1000.0 : 256.0);
    EXPECT_EQ(out->tuple_elements()[2].GetAsDouble(999), 1.0);
  }
}

// A cumulative op on a column-major array keeps its layout through the
// rewrite (the scan's result is the reduce-window's value as its users
// read it), widened or not. The rewrite once made the result row-major
// under the column-major tuple that held it (wave_simt_test's
// split_column_scans).
TEST(ReduceWindowToScanReducerTest, ResultsKeepTheirLayout) {
  constexpr char kColumnMajor[] = R"(
HloModule column_major
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
addb {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT r = bf16[] add(a, b)
}
ENTRY main {
  t = f32[4,6]{0,1} parameter(0)
  tb = bf16[4,6]{0,1} parameter(1)
  zero = f32[] constant(0)
  zerob = bf16[] constant(0)
  major = f32[4,6]{0,1} reduce-window(t, zero), window={size=1x6 pad=0_0x5_0}, to_apply=add
  majorb = bf16[4,6]{0,1} reduce-window(tb, zerob), window={size=1x6 pad=0_0x5_0}, to_apply=addb
  ROOT out = (f32[4,6]{0,1}, bf16[4,6]{0,1}) tuple(major, majorb)
})";
  auto module = ParseAndVerify(kColumnMajor);
  ASSERT_TRUE(module.ok()) << module.status();
  Literal t(Shape::ArrayWithLayout(F32, {4, 6}, {0, 1}));
  Literal tb(Shape::ArrayWithLayout(BF16, {4, 6}, {0, 1}));
  for (int64_t i = 0; i < 24; ++i) {
    t.SetFromDouble(i, static_cast<double>(i % 5) - 2);
    tb.SetFromDouble(i, static_cast<double>(i % 3) - 1);
  }
  absl::StatusOr<Literal> before = EvaluateModule(**module, {t, tb});
  ASSERT_TRUE(before.ok()) << before.status();
  ReduceWindowToScan pass(/*widen_narrow_sums=*/true);
  ASSERT_TRUE(RunAndVerify(pass, module->get()).value_or(false));
  const std::string text = ModuleText(**module);
  for (const HloInstruction* instr :
       (*module)->entry_computation()->instructions()) {
    if (instr->opcode() != HloOpcode::kScan) continue;
    EXPECT_EQ(instr->shape().tuple_shapes(0).layout().minor_to_major,
              (std::vector<int64_t>{0, 1}))
        << text;
  }
  absl::StatusOr<Literal> after = EvaluateModule(**module, {t, tb});
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(*after == *before) << text;
}

}  // namespace
}  // namespace hloc

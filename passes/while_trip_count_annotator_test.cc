// Trip counts (hlo/while_trip_count.h) against the loops' real runs: each
// test loop also counts its own body runs in a second state element, which
// the evaluator computes; a count the analysis gives must be that number.
// Random counters in 8-bit types (wrapping within a few hundred runs) are
// checked against a direct simulation of the counter in its type. Then the
// annotator pass: it writes XLA's backend_config, and drops a count it
// cannot prove.
#include "passes/while_trip_count_annotator.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/while_trip_count.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

// A loop with state (counter, runs, bound): the counter starts at `init`
// and the body applies `step_op` (add or subtract) with `step`; the
// condition is `condition`, in which `i` is the counter and `n` the bound
// (`bound` a literal, or "state" for the state's third element, which
// starts at `bound_init`). The module returns the body's runs.
struct Loop {
  std::string type = "s32";
  std::string init = "0";
  std::string step = "1";
  std::string step_op = "add";
  std::string condition = "compare(i, n), direction=LT";
  std::string bound = "10";
  std::string bound_init = "10";
};

std::string LoopText(const Loop& l) {
  const std::string t = l.type;
  const std::string state = absl::StrCat("(", t, "[], s32[], ", t, "[])");
  const std::string n =
      l.bound == "state"
          ? absl::StrCat("  n = ", t, "[] get-tuple-element(p), index=2\n")
          : absl::StrCat("  n = ", t, "[] constant(", l.bound, ")\n");
  return absl::StrCat(
      "HloModule m\n\ncond {\n  p = ", state, " parameter(0)\n  i = ", t,
      "[] get-tuple-element(p), index=0\n", n, "  ROOT c = pred[] ",
      l.condition, "\n}\n\nbody {\n  p = ", state, " parameter(0)\n  i = ", t,
      "[] get-tuple-element(p), index=0\n  s = ", t, "[] constant(", l.step,
      ")\n  next = ", t, "[] ", l.step_op,
      "(i, s)\n  runs = s32[] "
      "get-tuple-element(p), index=1\n  one = s32[] constant(1)\n  more = "
      "s32[] add(runs, one)\n  bound = ",
      t, "[] get-tuple-element(p), index=2\n  ROOT r = ", state,
      " tuple(next, more, bound)\n}\n\nENTRY e {\n  a = ", t, "[] constant(",
      l.init, ")\n  z = s32[] constant(0)\n  b = ", t, "[] constant(",
      l.bound_init, ")\n  t = ", state, " tuple(a, z, b)\n  w = ", state,
      " while(t), condition=cond, body=body\n  ROOT runs = s32[] "
      "get-tuple-element(w), index=1\n}\n");
}

// The analysis' count of the module's loop "w", and the evaluator's runs.
void CountAndRun(const Loop& l, std::optional<int64_t>* count, int64_t* runs) {
  const std::string text = LoopText(l);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
  *count = ComputeWhileTripCount(*FindInstruction(**module, "w"));
  if (runs == nullptr) return;
  absl::StatusOr<Literal> result = EvaluateModule(**module, {});
  ASSERT_TRUE(result.ok()) << result.status();
  *runs = result->GetAsInt64(0);
}

struct Counted {
  std::string name;
  Loop loop;
  int64_t runs;
};

class CountedLoopTest : public testing::TestWithParam<Counted> {};

TEST_P(CountedLoopTest, CountIsTheRuns) {
  const Counted& c = GetParam();
  std::optional<int64_t> count;
  int64_t runs = -1;
  CountAndRun(c.loop, &count, &runs);
  EXPECT_EQ(runs, c.runs) << LoopText(c.loop);
  ASSERT_TRUE(count.has_value()) << LoopText(c.loop);
  EXPECT_EQ(*count, runs) << LoopText(c.loop);
}

Loop With(std::string condition, std::string init, std::string step,
          std::string bound = "10") {
  Loop l;
  l.condition = std::move(condition);
  l.init = std::move(init);
  l.step = std::move(step);
  l.bound = bound;
  l.bound_init = bound;
  return l;
}

std::vector<Counted> CountedLoops() {
  std::vector<Counted> cases = {
      {"scan", With("compare(i, n), direction=LT", "0", "1"), 10},
      {"bound_first", With("compare(n, i), direction=GT", "0", "1"), 10},
      {"le", With("compare(i, n), direction=LE", "0", "1"), 11},
      {"stride3", With("compare(i, n), direction=LT", "0", "3"), 4},
      {"stride5_exact", With("compare(i, n), direction=LT", "0", "5"), 2},
      {"ne", With("compare(i, n), direction=NE", "0", "2"), 5},
      {"down_gt", With("compare(i, n), direction=GT", "10", "-1", "0"), 10},
      {"down_ge", With("compare(i, n), direction=GE", "10", "-3", "0"), 4},
      {"false_at_init", With("compare(i, n), direction=LT", "12", "-1"), 0},
      {"eq_once", With("compare(i, n), direction=EQ", "10", "1"), 1},
      {"negative_start", With("compare(i, n), direction=LT", "-7", "2"), 9},
  };
  Loop sub = With("compare(i, n), direction=GT", "9", "2", "0");
  sub.step_op = "subtract";
  cases.push_back({"subtract", sub, 5});
  Loop state = With("compare(i, n), direction=LT", "0", "1", "state");
  state.bound_init = "7";
  cases.push_back({"bound_in_state", state, 7});
  // Up to the type's last value: 120, 121, ..., 127 and then the bound
  // check fails before anything wraps.
  Loop top = With("compare(i, n), direction=LE", "120", "1", "126");
  top.type = "s8";
  cases.push_back({"s8_near_top", top, 7});
  Loop u = With("compare(i, n), direction=GT", "5", "255", "0");
  u.type = "u8";  // adding 255 to a u8 is subtracting 1
  cases.push_back({"u8_wrapping_step", u, 5});
  Loop big =
      With("compare(i, n), direction=LT", "4000000000", "1", "4000000003");
  big.type = "u32";
  cases.push_back({"u32_above_s32", big, 3});
  Loop wide =
      With("compare(i, n), direction=LT", "-5000000000", "1", "-4999999990");
  wide.type = "s64";
  cases.push_back({"s64", wide, 10});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Loops, CountedLoopTest,
                         testing::ValuesIn(CountedLoops()),
                         [](const testing::TestParamInfo<Counted>& info) {
                           return info.param.name;
                         });

// Loops whose count the analysis must not give: it would be wrong, or the
// loop is not a counted one.
// control-flow-layout rebuilds a loop's init tuple from the elements of
// the one it had (get-tuple-elements of a tuple): the count looks through
// them to the constant.
TEST(WhileTripCountTest, CountsThroughARenamedInitTuple) {
  Loop l = With("compare(i, n), direction=LT", "2", "3", "state");
  l.bound_init = "14";
  const std::string state = "(s32[], s32[], s32[])";
  const std::string text = absl::StrReplaceAll(
      LoopText(l),
      {{absl::StrCat("  t = ", state, " tuple(a, z, b)\n"),
        absl::StrCat("  t0 = ", state,
                     " tuple(a, z, b)\n"
                     "  g0 = s32[] get-tuple-element(t0), index=0\n"
                     "  g1 = s32[] get-tuple-element(t0), index=1\n"
                     "  g2 = s32[] get-tuple-element(t0), index=2\n"
                     "  t = ",
                     state, " tuple(g0, g1, g2)\n")}});
  ASSERT_NE(text.find("g2"), std::string::npos) << text;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
  absl::StatusOr<Literal> runs = EvaluateModule(**module, {});
  ASSERT_TRUE(runs.ok()) << runs.status();
  EXPECT_EQ(runs->GetAsInt64(0), 4);  // 2, 5, 8, 11
  EXPECT_EQ(ComputeWhileTripCount(*FindInstruction(**module, "w")),
            std::optional<int64_t>(4));
}

TEST(WhileTripCountTest, UncountedLoops) {
  std::vector<Loop> loops;
  // Wraps: an s8 counter from 100 by 10 goes 120 -> -126, and i <= 127
  // always holds.
  Loop wraps = With("compare(i, n), direction=LE", "100", "10", "127");
  wraps.type = "s8";
  loops.push_back(wraps);
  // Steps away from the bound, never equal to it, never moving.
  loops.push_back(With("compare(i, n), direction=LT", "0", "-1"));
  loops.push_back(With("compare(i, n), direction=NE", "0", "3"));
  loops.push_back(With("compare(i, n), direction=LT", "0", "0"));
  // Not a plain compare of the counter.
  Loop neg = With("compare(i, n), direction=LT", "0", "1");
  neg.condition = "compare(i, i), direction=LT";
  loops.push_back(neg);
  for (const Loop& l : loops) {
    std::optional<int64_t> count;
    CountAndRun(l, &count, nullptr);
    EXPECT_FALSE(count.has_value()) << *count << "\n" << LoopText(l);
  }
}

// The body changes the bound, the counter starts from a parameter, or the
// step is no constant: no count.
TEST(WhileTripCountTest, CounterOrBoundNotFixed) {
  const std::string cond =
      "cond {\n  p = (s32[], s32[]) parameter(0)\n  i = s32[] "
      "get-tuple-element(p), index=0\n  n = s32[] get-tuple-element(p), "
      "index=1\n  ROOT c = pred[] compare(i, n), direction=LT\n}\n\n";
  const std::string entry_const =
      "ENTRY e {\n  a = s32[] constant(0)\n  b = s32[] constant(10)\n  t = "
      "(s32[], s32[]) tuple(a, b)\n  ROOT w = (s32[], s32[]) while(t), "
      "condition=cond, body=body\n}\n";
  const std::vector<std::string> modules = {
      // The bound moves.
      absl::StrCat(
          "HloModule m\n\n", cond,
          "body {\n  p = (s32[], s32[]) parameter(0)\n  i = s32[] "
          "get-tuple-element(p), index=0\n  n = s32[] get-tuple-element(p), "
          "index=1\n  one = s32[] constant(1)\n  x = s32[] add(i, one)\n  y "
          "= s32[] add(n, one)\n  ROOT r = (s32[], s32[]) tuple(x, y)\n}\n\n",
          entry_const),
      // The step is the bound, not a constant.
      absl::StrCat(
          "HloModule m\n\n", cond,
          "body {\n  p = (s32[], s32[]) parameter(0)\n  i = s32[] "
          "get-tuple-element(p), index=0\n  n = s32[] get-tuple-element(p), "
          "index=1\n  x = s32[] add(i, n)\n  ROOT r = (s32[], s32[]) "
          "tuple(x, n)\n}\n\n",
          entry_const),
      // The counter starts from a parameter.
      absl::StrCat(
          "HloModule m\n\n", cond,
          "body {\n  p = (s32[], s32[]) parameter(0)\n  i = s32[] "
          "get-tuple-element(p), index=0\n  n = s32[] get-tuple-element(p), "
          "index=1\n  one = s32[] constant(1)\n  x = s32[] add(i, one)\n  "
          "ROOT r = (s32[], s32[]) tuple(x, n)\n}\n\n",
          "ENTRY e {\n  a = s32[] parameter(0)\n  b = s32[] constant(10)\n  "
          "t = (s32[], s32[]) tuple(a, b)\n  ROOT w = (s32[], s32[]) "
          "while(t), condition=cond, body=body\n}\n"),
  };
  for (const std::string& text : modules) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
    ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
    EXPECT_FALSE(
        ComputeWhileTripCount(*FindInstruction(**module, "w")).has_value())
        << text;
  }
}

// The counter of `l` stepped in its own type (two's-complement wrap) until
// the condition fails; nullopt if it has not after `cap` runs.
std::optional<int64_t> Simulate(int bits, bool is_signed, int64_t a, int64_t n,
                                int64_t s, const std::string& d, int64_t cap) {
  auto wrap = [&](int64_t v) {
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    uint64_t u = static_cast<uint64_t>(v) & mask;
    if (is_signed && (u >> (bits - 1)) != 0) {
      return static_cast<int64_t>(u) - (int64_t{1} << bits);
    }
    return static_cast<int64_t>(u);
  };
  int64_t i = wrap(a);
  for (int64_t runs = 0; runs <= cap; ++runs) {
    const bool holds = d == "LT"   ? i < n
                       : d == "LE" ? i <= n
                       : d == "GT" ? i > n
                       : d == "GE" ? i >= n
                       : d == "EQ" ? i == n
                                   : i != n;
    if (!holds) return runs;
    i = wrap(i + s);
  }
  return std::nullopt;
}

// Random 8-bit counters: wherever the analysis gives a count, the counter
// stepped in its type stops after exactly that many runs; and it gives one
// for most loops that stop without wrapping.
TEST(WhileTripCountTest, RandomEightBitCountersAgreeWithSimulation) {
  std::mt19937 rng(20261204);
  const std::vector<std::string> directions = {"LT", "LE", "GT",
                                               "GE", "EQ", "NE"};
  int counted = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const bool is_signed = trial % 2 == 0;
    const int64_t lo = is_signed ? -128 : 0;
    auto value = [&] { return lo + static_cast<int64_t>(rng() % 256); };
    Loop l;
    l.type = is_signed ? "s8" : "u8";
    const int64_t a = value(), n = value();
    // Small steps mostly, so that many loops end before wrapping.
    int64_t s = static_cast<int64_t>(rng() % 9) - 4;
    if (rng() % 4 == 0) s = value();
    if (!is_signed && s < 0) s += 256;
    const std::string d = directions[rng() % directions.size()];
    l.init = absl::StrCat(a);
    l.bound = l.bound_init = absl::StrCat(n);
    l.step = absl::StrCat(s);
    l.condition = absl::StrCat("compare(i, n), direction=", d);
    std::optional<int64_t> count;
    CountAndRun(l, &count, nullptr);
    const std::optional<int64_t> runs =
        Simulate(8, is_signed, a, n, s, d, /*cap=*/1000);
    if (count.has_value()) {
      ++counted;
      ASSERT_TRUE(runs.has_value()) << *count << "\n" << LoopText(l);
      EXPECT_EQ(*count, *runs) << LoopText(l);
    }
  }
  // Not a vacuous check: well over a third of the loops are counted.
  EXPECT_GT(counted, 200);
}

TEST(WhileTripCountTest, BackendConfigRoundTrip) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(LoopText(Loop()));
  ASSERT_TRUE(module.ok()) << module.status();
  HloInstruction* w = FindInstruction(**module, "w");
  EXPECT_FALSE(KnownTripCount(*w).has_value());
  w->set_backend_config(KnownTripCountConfig(123456789012));
  EXPECT_EQ(w->backend_config(),
            "{\"known_trip_count\":{\"n\":\"123456789012\"}}");
  EXPECT_EQ(KnownTripCount(*w), 123456789012);
  w->set_backend_config("{ \"known_trip_count\" : { \"n\" : 7 } }");
  EXPECT_EQ(KnownTripCount(*w), 7);
  w->set_backend_config("{\"known_trip_count\":{\"n\":\"-3\"}}");
  EXPECT_FALSE(KnownTripCount(*w).has_value());
  w->set_backend_config("{\"known_trip_count\":{}}");
  EXPECT_FALSE(KnownTripCount(*w).has_value());
}

TEST(WhileTripCountAnnotatorTest, WritesProvedCountsAndDropsOthers) {
  Loop counted = With("compare(i, n), direction=LT", "0", "2");
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(LoopText(counted));
  ASSERT_TRUE(module.ok()) << module.status();
  WhileTripCountAnnotator pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  HloInstruction* w = FindInstruction(**module, "w");
  EXPECT_EQ(w->backend_config(), KnownTripCountConfig(5));
  changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);

  // A count the module came with but that cannot be proved goes.
  Loop uncounted = With("compare(i, n), direction=NE", "0", "3");
  module = ParseAndVerify(LoopText(uncounted));
  ASSERT_TRUE(module.ok()) << module.status();
  w = FindInstruction(**module, "w");
  w->set_backend_config(KnownTripCountConfig(4));
  changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(w->backend_config(), "");
}

}  // namespace
}  // namespace hloc

// sort-splitter keeps results bit for bit: the reference evaluator gives
// the same sorted arrays before and after the pass, on rows with many ties,
// both signed zeros, infinities and NaNs of both signs, with JAX's
// comparators (NaNs canonicalised, total order) ascending and descending,
// key/value sorts whose values show stability, a sort along a leading
// dimension (the transposes), and row lengths just past the limit, not a
// multiple of the chunk, and a multiple that is not a power of two. Small
// chunk lengths merge over many levels cheaply. After the pass no sort row
// is longer than the chunk.
#include "passes/sort_splitter.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

enum class Values {
  kNone,     // sort(x)
  kIota,     // sort(x, iota): argsort, stability visible
  kTiedS32,  // sort(x, y) with y an s32 parameter, compared by x only
};

enum class Order {
  kJaxAscending,   // JAX's comparator: NaNs made one NaN, -0 made +0
  kJaxDescending,  // the same, greater first
  kCalled,         // total order through a call (not elementwise: kMap)
};

struct Case {
  std::string name;
  std::vector<int64_t> dims;
  int64_t dim;
  Values values = Values::kNone;
  Order order = Order::kJaxAscending;
  int64_t chunk = SortSplitter::kGpuMaxRowLength;
  std::string layout;  // of the operands and results, e.g. "{0,1}"
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// JAX's comparator for jnp.sort of f32 (jax.numpy's _sort_lt_comparator):
// every NaN compares as one NaN and -0 as +0, then the total order.
std::string Comparator(const Case& c) {
  const bool with_values = c.values != Values::kNone;
  std::string params = with_values ? "  ai = s32[] parameter(2)\n"
                                     "  bi = s32[] parameter(3)\n"
                                   : "";
  if (c.order == Order::kCalled) {
    return absl::StrCat(
        "less {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
        "  ROOT lt = pred[] compare(x, y), direction=LT, type=TOTALORDER\n}\n\n"
        "cmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n",
        params, "  ROOT r = pred[] call(a, b), to_apply=less\n}\n\n");
  }
  const char* direction = c.order == Order::kJaxAscending ? "LT" : "GT";
  return absl::StrCat(
      "cmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n", params,
      "  nan = f32[] constant(nan)\n  zero = f32[] constant(0)\n"
      "  a_nan = pred[] compare(a, a), direction=NE\n"
      "  a_zero = pred[] compare(a, zero), direction=EQ\n"
      "  a0 = f32[] select(a_zero, zero, a)\n"
      "  ca = f32[] select(a_nan, nan, a0)\n"
      "  b_nan = pred[] compare(b, b), direction=NE\n"
      "  b_zero = pred[] compare(b, zero), direction=EQ\n"
      "  b0 = f32[] select(b_zero, zero, b)\n"
      "  cb = f32[] select(b_nan, nan, b0)\n"
      "  ROOT r = pred[] compare(ca, cb), direction=",
      direction, ", type=TOTALORDER\n}\n\n");
}

std::string ModuleFor(const Case& c) {
  const std::string dims =
      absl::StrCat("[", absl::StrJoin(c.dims, ","), "]", c.layout);
  const std::string f32 = absl::StrCat("f32", dims);
  const std::string s32 = absl::StrCat("s32", dims);
  std::string entry = absl::StrCat("  x = ", f32, " parameter(0)\n");
  std::string operands = "x";
  std::string result = f32;
  if (c.values == Values::kIota) {
    absl::StrAppend(&entry, "  y = ", s32, " iota(), iota_dimension=", c.dim,
                    "\n");
  } else if (c.values == Values::kTiedS32) {
    absl::StrAppend(&entry, "  y = ", s32, " parameter(1)\n");
  }
  if (c.values != Values::kNone) {
    operands = "x, y";
    result = absl::StrCat("(", f32, ", ", s32, ")");
  }
  return absl::StrCat("HloModule ", c.name, "\n\n", Comparator(c),
                      "ENTRY main {\n", entry, "  ROOT s = ", result, " sort(",
                      operands, "), dimensions={", c.dim,
                      "}, is_stable=true, to_apply=cmp\n}\n");
}

// The longest row any sort of the entry computation sorts.
int64_t LongestSortedRow(const HloModule& module) {
  int64_t longest = 0;
  for (const HloInstruction* instr :
       module.entry_computation()->instructions()) {
    if (instr->opcode() != HloOpcode::kSort) continue;
    longest = std::max(
        longest, instr->operand(0)->shape().dimensions(instr->dimensions(0)));
  }
  return longest;
}

class SortSplitterTest : public testing::TestWithParam<Case> {};

TEST_P(SortSplitterTest, SameResultAsTheSort) {
  const Case& c = GetParam();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(ModuleFor(c));
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << ModuleFor(c);
  std::vector<Literal> inputs;
  for (const HloInstruction* p :
       (*module)->entry_computation()->parameter_instructions()) {
    inputs.push_back(MakeTiedInput(p->shape(), 1 + p->parameter_number()));
  }
  absl::StatusOr<Literal> before = EvaluateModule(**module, inputs);
  ASSERT_TRUE(before.ok()) << before.status();

  SortSplitter pass(c.chunk);
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  ASSERT_TRUE(*changed) << ModuleText(**module);
  EXPECT_LE(LongestSortedRow(**module), c.chunk) << ModuleText(**module);
  // Every step is a sort (no elementwise comparator, no map); all but the
  // first sort bitonic rows: half-cleaner groups or chunks after them.
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kMap), 0);
  int sorts = 0;
  for (const HloInstruction* instr :
       (*module)->entry_computation()->MakeInstructionPostOrder()) {
    if (instr->opcode() != HloOpcode::kSort) continue;
    EXPECT_EQ(instr->backend_config() == kBitonicRowsBackendConfig, sorts > 0)
        << instr->name();
    ++sorts;
  }

  absl::StatusOr<Literal> after = EvaluateModule(**module, inputs);
  ASSERT_TRUE(after.ok()) << after.status() << "\n" << ModuleText(**module);
  EXPECT_TRUE(*after == *before);
}

std::vector<Case> Cases() {
  const Values kIota = Values::kIota;
  const Order kAscending = Order::kJaxAscending;
  const Order kDescending = Order::kJaxDescending;
  return {
      // The kernel's chunks of 8192.
      {"L8193", {8193}, 0},
      {"L20000", {20000}, 0},
      {"L3x8192_argsort", {3 * 8192}, 0, kIota},
      {"rows_2x20000_argsort", {2, 20000}, 1, kIota},
      {"rows_3x40000_argsort", {3, 40000}, 1, kIota},
      {"descending_20000", {20000}, 0, Values::kTiedS32, kDescending},
      {"axis0_20000x3", {20000, 3}, 0, kIota},
      // Small chunks: many merge levels.
      {"chunk64_L1000", {1000}, 0, kIota, kAscending, 64},
      {"chunk64_3x777x5_axis1", {3, 777, 5}, 1, kIota, kAscending, 64},
      {"chunk100_descending", {2, 3001}, 1, Values::kTiedS32, kDescending, 100},
      {"chunk16_L4096", {4096}, 0, kIota, kAscending, 16},
      {"chunk64_column_major", {700, 3}, 0, kIota, kAscending, 64, "{0,1}"},
      {"chunk64_map", {2, 1000}, 1, kIota, Order::kCalled, 64},
      {"chunk64_no_rows", {0, 1000}, 1, kIota, kAscending, 64},
  };
}

INSTANTIATE_TEST_SUITE_P(Split, SortSplitterTest, testing::ValuesIn(Cases()),
                         [](const testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

// Rows within the limit are left alone, however many there are.
TEST(SortSplitterTest, ShortRowsUntouched) {
  for (const Case& c : {Case{"short", {8192}, 0},
                        Case{"short_rows", {20000, 8}, 1, Values::kIota}}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseAndVerify(ModuleFor(c));
    ASSERT_TRUE(module.ok()) << module.status();
    SortSplitter pass;
    absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
    ASSERT_TRUE(changed.ok()) << changed.status();
    EXPECT_FALSE(*changed) << c.name;
  }
}

}  // namespace
}  // namespace hloc

// Scatter kernels against the evaluator: add (with duplicate and out of
// bounds indices) and overwrite, implicit and explicit index vectors,
// windows that do not fit, several operands with a tuple combiner,
// batching dimensions, layouts and index types. None may fall back.
//
// Large scatters run on all threads, each applying the updates that land in
// its range of the output ("owner computes"): they must be bit-identical
// to the evaluator and to the serial kernel, for non-commutative combiners
// and any number of threads, with many duplicate indices.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"

extern "C" {
int omp_get_max_threads();
void omp_set_num_threads(int);
}

namespace hloc {
namespace {

using testing_util::CheckAgainstEvaluator;
using testing_util::MakeOpInput;

// Indices in [lo, hi], duplicates likely, some out of bounds.
Literal Indices(const Shape& shape, int64_t lo, int64_t hi, uint32_t seed) {
  Literal literal(shape);
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < shape.ElementCount(); ++i) {
    literal.SetFromInt64(i,
                         std::uniform_int_distribution<int64_t>(lo, hi)(rng));
  }
  return literal;
}

Shape S(const std::string& text) {
  // "f32[3,4]" -> Shape (row-major).
  PrimitiveType type = F32;
  std::string name = text.substr(0, text.find('['));
  for (PrimitiveType t : {F32, S32, S64, U32, F16, U8}) {
    if (PrimitiveTypeName(t) == name) type = t;
  }
  std::vector<int64_t> dims;
  std::string inner = text.substr(text.find('[') + 1);
  inner = inner.substr(0, inner.find(']'));
  size_t pos = 0;
  while (pos < inner.size()) {
    size_t next = inner.find(',', pos);
    if (next == std::string::npos) next = inner.size();
    dims.push_back(std::stoll(inner.substr(pos, next - pos)));
    pos = next + 1;
  }
  return Shape::Array(type, dims);
}

// Index vectors: `rows` rows of per-component values in [lo[k], hi[k]];
// half the rows repeat one of `hot` rows, so duplicates are many.
Literal HotIndices(int64_t rows, const std::vector<int64_t>& lo,
                   const std::vector<int64_t>& hi, int64_t hot, uint32_t seed) {
  const int64_t width = lo.size();
  Literal literal(Shape::Array(S32, {rows, width}));
  std::mt19937 rng(seed);
  auto row = [&](std::vector<int64_t>* r) {
    for (int64_t k = 0; k < width; ++k) {
      (*r)[k] = std::uniform_int_distribution<int64_t>(lo[k], hi[k])(rng);
    }
  };
  std::vector<std::vector<int64_t>> hot_rows(hot, std::vector<int64_t>(width));
  for (auto& r : hot_rows) row(&r);
  std::vector<int64_t> r(width);
  for (int64_t i = 0; i < rows; ++i) {
    if (rng() & 1) {
      r = hot_rows[rng() % hot];
    } else {
      row(&r);
    }
    for (int64_t k = 0; k < width; ++k) {
      literal.SetFromInt64(i * width + k, r[k]);
    }
  }
  return literal;
}

// Integers in [-50, 50] (floats too: sums of them are exact).
Literal IntegerValued(const Shape& shape, uint32_t seed) {
  Literal literal(shape);
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < shape.ElementCount(); ++i) {
    literal.SetFromInt64(i, static_cast<int64_t>(rng() % 101) - 50);
  }
  return literal;
}

// Runs `text` in the evaluator, serially on the CPU, and in parallel on
// 1, 2, 3, 7 and the default number of OpenMP threads: every result must be
// bit-identical to the evaluator's.
void ExpectBitIdentical(const std::string& text,
                        const std::vector<Literal>& args) {
  auto module = ParseHloModule(text, "test");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  const int default_threads = omp_get_max_threads();
  for (bool parallel : {false, true}) {
    CpuCompileOptions options;
    options.codegen.parallel = parallel;
    auto executable = CompileForCpu(**module, options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    EXPECT_TRUE((*executable)->fallback_instructions().empty());
    std::vector<int> thread_counts = {default_threads};
    for (int t : {1, 2, 3, 7}) {
      if (parallel && t != default_threads) thread_counts.push_back(t);
    }
    for (int threads : thread_counts) {
      omp_set_num_threads(threads);
      absl::StatusOr<Literal> actual = (*executable)->Run(args);
      omp_set_num_threads(default_threads);
      ASSERT_TRUE(actual.ok()) << actual.status();
      EXPECT_TRUE(*actual == *expected) << (parallel ? "parallel" : "serial")
                                        << " on " << threads << " threads";
      if (*actual != *expected) {
        // The tolerance comparison prints the first mismatches.
        testing_util::CompareLeaves(*expected, *actual, (*module)->name());
      }
    }
  }
}

const char kAdd[] = R"(
add {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT c = $T[] add(a, b)
}
)";

TEST(ScatterTest, AddWithDuplicatesAndOutOfBounds) {
  const std::string text =
      absl::StrReplaceAll(std::string("HloModule scatter_add\n") + kAdd + R"(
ENTRY main {
  t = f32[100,8] parameter(0)
  i = s32[50,1] parameter(1)
  u = f32[50,8] parameter(2)
  ROOT s = f32[100,8] scatter(t, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)",
                          {{"$T", "f32"}});
  EXPECT_TRUE(CheckAgainstEvaluator(text, {MakeOpInput(S("f32[100,8]"), 1),
                                           Indices(S("s32[50,1]"), -3, 102, 2),
                                           MakeOpInput(S("f32[50,8]"), 3)})
                  .empty());
}

TEST(ScatterTest, OverwriteWithImplicitIndexVector) {
  EXPECT_TRUE(
      CheckAgainstEvaluator(
          R"(
HloModule scatter_set
set {
  a = s32[] parameter(0)
  ROOT b = s32[] parameter(1)
}
ENTRY main {
  t = s32[40] parameter(0)
  i = s64[30] parameter(1)
  u = s32[30] parameter(2)
  ROOT s = s32[40] scatter(t, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=set
}
)",
          {MakeOpInput(S("s32[40]"), 4), Indices(S("s64[30]"), -1, 41, 5),
           MakeOpInput(S("s32[30]"), 6)})
          .empty());
}

TEST(ScatterTest, WindowsThatDoNotFit) {
  // 3x4 windows at 2-D starts into a 10x12 operand; index_vector_dim 0; a
  // column-major operand.
  const std::string text = absl::StrReplaceAll(
      std::string("HloModule scatter_windows\n") + kAdd + R"(
ENTRY main {
  t = f32[10,12]{0,1} parameter(0)
  i = u32[2,6] parameter(1)
  u = f32[3,6,4] parameter(2)
  ROOT s = f32[10,12]{0,1} scatter(t, i, u), update_window_dims={0,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={1,0}, index_vector_dim=0, to_apply=add
}
)",
      {{"$T", "f32"}});
  EXPECT_TRUE(CheckAgainstEvaluator(text, {MakeOpInput(S("f32[10,12]"), 7),
                                           Indices(S("u32[2,6]"), 0, 11, 8),
                                           MakeOpInput(S("f32[3,6,4]"), 9)})
                  .empty());
}

TEST(ScatterTest, SeveralOperands) {
  EXPECT_TRUE(
      CheckAgainstEvaluator(
          R"(
HloModule scatter_pair
combine {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = s32[] parameter(3)
  m = f32[] maximum(a0, b0)
  s = s32[] add(a1, b1)
  ROOT r = (f32[], s32[]) tuple(m, s)
}
ENTRY main {
  t0 = f32[20,5] parameter(0)
  t1 = s32[20,5] parameter(1)
  i = s32[15,1] parameter(2)
  u0 = f32[15,5] parameter(3)
  u1 = s32[15,5] parameter(4)
  ROOT s = (f32[20,5], s32[20,5]) scatter(t0, t1, i, u0, u1), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
}
)",
          {MakeOpInput(S("f32[20,5]"), 10), MakeOpInput(S("s32[20,5]"), 11),
           Indices(S("s32[15,1]"), -1, 20, 12), MakeOpInput(S("f32[15,5]"), 13),
           MakeOpInput(S("s32[15,5]"), 14)})
          .empty());
}

TEST(ScatterTest, BatchingDimensions) {
  const std::string text = absl::StrReplaceAll(
      std::string("HloModule scatter_batching\n") + kAdd + R"(
ENTRY main {
  t = f32[3,10,4] parameter(0)
  i = s32[3,5,1] parameter(1)
  u = f32[3,5,4] parameter(2)
  ROOT s = f32[3,10,4] scatter(t, i, u), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=2, input_batching_dims={0}, scatter_indices_batching_dims={0}, to_apply=add
}
)",
      {{"$T", "f32"}});
  EXPECT_TRUE(CheckAgainstEvaluator(text, {MakeOpInput(S("f32[3,10,4]"), 15),
                                           Indices(S("s32[3,5,1]"), 0, 10, 16),
                                           MakeOpInput(S("f32[3,5,4]"), 17)})
                  .empty());
}

// 1M-element operand, 100k scalar updates, duplicates and out-of-bounds
// indices (both ends): add on exact (integer-valued) floats, a
// non-commutative, non-associative combiner a*2+b (u32, wrapping), the same
// with b/3 (not cheap: the kernel branches on ownership instead of applying
// strangers' updates to scratch) and "the update wins" (last writer).
TEST(ScatterTest, LargeScalarUpdates) {
  const int64_t kOperand = 1 << 20, kUpdates = 100000;
  const char kBody[] = R"(
ENTRY main {
  t = $T[1048576] parameter(0)
  i = s32[100000,1] parameter(1)
  u = $T[100000] parameter(2)
  ROOT s = $T[1048576] scatter(t, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
}
)";
  const std::string add = R"(HloModule scatter_large_add
combine {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT c = $T[] add(a, b)
}
)";
  const std::string twice_plus = R"(HloModule scatter_large_twice_plus
combine {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  two = $T[] constant(2)
  m = $T[] multiply(a, two)
  ROOT c = $T[] add(m, b)
}
)";
  // A divide: not a cheap combiner, so ownership is a branch.
  const std::string twice_plus_third = R"(HloModule scatter_large_third
combine {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  two = $T[] constant(2)
  three = $T[] constant(3)
  m = $T[] multiply(a, two)
  d = $T[] divide(b, three)
  ROOT c = $T[] add(m, d)
}
)";
  const std::string last = R"(HloModule scatter_large_last
combine {
  a = $T[] parameter(0)
  ROOT b = $T[] parameter(1)
}
)";
  Literal indices = HotIndices(kUpdates, {-8}, {kOperand + 8}, 64, 21);
  {
    SCOPED_TRACE("add");
    std::vector<Literal> args;
    args.push_back(IntegerValued(S("f32[1048576]"), 22));
    args.push_back(indices);
    args.push_back(IntegerValued(S("f32[100000]"), 23));
    ExpectBitIdentical(absl::StrReplaceAll(add + kBody, {{"$T", "f32"}}), args);
  }
  {
    SCOPED_TRACE("a*2+b");
    std::vector<Literal> args;
    args.push_back(MakeOpInput(S("u32[1048576]"), 24));
    args.push_back(indices);
    args.push_back(MakeOpInput(S("u32[100000]"), 25));
    ExpectBitIdentical(absl::StrReplaceAll(twice_plus + kBody, {{"$T", "u32"}}),
                       args);
  }
  {
    SCOPED_TRACE("a*2+b/3");
    std::vector<Literal> args;
    args.push_back(MakeOpInput(S("u32[1048576]"), 28));
    args.push_back(indices);
    args.push_back(MakeOpInput(S("u32[100000]"), 29));
    ExpectBitIdentical(
        absl::StrReplaceAll(twice_plus_third + kBody, {{"$T", "u32"}}), args);
  }
  {
    SCOPED_TRACE("last writer");
    std::vector<Literal> args;
    args.push_back(MakeOpInput(S("f32[1048576]"), 26));
    args.push_back(indices);
    args.push_back(MakeOpInput(S("f32[100000]"), 27));
    ExpectBitIdentical(absl::StrReplaceAll(last + kBody, {{"$T", "f32"}}),
                       args);
  }
}

// Every element (and 8 past each end) updated three times in a random
// order, so every boundary between the threads' ranges is hit, whatever
// the number of threads; a*2+b.
TEST(ScatterTest, EveryElementUpdated) {
  const int64_t kOperand = 65536, kUpdates = 3 * (kOperand + 16);
  std::vector<int32_t> order(kUpdates);
  for (int64_t i = 0; i < kUpdates; ++i) order[i] = i % (kOperand + 16) - 8;
  std::shuffle(order.begin(), order.end(), std::mt19937(61));
  Literal indices(Shape::Array(S32, {kUpdates, 1}));
  for (int64_t i = 0; i < kUpdates; ++i) indices.SetFromInt64(i, order[i]);
  const std::string text = absl::StrReplaceAll(
      R"(HloModule scatter_every_element
combine {
  a = u32[] parameter(0)
  b = u32[] parameter(1)
  two = u32[] constant(2)
  m = u32[] multiply(a, two)
  ROOT c = u32[] add(m, b)
}
ENTRY main {
  t = u32[$N] parameter(0)
  i = s32[$M,1] parameter(1)
  u = u32[$M] parameter(2)
  ROOT s = u32[$N] scatter(t, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
}
)",
      {{"$N", std::to_string(kOperand)}, {"$M", std::to_string(kUpdates)}});
  std::vector<Literal> args;
  args.push_back(MakeOpInput(Shape::Array(U32, {kOperand}), 62));
  args.push_back(std::move(indices));
  args.push_back(MakeOpInput(Shape::Array(U32, {kUpdates}), 63));
  ExpectBitIdentical(text, args);
}

// 8x16 windows at 2-D starts into a 1024x1024 operand, row- and
// column-major (the windows then straddle the threads' ranges), starts
// that do not fit at both ends; add and a*2+b.
TEST(ScatterTest, LargeWindows) {
  for (const char* layout : {"{1,0}", "{0,1}"}) {
    for (const char* combiner : {"add", "twice_plus"}) {
      SCOPED_TRACE(absl::StrCat(layout, " ", combiner));
      const bool exact_float = std::string(combiner) == "add";
      const std::string text = absl::StrReplaceAll(
          R"(HloModule scatter_large_windows
add {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT c = $T[] add(a, b)
}
twice_plus {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  two = $T[] constant(2)
  m = $T[] multiply(a, two)
  ROOT c = $T[] add(m, b)
}
ENTRY main {
  t = $T[1024,1024]$L parameter(0)
  i = s32[20000,2] parameter(1)
  u = $T[20000,8,16] parameter(2)
  ROOT s = $T[1024,1024]$L scatter(t, i, u), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=$C
}
)",
          {{"$T", exact_float ? "f32" : "u32"},
           {"$L", layout},
           {"$C", combiner}});
      std::vector<Literal> args;
      if (exact_float) {
        args.push_back(IntegerValued(S("f32[1024,1024]"), 31));
      } else {
        args.push_back(MakeOpInput(S("u32[1024,1024]"), 31));
      }
      args.push_back(HotIndices(20000, {-3, -3}, {1020, 1012}, 32, 32));
      if (exact_float) {
        args.push_back(IntegerValued(S("f32[20000,8,16]"), 33));
      } else {
        args.push_back(MakeOpInput(S("u32[20000,8,16]"), 33));
      }
      ExpectBitIdentical(text, args);
    }
  }
}

// The copy of the operand into the output changes the layout.
TEST(ScatterTest, LargeOperandLayoutDiffersFromOutput) {
  const std::string text = absl::StrReplaceAll(
      std::string("HloModule scatter_relayout\n") + kAdd + R"(
ENTRY main {
  t = f32[512,384]{0,1} parameter(0)
  i = s32[3000,2] parameter(1)
  u = f32[3000,8,16] parameter(2)
  ROOT s = f32[512,384]{1,0} scatter(t, i, u), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=add
}
)",
      {{"$T", "f32"}});
  std::vector<Literal> args;
  args.push_back(IntegerValued(S("f32[512,384]"), 71));
  args.push_back(HotIndices(3000, {-2, -2}, {506, 370}, 16, 72));
  args.push_back(IntegerValued(S("f32[3000,8,16]"), 73));
  ExpectBitIdentical(text, args);
}

// Two operands whose outputs differ in layout (ownership follows output
// 0's physical order; output 1's elements go with output 0's), row
// windows, a tuple combiner with a non-commutative part.
TEST(ScatterTest, LargeSeveralOperandsWithLayouts) {
  for (const auto& layouts : std::vector<std::pair<std::string, std::string>>{
           {"{1,0}", "{0,1}"}, {"{0,1}", "{1,0}"}}) {
    SCOPED_TRACE(layouts.first + " " + layouts.second);
    const std::string text = absl::StrReplaceAll(
        R"(HloModule scatter_large_pair
combine {
  a0 = f32[] parameter(0)
  a1 = u32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = u32[] parameter(3)
  m = f32[] maximum(a0, b0)
  two = u32[] constant(2)
  t = u32[] multiply(a1, two)
  s = u32[] add(t, b1)
  ROOT r = (f32[], u32[]) tuple(m, s)
}
ENTRY main {
  t0 = f32[1024,1024]$A parameter(0)
  t1 = u32[1024,1024]$B parameter(1)
  i = s32[1000,1] parameter(2)
  u0 = f32[1000,1024] parameter(3)
  u1 = u32[1000,1024] parameter(4)
  ROOT s = (f32[1024,1024]$A, u32[1024,1024]$B) scatter(t0, t1, i, u0, u1), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
}
)",
        {{"$A", layouts.first}, {"$B", layouts.second}});
    std::vector<Literal> args;
    args.push_back(MakeOpInput(S("f32[1024,1024]"), 41));
    args.push_back(MakeOpInput(S("u32[1024,1024]"), 42));
    args.push_back(HotIndices(1000, {-2}, {1025}, 16, 43));
    args.push_back(MakeOpInput(S("f32[1000,1024]"), 44));
    args.push_back(MakeOpInput(S("u32[1000,1024]"), 45));
    ExpectBitIdentical(text, args);
  }
}

// Single-element windows (2-D starts) into two outputs of different
// layouts with a cheap tuple combiner: the branchless path, where a thread
// sends the updates it does not own to scratch.
TEST(ScatterTest, LargeSeveralOperandsScalarUpdates) {
  const std::string text = R"(HloModule scatter_large_pair_scalar
combine {
  a0 = f32[] parameter(0)
  a1 = u32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = u32[] parameter(3)
  m = f32[] maximum(a0, b0)
  two = u32[] constant(2)
  t = u32[] multiply(a1, two)
  s = u32[] add(t, b1)
  ROOT r = (f32[], u32[]) tuple(m, s)
}
ENTRY main {
  t0 = f32[512,512]{1,0} parameter(0)
  t1 = u32[512,512]{0,1} parameter(1)
  i = s32[100000,2] parameter(2)
  u0 = f32[100000] parameter(3)
  u1 = u32[100000] parameter(4)
  ROOT s = (f32[512,512]{1,0}, u32[512,512]{0,1}) scatter(t0, t1, i, u0, u1), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={1,0}, index_vector_dim=1, to_apply=combine
}
)";
  std::vector<Literal> args;
  args.push_back(MakeOpInput(S("f32[512,512]"), 81));
  args.push_back(MakeOpInput(S("u32[512,512]"), 82));
  args.push_back(HotIndices(100000, {-1, -1}, {512, 512}, 32, 83));
  args.push_back(MakeOpInput(S("f32[100000]"), 84));
  args.push_back(MakeOpInput(S("u32[100000]"), 85));
  ExpectBitIdentical(text, args);
}

TEST(ScatterTest, LargeBatchingDimensions) {
  const std::string text = absl::StrReplaceAll(
      std::string("HloModule scatter_large_batching\n") + kAdd + R"(
ENTRY main {
  t = f32[16,32768,2] parameter(0)
  i = s32[16,4000,1] parameter(1)
  u = f32[16,4000,2] parameter(2)
  ROOT s = f32[16,32768,2] scatter(t, i, u), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=2, input_batching_dims={0}, scatter_indices_batching_dims={0}, to_apply=add
}
)",
      {{"$T", "f32"}});
  Literal indices = HotIndices(16 * 4000, {-1}, {32768}, 100, 52);
  auto reshaped = indices.Reshape({16, 4000, 1});
  ASSERT_TRUE(reshaped.ok());
  std::vector<Literal> args;
  args.push_back(IntegerValued(S("f32[16,32768,2]"), 51));
  args.push_back(*std::move(reshaped));
  args.push_back(IntegerValued(S("f32[16,4000,2]"), 53));
  ExpectBitIdentical(text, args);
}

// A large scatter runs on all threads (the kernel calls GOMP_parallel); a
// small one, or any with parallelism off, on the calling thread.
TEST(ScatterTest, ParallelOnlyWhenLarge) {
  const std::string pattern = std::string("HloModule scatter_ir\n") + kAdd + R"(
ENTRY main {
  t = f32[$N] parameter(0)
  i = s32[$M,1] parameter(1)
  u = f32[$M] parameter(2)
  ROOT s = f32[$N] scatter(t, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)";
  auto ir_for = [&](int64_t n, int64_t m, bool parallel) -> std::string {
    auto module = ParseHloModule(
        absl::StrReplaceAll(pattern, {{"$T", "f32"},
                                      {"$N", std::to_string(n)},
                                      {"$M", std::to_string(m)}}),
        "test");
    EXPECT_TRUE(module.ok()) << module.status();
    if (!module.ok()) return "";
    CpuCodegenOptions options;
    options.parallel = parallel;
    auto ir = EmitCpuLlvmIr(**module, options);
    EXPECT_TRUE(ir.ok()) << ir.status();
    return ir.ok() ? *ir : "";
  };
  EXPECT_NE(ir_for(1 << 20, 100000, true).find("@GOMP_parallel"),
            std::string::npos);
  EXPECT_EQ(ir_for(1 << 20, 100000, false).find("@GOMP_parallel"),
            std::string::npos);
  EXPECT_EQ(ir_for(100, 50, true).find("@GOMP_parallel"), std::string::npos);
}

// Not a test: times the kernels of two large scatter-adds called directly
// on their buffers, serial and parallel: an f32[4M] operand with 1M scalar
// updates at random indices, and an f32[64K,64] operand with 16K row
// updates (1M elements). Run with
//   --gtest_also_run_disabled_tests --gtest_filter='*TimeLargeScatterAdd*'
TEST(ScatterTest, DISABLED_TimeLargeScatterAdd) {
  struct Case {
    const char* name;
    int64_t rows, row_length, updates;
  };
  for (const Case& c : {Case{"scalar", int64_t{1} << 22, 1, int64_t{1} << 20},
                        Case{"rows", int64_t{1} << 16, 64, int64_t{1} << 14}}) {
    const std::string text =
        absl::StrReplaceAll(std::string("HloModule scatter_time\n") + kAdd + R"(
ENTRY main {
  t = f32[$N,$L] parameter(0)
  i = s32[$M,1] parameter(1)
  u = f32[$M,$L] parameter(2)
  ROOT s = f32[$N,$L] scatter(t, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)",
                            {{"$T", "f32"},
                             {"$N", std::to_string(c.rows)},
                             {"$L", std::to_string(c.row_length)},
                             {"$M", std::to_string(c.updates)}});
    auto module = ParseHloModule(text, "test");
    ASSERT_TRUE(module.ok()) << module.status();
    std::vector<float> operand(c.rows * c.row_length, 1.0f),
        updates(c.updates * c.row_length, 0.5f), output(c.rows * c.row_length);
    std::vector<int32_t> indices(c.updates);
    std::mt19937 rng(1);
    for (int32_t& i : indices) {
      i = std::uniform_int_distribution<int32_t>(0, c.rows - 1)(rng);
    }
    void* buffers[] = {operand.data(), indices.data(), updates.data(),
                       output.data()};
    for (bool parallel : {false, true}) {
      CpuCompileOptions options;
      options.codegen.parallel = parallel;
      auto executable = CompileForCpu(**module, options);
      ASSERT_TRUE(executable.ok()) << executable.status();
      void (*kernel)(void**) = nullptr;
      for (const CpuStep& step : (*executable)->steps()) {
        if (step.instruction->opcode() == HloOpcode::kScatter) {
          kernel = step.kernel;
        }
      }
      ASSERT_NE(kernel, nullptr);
      // Wall time, and process CPU time over the threads: on a machine
      // with fewer idle cores than threads, the latter estimates each
      // thread's share (with OMP_WAIT_POLICY=passive, so that waiting
      // threads do not spin).
      auto cpu_ms = [] {
        timespec t;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
      };
      const int threads = parallel ? omp_get_max_threads() : 1;
      double best = 1e9, best_cpu = 1e9;
      for (int run = 0; run < 20; ++run) {
        const double cpu_start = cpu_ms();
        auto start = std::chrono::steady_clock::now();
        kernel(buffers);
        std::chrono::duration<double, std::milli> ms =
            std::chrono::steady_clock::now() - start;
        best = std::min(best, ms.count());
        best_cpu = std::min(best_cpu, (cpu_ms() - cpu_start) / threads);
      }
      std::printf(
          "scatter-add %s f32[%lld,%lld] <- %lld updates, %s on %d threads: "
          "best %.2f ms wall, %.2f ms CPU per thread\n",
          c.name, static_cast<long long>(c.rows),
          static_cast<long long>(c.row_length),
          static_cast<long long>(c.updates), parallel ? "parallel" : "serial",
          threads, best, best_cpu);
    }
  }
}

}  // namespace
}  // namespace hloc

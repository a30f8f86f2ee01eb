// Row-reduction fusions (row_fusion_emitter.h) and streaming stores
// (streaming_store.h) on the CPU: the cpu pipeline must make each module
// one row kernel, and the kernel must match the evaluator on the unfused
// module -- for single and multi-dimensional rows, odd row lengths, per-row
// and full outputs, the row cache, f16, integers, NaN, and with every
// output streamed (a threshold of 1 byte) so the staged copies' unaligned
// heads and tails are exercised on small shapes.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "passes/pipelines.h"

namespace hloc {
namespace {

using testing_util::CheckAgainstEvaluator;
using testing_util::CompareLeaves;
using testing_util::MakeOpInput;

constexpr char kSoftmax[] = R"(HloModule softmax
max {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT m = $T[] maximum(a, b)
}
add {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT s = $T[] add(a, b)
}
ENTRY main {
  x = $T[$R,$L] parameter(0)
  ninf = $T[] constant(-inf)
  mx = $T[$R] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = $T[$R,$L] broadcast(mx), dimensions={0}
  d = $T[$R,$L] subtract(x, mb)
  e = $T[$R,$L] exponential(d)
  zero = $T[] constant(0)
  s = $T[$R] reduce(e, zero), dimensions={1}, to_apply=add
  sb = $T[$R,$L] broadcast(s), dimensions={0}
  ROOT y = $T[$R,$L] divide(e, sb)
}
)";

constexpr char kLayernorm[] = R"(HloModule layernorm
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[$R,$L] parameter(0)
  g = f32[$L] parameter(1)
  b = f32[$L] parameter(2)
  zero = f32[] constant(0)
  n = f32[] constant($L)
  nb = f32[$R] broadcast(n), dimensions={}
  s = f32[$R] reduce(x, zero), dimensions={1}, to_apply=add
  mean = f32[$R] divide(s, nb)
  mb = f32[$R,$L] broadcast(mean), dimensions={0}
  c = f32[$R,$L] subtract(x, mb)
  c2 = f32[$R,$L] multiply(c, c)
  s2 = f32[$R] reduce(c2, zero), dimensions={1}, to_apply=add
  var = f32[$R] divide(s2, nb)
  eps = f32[] constant(1e-5)
  epsb = f32[$R] broadcast(eps), dimensions={}
  ve = f32[$R] add(var, epsb)
  r = f32[$R] rsqrt(ve)
  rb = f32[$R,$L] broadcast(r), dimensions={0}
  gb = f32[$R,$L] broadcast(g), dimensions={1}
  bb = f32[$R,$L] broadcast(b), dimensions={1}
  y = f32[$R,$L] multiply(c, rb)
  yg = f32[$R,$L] multiply(y, gb)
  ROOT out = f32[$R,$L] add(yg, bb)
}
)";

// Log-softmax returning the per-row max and log-sum too: per-row outputs
// beside the full one.
constexpr char kLogSoftmaxStats[] = R"(HloModule log_softmax_stats
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[$R,$L] parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[$R] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[$R,$L] broadcast(mx), dimensions={0}
  d = f32[$R,$L] subtract(x, mb)
  e = f32[$R,$L] exponential(d)
  zero = f32[] constant(0)
  s = f32[$R] reduce(e, zero), dimensions={1}, to_apply=add
  l = f32[$R] log(s)
  lb = f32[$R,$L] broadcast(l), dimensions={0}
  y = f32[$R,$L] subtract(d, lb)
  ROOT t = (f32[$R,$L], f32[$R], f32[$R]) tuple(y, mx, l)
}
)";

// Rows of two dimensions ([2,3] rows of [4,5]), x / sum(x).
constexpr char kMultiDimRows[] = R"(HloModule multi_dim_rows
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[2,3,4,5] parameter(0)
  zero = f32[] constant(0)
  s = f32[2,3] reduce(x, zero), dimensions={2,3}, to_apply=add
  sb = f32[2,3,4,5] broadcast(s), dimensions={0,1}
  ROOT y = f32[2,3,4,5] divide(x, sb)
}
)";

// Integers: x - max(x) per row.
constexpr char kIntegerRows[] = R"(HloModule integer_rows
max {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY main {
  x = s32[$R,$L] parameter(0)
  lowest = s32[] constant(-2147483648)
  mx = s32[$R] reduce(x, lowest), dimensions={1}, to_apply=max
  mb = s32[$R,$L] broadcast(mx), dimensions={0}
  ROOT y = s32[$R,$L] subtract(x, mb)
}
)";

// exp(x) is reduced and also read at another row (reversed): it must not
// come from the row cache, which holds only the current row.
constexpr char kReversedRows[] = R"(HloModule reversed_rows
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[$R,$L] parameter(0)
  e = f32[$R,$L] exponential(x)
  zero = f32[] constant(0)
  s = f32[$R] reduce(e, zero), dimensions={1}, to_apply=add
  sb = f32[$R,$L] broadcast(s), dimensions={0}
  er = f32[$R,$L] reverse(e), dimensions={0}
  ROOT y = f32[$R,$L] divide(er, sb)
}
)";

// A plain elementwise chain, for streaming in the elementwise loops.
constexpr char kChain[] = R"(HloModule chain
ENTRY main {
  x = f32[$R,$L] parameter(0)
  one = f32[] constant(1)
  ob = f32[$R,$L] broadcast(one), dimensions={}
  a = f32[$R,$L] add(x, ob)
  n = f32[$R,$L] negate(a)
  e = f32[$R,$L] exponential(n)
  d = f32[$R,$L] add(e, ob)
  ROOT y = f32[$R,$L] divide(ob, d)
}
)";

std::string Instantiate(const char* text, int64_t rows, int64_t length,
                        const std::string& type = "f32") {
  return absl::StrReplaceAll(text, {{"$R", absl::StrCat(rows)},
                                    {"$L", absl::StrCat(length)},
                                    {"$T", type}});
}

// The module after the cpu pipeline.
std::unique_ptr<HloModule> Optimize(const std::string& text) {
  auto module = ParseHloModule(text, "test");
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  auto pipeline = MakePipeline("cpu", PipelineOptions{});
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  auto changed = pipeline->Run(module->get());
  EXPECT_TRUE(changed.ok()) << changed.status();
  for (HloComputation* computation : (*module)->computations()) {
    computation->SortInstructionsInPostOrder();
  }
  return *std::move(module);
}

int64_t CountRowFusions(const HloModule& module) {
  int64_t count = 0;
  for (const HloInstruction* instr :
       module.entry_computation()->instructions()) {
    if (instr->opcode() == HloOpcode::kFusion &&
        instr->fusion_kind() == FusionKind::kCustom) {
      ++count;
    }
  }
  return count;
}

// Optimizes `text`, expects exactly one row fusion (none where the rows
// have one element: the simplifier turns those reduces into reshapes), and
// compares the CPU run (streaming every output when `stream`) with the
// evaluator on the original module.
void CheckRowFusion(const std::string& text, bool stream,
                    std::vector<Literal> args = {}, int64_t row_fusions = 1) {
  SCOPED_TRACE(text);
  auto original = ParseHloModule(text, "test");
  ASSERT_TRUE(original.ok()) << original.status();
  std::unique_ptr<HloModule> fused = Optimize(text);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(CountRowFusions(*fused), row_fusions) << PrintModule(*fused);
  const HloComputation* entry = (*original)->entry_computation();
  if (args.empty()) {
    for (int64_t i = 0; i < entry->num_parameters(); ++i) {
      args.push_back(
          MakeOpInput(entry->parameter_instruction(i)->shape(), 11 + 5 * i));
    }
  }
  auto expected = EvaluateModule(**original, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  CpuCompileOptions options;
  options.codegen.streaming_store_min_bytes = stream ? 1 : 0;
  auto executable = CompileForCpu(*fused, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  EXPECT_TRUE((*executable)->fallback_instructions().empty());
  auto actual = (*executable)->Run(args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  CompareLeaves(*expected, *actual, fused->name());
}

struct RowCase {
  int64_t rows;
  int64_t length;
};

const RowCase kRowCases[] = {{1, 1},   {3, 5},    {7, 37},  {2, 16},
                             {64, 1000}, {5, 4096}, {300, 129}};

TEST(RowFusionTest, Softmax) {
  for (bool stream : {false, true}) {
    for (const RowCase& c : kRowCases) {
      CheckRowFusion(Instantiate(kSoftmax, c.rows, c.length), stream, {},
                     c.length > 1 ? 1 : 0);
    }
  }
}

TEST(RowFusionTest, SoftmaxF16) {
  for (bool stream : {false, true}) {
    CheckRowFusion(Instantiate(kSoftmax, 9, 77, "f16"), stream);
  }
}

TEST(RowFusionTest, Layernorm) {
  for (bool stream : {false, true}) {
    for (const RowCase& c : kRowCases) {
      CheckRowFusion(Instantiate(kLayernorm, c.rows, c.length), stream, {},
                     c.length > 1 ? 1 : 0);
    }
  }
}

TEST(RowFusionTest, PerRowOutputs) {
  for (bool stream : {false, true}) {
    CheckRowFusion(Instantiate(kLogSoftmaxStats, 33, 65), stream);
  }
}

TEST(RowFusionTest, MultiDimensionalRows) {
  for (bool stream : {false, true}) {
    CheckRowFusion(kMultiDimRows, stream);
  }
}

TEST(RowFusionTest, ValueReadAtAnotherRow) {
  for (bool stream : {false, true}) {
    CheckRowFusion(Instantiate(kReversedRows, 6, 33), stream);
  }
}

TEST(RowFusionTest, Integers) {
  for (bool stream : {false, true}) {
    CheckRowFusion(Instantiate(kIntegerRows, 17, 31), stream);
  }
}

// A NaN in a row makes that row's max NaN and so the whole row NaN; the
// other rows are unaffected.
TEST(RowFusionTest, NanPropagatesThroughTheRowMax) {
  const std::string text = Instantiate(kSoftmax, 4, 40);
  auto module = ParseHloModule(text, "test");
  ASSERT_TRUE(module.ok());
  Literal x =
      MakeOpInput((*module)->entry_computation()->parameter_instruction(0)
                      ->shape(),
                  3);
  x.SetFromDouble(2 * 40 + 17, std::numeric_limits<double>::quiet_NaN());
  std::vector<Literal> args;
  args.push_back(x);
  CheckRowFusion(text, /*stream=*/false, args);
  std::unique_ptr<HloModule> fused = Optimize(text);
  auto result = RunOnCpu(*fused, args);
  ASSERT_TRUE(result.ok()) << result.status();
  for (int64_t c = 0; c < 40; ++c) {
    EXPECT_TRUE(std::isnan(result->GetAsDouble(2 * 40 + c))) << c;
    EXPECT_FALSE(std::isnan(result->GetAsDouble(1 * 40 + c))) << c;
  }
}

// The elementwise loops stream too: odd chunk lengths, and several rows.
TEST(StreamingStoreTest, ElementwiseChain) {
  for (const RowCase& c : kRowCases) {
    for (bool stream : {false, true}) {
      CpuCompileOptions options;
      options.codegen.streaming_store_min_bytes = stream ? 1 : 0;
      std::unique_ptr<HloModule> fused =
          Optimize(Instantiate(kChain, c.rows, c.length));
      ASSERT_NE(fused, nullptr);
      EXPECT_TRUE(
          CheckAgainstEvaluator(PrintModule(*fused), {}, options).empty());
    }
  }
}

// Streaming is what the threshold says: non-temporal stores and a fence
// when the output reaches it, neither below it.
TEST(StreamingStoreTest, OnlyAboveTheThreshold) {
  for (const char* text : {kChain, kSoftmax}) {
    std::unique_ptr<HloModule> fused = Optimize(Instantiate(text, 8, 256));
    ASSERT_NE(fused, nullptr);
    CpuCodegenOptions options;
    options.streaming_store_min_bytes = 8 * 256 * 4;  // The output's size.
    auto ir = EmitCpuLlvmIr(*fused, options);
    ASSERT_TRUE(ir.ok()) << ir.status();
    EXPECT_NE(ir->find("!nontemporal"), std::string::npos) << *ir;
    EXPECT_NE(ir->find("fence seq_cst"), std::string::npos);
    options.streaming_store_min_bytes = 8 * 256 * 4 + 1;
    ir = EmitCpuLlvmIr(*fused, options);
    ASSERT_TRUE(ir.ok()) << ir.status();
    EXPECT_EQ(ir->find("!nontemporal"), std::string::npos);
    EXPECT_EQ(ir->find("fence"), std::string::npos);
  }
}

}  // namespace
}  // namespace hloc

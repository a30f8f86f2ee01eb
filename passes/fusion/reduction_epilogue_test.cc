// Reduction epilogue fusion (cost_model.h rule 3, fusion_kinds.h's
// kReduction): which consumers of a reduction join its kInput fusion with
// the cuda, rocm and cpu options, what the fusion passes then build, and
// what the verifier refuses.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "passes/fusion/cost_model.h"
#include "passes/fusion/fusion_kinds.h"
#include "passes/fusion/fusion_test_util.h"
#include "passes/fusion/kernel_count.h"
#include "passes/fusion/report.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

std::unique_ptr<HloModule> Parse(absl::string_view entry) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(absl::StrCat(R"(HloModule m
add_f32 {
  add_lhs = f32[] parameter(0)
  add_rhs = f32[] parameter(1)
  ROOT add_result = f32[] add(add_lhs, add_rhs)
}
)",
                                  entry));
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

HloInstruction* Find(const HloModule& module, absl::string_view name) {
  for (HloComputation* comp : module.computations()) {
    if (HloInstruction* instr = comp->GetInstructionWithName(name)) {
      return instr;
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

FusionOptions OptionsFor(absl::string_view platform) {
  absl::StatusOr<FusionOptions> options = FusionOptionsForPlatform(platform);
  EXPECT_TRUE(options.ok()) << options.status();
  return options.ok() ? *options : FusionOptions();
}

// The fusion passes of `platform` (as its pipeline orders them); checks the
// module stays valid, every fusion keeps its shape's invariant and the
// evaluator computes the same before and after.
void RunFusion(HloModule* module, absl::string_view platform,
               FusionReport* report) {
  RunFusionAndCheck(module, OptionsFor(platform), report,
                    Tolerance{1e-5, 1e-5});
}

// JAX's bf16 sum over the major dimension: a column reduction.
constexpr absl::string_view kColumnSumBf16 = R"(
ENTRY e {
  x = bf16[64,48] parameter(0)
  xf = f32[64,48] convert(x)
  z = f32[] constant(0)
  r = f32[48] reduce(xf, z), dimensions={0}, to_apply=add_f32
  ROOT o = bf16[48] convert(r)
})";

TEST(ReductionEpilogueDecision, ConvertAfterColumnReduceFusesOnGpusOnly) {
  auto module = Parse(kColumnSumBf16);
  const HloInstruction& r = *Find(*module, "r");
  const HloInstruction& o = *Find(*module, "o");
  for (absl::string_view gpu : {"cuda", "rocm"}) {
    FusionDecision d = ShouldFuse(r, o, OptionsFor(gpu));
    EXPECT_TRUE(d.fuse) << gpu << ": " << d.rule;
    EXPECT_EQ(d.kind, FusionKind::kInput) << gpu;
    EXPECT_TRUE(absl::StrContains(d.rule, "epilogue")) << d.rule;
  }
  FusionDecision cpu = ShouldFuse(r, o, OptionsFor("cpu"));
  EXPECT_FALSE(cpu.fuse);
  EXPECT_TRUE(absl::StrContains(cpu.rule, "reduction barrier")) << cpu.rule;
  // The default options (tests, tools that build FusionOptions{}) keep it
  // off: only a pipeline that emits epilogues turns it on.
  EXPECT_FALSE(ShouldFuse(r, o, FusionOptions()).fuse);
}

// The broadcast back to the input's shape (x / sum(x) with rows too long
// for a row fusion) and a reduce of the result stay behind the barrier.
TEST(ReductionEpilogueDecision, NotElementwiseConsumersDoNotFuse) {
  auto module = Parse(R"(
ENTRY e {
  p = f32[32,16] parameter(0)
  z = f32[] constant(0)
  r = f32[32] reduce(p, z), dimensions={1}, to_apply=add_f32
  b = f32[32,16] broadcast(r), dimensions={0}
  d = f32[32,16] divide(p, b)
  r3 = f32[16] reduce(p, z), dimensions={0}, to_apply=add_f32
  s = f32[] reduce(r3, z), dimensions={0}, to_apply=add_f32
  ROOT out = (f32[32,16], f32[]) tuple(d, s)
})");
  ASSERT_NE(module, nullptr);
  const FusionOptions cuda = OptionsFor("cuda");
  for (auto [producer, consumer] :
       std::vector<std::pair<const char*, const char*>>{{"r", "b"},
                                                        {"r3", "s"}}) {
    FusionDecision d =
        ShouldFuse(*Find(*module, producer), *Find(*module, consumer), cuda);
    EXPECT_FALSE(d.fuse) << producer << " -> " << consumer;
    EXPECT_TRUE(absl::StrContains(d.rule, "reduction barrier"))
        << producer << " -> " << consumer << ": " << d.rule;
  }
}

TEST(ReductionEpilogueDecision, TransposeAndBroadcastConsumersDoNotFuse) {
  // f32[4,8] reduce -> transpose: same elements, other positions.
  auto module = Parse(R"(
ENTRY e {
  p = f32[4,8,16] parameter(0)
  z = f32[] constant(0)
  r = f32[4,8] reduce(p, z), dimensions={2}, to_apply=add_f32
  ROOT t = f32[8,4] transpose(r), dimensions={1,0}
})");
  FusionDecision d =
      ShouldFuse(*Find(*module, "r"), *Find(*module, "t"), OptionsFor("cuda"));
  EXPECT_FALSE(d.fuse) << d.rule;

  // A loop fusion that broadcasts the result before its elementwise op is
  // no epilogue either (it reads the result at other positions).
  auto loop = Parse(R"(
bcast {
  a = f32[32] parameter(0)
  b = f32[32,16] parameter(1)
  ab = f32[32,16] broadcast(a), dimensions={0}
  ROOT m = f32[32,16] multiply(ab, b)
}
ENTRY e {
  p = f32[32,16] parameter(0)
  z = f32[] constant(0)
  r = f32[32] reduce(p, z), dimensions={1}, to_apply=add_f32
  ROOT f = f32[32,16] fusion(r, p), kind=kLoop, calls=bcast
})");
  FusionDecision into_loop =
      ShouldFuse(*Find(*loop, "r"), *Find(*loop, "f"), OptionsFor("cuda"));
  EXPECT_FALSE(into_loop.fuse);
  EXPECT_TRUE(absl::StrContains(into_loop.rule, "not an elementwise epilogue"))
      << into_loop.rule;
}

TEST(ReductionEpilogueDecision, SecondConsumerKeepsTheBarrier) {
  auto module = Parse(R"(
ENTRY e {
  p = f32[64,48] parameter(0)
  z = f32[] constant(0)
  r = f32[48] reduce(p, z), dimensions={0}, to_apply=add_f32
  n = f32[48] negate(r)
  ROOT out = (f32[48], f32[48]) tuple(r, n)
})");
  FusionDecision d =
      ShouldFuse(*Find(*module, "r"), *Find(*module, "n"), OptionsFor("cuda"));
  EXPECT_FALSE(d.fuse);
  EXPECT_TRUE(absl::StrContains(d.rule, "only one")) << d.rule;
}

TEST(ReductionEpilogueFusion, Bf16ColumnSumIsOneKernel) {
  auto module = Parse(kColumnSumBf16);
  FusionReport report;
  RunFusion(module.get(), "cuda", &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(GetFusionShape(*fusions[0]), FusionShape::kReduction);
  EXPECT_EQ(fusions[0]->fused_expression_root()->opcode(), HloOpcode::kConvert);
  EXPECT_EQ(fusions[0]->shape().element_type(), BF16);
  EXPECT_EQ(CountKernels(*module).total(), 1);

  auto cpu = Parse(kColumnSumBf16);
  FusionReport cpu_report;
  RunFusion(cpu.get(), "cpu", &cpu_report);
  EXPECT_EQ(CountKernels(*cpu).total(), 2);
}

TEST(ReductionEpilogueFusion, MeanDivideByConstantFuses) {
  // Rows too long for one block: not a row fusion, a plain reduction.
  auto module = Parse(R"(
ENTRY e {
  x = f32[4,40000] parameter(0)
  z = f32[] constant(0)
  r = f32[4] reduce(x, z), dimensions={1}, to_apply=add_f32
  n = f32[] constant(40000)
  nb = f32[4] broadcast(n), dimensions={}
  ROOT m = f32[4] divide(r, nb)
})");
  FusionReport report;
  RunFusion(module.get(), "rocm", &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(GetFusionShape(*fusions[0]), FusionShape::kReduction);
  EXPECT_EQ(fusions[0]->fused_expression_root()->opcode(), HloOpcode::kDivide);
  // The constant divisor is computed inside, not read from a buffer.
  EXPECT_EQ(fusions[0]->operand_count(), 1);
}

TEST(ReductionEpilogueFusion, DivideByAnotherReductionReadsItsResult) {
  // sum(x) / sum(y): one reduction takes the divide as its epilogue and
  // reads the other's result (a barrier) as an operand of output shape.
  auto module = Parse(R"(
ENTRY e {
  x = f32[64,48] parameter(0)
  y = f32[64,48] parameter(1)
  z = f32[] constant(0)
  a = f32[48] reduce(x, z), dimensions={0}, to_apply=add_f32
  b = f32[48] reduce(y, z), dimensions={0}, to_apply=add_f32
  ROOT q = f32[48] divide(a, b)
})");
  FusionReport report;
  RunFusion(module.get(), "cuda", &report);
  EXPECT_EQ(CountKernels(*module).total(), 2);
}

TEST(ReductionEpilogueFusion, SiblingWithAnEpilogueSharesTheInput) {
  // mean(x) and sum(x*x) over the same columns: the epilogue
  // fusion and the plain reduction are merged into one multi-output kernel.
  auto module = Parse(R"(
ENTRY e {
  x = f32[64,48] parameter(0)
  z = f32[] constant(0)
  s = f32[48] reduce(x, z), dimensions={0}, to_apply=add_f32
  n = f32[] constant(64)
  nb = f32[48] broadcast(n), dimensions={}
  mean = f32[48] divide(s, nb)
  xx = f32[64,48] multiply(x, x)
  sq = f32[48] reduce(xx, z), dimensions={0}, to_apply=add_f32
  ROOT out = (f32[48], f32[48]) tuple(mean, sq)
})");
  FusionReport report;
  RunFusion(module.get(), "cuda", &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(GetFusionShape(*fusions[0]), FusionShape::kReduction);
  EXPECT_EQ(fusions[0]->fused_expression_root()->opcode(), HloOpcode::kTuple);
}

// ---- Verifier -----------------------------------------------------------

TEST(ReductionEpilogueShape, VerifierAcceptsEpiloguesAndRejectsMalformedOnes) {
  auto module = Parse(R"(
good {
  p = f32[4,8] parameter(0)
  q = f32[4] parameter(1)
  z = f32[] constant(0)
  r = f32[4] reduce(p, z), dimensions={1}, to_apply=add_f32
  d = f32[4] divide(r, q)
  c = bf16[4] convert(d)
  ROOT t = (bf16[4], f32[4], f32[4,8]) tuple(c, r, p)
}
reverse_epilogue {
  p = f32[4,8] parameter(0)
  z = f32[] constant(0)
  r = f32[4] reduce(p, z), dimensions={1}, to_apply=add_f32
  ROOT v = f32[4] reverse(r), dimensions={0}
}
broadcast_epilogue {
  p = f32[4,8] parameter(0)
  z = f32[] constant(0)
  r = f32[4] reduce(p, z), dimensions={1}, to_apply=add_f32
  b = f32[4,8] broadcast(r), dimensions={0}
  ROOT m = f32[4,8] multiply(b, p)
}
reduce_of_reduce {
  p = f32[4,8] parameter(0)
  z = f32[] constant(0)
  r = f32[4] reduce(p, z), dimensions={1}, to_apply=add_f32
  ROOT s = f32[] reduce(r, z), dimensions={0}, to_apply=add_f32
}
ENTRY e {
  x = f32[4,8] parameter(0)
  y = f32[4] parameter(1)
  f0 = (bf16[4], f32[4], f32[4,8]) fusion(x, y), kind=kInput, calls=good
  f1 = f32[4] fusion(x), kind=kInput, calls=reverse_epilogue
  f2 = f32[4,8] fusion(x), kind=kInput, calls=broadcast_epilogue
  f3 = f32[] fusion(x), kind=kInput, calls=reduce_of_reduce
  ROOT t = ((bf16[4], f32[4], f32[4,8]), f32[4], f32[4,8], f32[]) tuple(f0, f1, f2, f3)
})");
  ASSERT_NE(module, nullptr);
  absl::Status good = VerifyFusionShape(*Find(*module, "f0"));
  EXPECT_TRUE(good.ok()) << good;
  auto error = [&](absl::string_view name) {
    absl::Status s = VerifyFusionShape(*Find(*module, name));
    EXPECT_FALSE(s.ok()) << name;
    return std::string(s.message());
  };
  EXPECT_TRUE(absl::StrContains(error("f1"), "elementwise")) << error("f1");
  EXPECT_TRUE(absl::StrContains(error("f2"), "elementwise")) << error("f2");
  EXPECT_TRUE(absl::StrContains(error("f3"), "barrier")) << error("f3");
}

}  // namespace
}  // namespace hloc

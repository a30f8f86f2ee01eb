// Unit tests of the fusion cost model, the legality rules and the three
// fusion passes, on small modules written as HLO text.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "hlo/verifier.h"
#include "passes/fusion/cost_model.h"
#include "passes/fusion/fusion_kinds.h"
#include "passes/fusion/fusion_test_util.h"
#include "passes/fusion/fusion_utils.h"
#include "passes/fusion/instruction_fusion.h"
#include "passes/fusion/kernel_count.h"
#include "passes/fusion/multi_output_fusion.h"
#include "passes/fusion/report.h"
#include "passes/fusion/row_reduction_fusion.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

std::unique_ptr<HloModule> Parse(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

HloInstruction* Find(const HloModule& module, absl::string_view name) {
  if (HloInstruction* instr =
          module.entry_computation()->GetInstructionWithName(name)) {
    return instr;
  }
  for (HloComputation* comp : module.computations()) {
    if (HloInstruction* instr = comp->GetInstructionWithName(name)) {
      return instr;
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

int64_t CountIn(const HloComputation& comp, HloOpcode opcode) {
  int64_t n = 0;
  for (HloInstruction* instr : comp.instructions()) {
    n += instr->opcode() == opcode ? 1 : 0;
  }
  return n;
}

FusionOptions CpuOptions() {
  FusionOptions options;
  options.dot_epilogue_fusion = false;
  options.row_reduction_fusion = false;
  return options;
}

// Runs the GPU fusion passes (or the CPU ones) and checks the result is a
// valid module whose fusions all keep their shape's invariant and that
// computes what the module computed before (under the evaluator), unless
// `check_results` is off (rng, custom calls).
void RunFusion(HloModule* module, FusionReport* report, bool gpu = true,
               bool check_results = true) {
  RunFusionAndCheck(
      module, gpu ? FusionOptions() : CpuOptions(), report,
      check_results ? std::optional<Tolerance>({1e-6, 1e-6}) : std::nullopt);
}

bool ReportHas(const FusionReport& report, absl::string_view producer,
               absl::string_view rule_part, bool fused) {
  for (const FusionDecisionRecord& r : report.records()) {
    if (absl::StartsWith(r.producer, producer) && r.fused == fused &&
        absl::StrContains(r.rule, rule_part)) {
      return true;
    }
  }
  return false;
}

constexpr absl::string_view kAddComputation = R"(
add_f32 {
  add_lhs = f32[] parameter(0)
  add_rhs = f32[] parameter(1)
  ROOT add_result = f32[] add(add_lhs, add_rhs)
}
max_f32 {
  max_lhs = f32[] parameter(0)
  max_rhs = f32[] parameter(1)
  ROOT max_result = f32[] maximum(max_lhs, max_rhs)
}
lt_f32 {
  lt_lhs = f32[] parameter(0)
  lt_rhs = f32[] parameter(1)
  ROOT lt_result = pred[] compare(lt_lhs, lt_rhs), direction=LT
}
)";

std::string WithReducers(absl::string_view entry) {
  return absl::StrCat("HloModule m\n", kAddComputation, entry);
}

// ---- Cost model -------------------------------------------------------------

TEST(CostModel, ClassifiesOps) {
  auto module = Parse(WithReducers(R"(
ENTRY e {
  p = f32[8,4] parameter(0)
  c = f32[] constant(0)
  x = f32[8,4] exponential(p)
  n = f32[8,4] negate(x)
  d = f32[8,4] divide(n, p)
  b = f32[8,4,1] broadcast(d), dimensions={0,1}
  t = f32[8,4] reduce(b, c), dimensions={2}, to_apply=add_f32
  ROOT r = f32[8] reduce(t, c), dimensions={1}, to_apply=add_f32
})"));
  EXPECT_EQ(CostOf(*Find(*module, "c")), OpCost::kFree);
  EXPECT_EQ(CostOf(*Find(*module, "x")), OpCost::kExpensive);
  EXPECT_EQ(CostOf(*Find(*module, "n")), OpCost::kCheap);
  EXPECT_EQ(CostOf(*Find(*module, "d")), OpCost::kExpensive);
  EXPECT_EQ(CostOf(*Find(*module, "b")), OpCost::kCheap);
  EXPECT_TRUE(IsTrivialReduce(*Find(*module, "t")));
  EXPECT_EQ(CostOf(*Find(*module, "t")), OpCost::kCheap);
  EXPECT_EQ(CostOf(*Find(*module, "r")), OpCost::kExpensive);
  EXPECT_EQ(ReuseFactor(*Find(*module, "b"), *Find(*module, "d")), 1);
}

TEST(CostModel, ExpensiveProducerIsNotDuplicated) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  p = f32[16] parameter(0)
  x = f32[16] exponential(p)
  a = f32[16] add(x, p)
  b = f32[16] multiply(x, p)
  ROOT t = (f32[16], f32[16]) tuple(a, b)
})");
  FusionDecision d =
      ShouldFuse(*Find(*module, "x"), *Find(*module, "a"), FusionOptions());
  EXPECT_FALSE(d.fuse);
  EXPECT_EQ(d.rule,
            "not fused: producer exponential is expensive and has 2 consumers");
}

TEST(CostModel, CheapProducerIsDuplicated) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  p = f32[16] parameter(0)
  n = f32[16] negate(p)
  a = f32[16] add(n, p)
  b = f32[16] multiply(n, p)
  ROOT t = (f32[16], f32[16]) tuple(a, b)
})");
  FusionDecision d =
      ShouldFuse(*Find(*module, "n"), *Find(*module, "a"), FusionOptions());
  EXPECT_TRUE(d.fuse);
  EXPECT_TRUE(d.duplicate);
  EXPECT_EQ(d.kind, FusionKind::kLoop);
  EXPECT_TRUE(absl::StrContains(d.rule, "duplicated")) << d.rule;
}

TEST(CostModel, DuplicationMustNotMultiplyReads) {
  // A copy of the compare would read 8 KiB to replace a 1 KiB predicate.
  auto module = Parse(R"(HloModule m
ENTRY e {
  a = f32[1024] parameter(0)
  b = f32[1024] parameter(1)
  lt = pred[1024] compare(a, b), direction=LT
  n = pred[1024] not(lt)
  c = s32[1024] convert(lt)
  ROOT t = (pred[1024], s32[1024]) tuple(n, c)
})");
  FusionDecision d =
      ShouldFuse(*Find(*module, "lt"), *Find(*module, "n"), FusionOptions());
  EXPECT_FALSE(d.fuse);
  EXPECT_EQ(d.rule,
            "not fused: duplicating producer compare would read 8192 bytes to "
            "save 1024");
}

TEST(CostModel, ReductionIsABarrierForItsConsumers) {
  auto module = Parse(WithReducers(R"(
ENTRY e {
  p = f32[8,16] parameter(0)
  c = f32[] constant(0)
  r = f32[8] reduce(p, c), dimensions={1}, to_apply=add_f32
  b = f32[8,16] broadcast(r), dimensions={0}
  ROOT d = f32[8,16] divide(p, b)
})"));
  FusionDecision d =
      ShouldFuse(*Find(*module, "r"), *Find(*module, "b"), FusionOptions());
  EXPECT_FALSE(d.fuse);
  EXPECT_TRUE(absl::StrContains(d.rule, "reduction barrier")) << d.rule;
  // Producers of a reduce fuse into it: a reduction (kInput) fusion.
  FusionDecision into_reduce =
      ShouldFuse(*Find(*module, "c"), *Find(*module, "r"), FusionOptions());
  EXPECT_TRUE(into_reduce.fuse);
  EXPECT_EQ(into_reduce.kind, FusionKind::kInput);
}

TEST(CostModel, ExpensiveProducerIntoExpandingConsumer) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  x = f32[8] log(p)
  ROOT b = f32[8,128] broadcast(x), dimensions={0}
})");
  FusionDecision d =
      ShouldFuse(*Find(*module, "x"), *Find(*module, "b"), FusionOptions());
  EXPECT_FALSE(d.fuse);
  EXPECT_EQ(d.rule,
            "not fused: producer log is expensive and the consumer reads each "
            "element 128 times");
}

TEST(CostModel, DotEpilogueOnlyWhereEnabled) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  a = f32[8,16] parameter(0)
  w = f32[16,4] parameter(1)
  d = f32[8,4] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[] constant(0)
  z = f32[8,4] broadcast(c), dimensions={}
  ROOT r = f32[8,4] maximum(d, z)
})");
  FusionDecision gpu =
      ShouldFuse(*Find(*module, "d"), *Find(*module, "r"), FusionOptions());
  EXPECT_TRUE(gpu.fuse);
  EXPECT_EQ(gpu.kind, FusionKind::kOutput);
  FusionDecision cpu =
      ShouldFuse(*Find(*module, "d"), *Find(*module, "r"), CpuOptions());
  EXPECT_FALSE(cpu.fuse);
  EXPECT_TRUE(absl::StrContains(cpu.rule, "library call")) << cpu.rule;
  // Nothing fuses into a dot's operands.
  FusionDecision into_dot =
      ShouldFuse(*Find(*module, "a"), *Find(*module, "d"), FusionOptions());
  EXPECT_FALSE(into_dot.fuse);
}

TEST(CostModel, InPlaceOperandOfDynamicUpdateSlice) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  p = f32[64] parameter(0)
  u = f32[8] parameter(1)
  i = s32[] parameter(2)
  buffer = f32[64] negate(p)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT d = f32[64] dynamic-update-slice(buffer, u, j)
})");
  FusionDecision buffer = ShouldFuse(*Find(*module, "buffer"),
                                     *Find(*module, "d"), FusionOptions());
  EXPECT_FALSE(buffer.fuse);
  EXPECT_TRUE(absl::StrContains(buffer.rule, "in-place")) << buffer.rule;
  FusionDecision index =
      ShouldFuse(*Find(*module, "j"), *Find(*module, "d"), FusionOptions());
  EXPECT_TRUE(index.fuse);
}

TEST(CostModel, NeverFused) {
  auto module = Parse(WithReducers(R"(
ENTRY e {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[16] rng(lo, hi), distribution=rng_uniform
  n = f32[16] negate(r)
  i = s32[4,1] parameter(0)
  u = f32[4] parameter(1)
  s = f32[16] scatter(n, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32
  k = f32[16] sort(s), dimensions={0}, to_apply=lt_f32
  ROOT c = f32[16] custom-call(k), custom_call_target="foo"
})"));
  EXPECT_TRUE(absl::StrContains(
      ShouldFuse(*Find(*module, "r"), *Find(*module, "n"), FusionOptions())
          .rule,
      "side effects"));
  EXPECT_TRUE(absl::StrContains(
      ShouldFuse(*Find(*module, "n"), *Find(*module, "s"), FusionOptions())
          .rule,
      "no scatter fusions"));
  EXPECT_TRUE(absl::StrContains(
      ShouldFuse(*Find(*module, "s"), *Find(*module, "k"), FusionOptions())
          .rule,
      "kernel of its own"));
  EXPECT_TRUE(absl::StrContains(
      ShouldFuse(*Find(*module, "k"), *Find(*module, "c"), FusionOptions())
          .rule,
      "library call"));
}

// A butterfly network: each stage reads both halves of the last stage's
// concatenation through slices, so every stage fused into a kernel
// multiplies how often the kernel emits the stages before it (the bitonic
// merges of sort-splitter once made 144 MB of LLVM IR). The limit splits
// the chain into kernels that each emit a stage at most
// kMaxProducerEmissions times, and the values stay the same. With
// return_all every stage is also an output of the module.
std::string Butterflies(int stages, bool return_all = false) {
  std::string text = "HloModule m\nENTRY e {\n  s0 = f32[64] parameter(0)\n";
  std::vector<std::string> types, names;
  for (int k = 1; k <= stages; ++k) {
    const std::string x = absl::StrCat("s", k - 1);
    absl::StrAppend(&text, "  lo", k, " = f32[32] slice(", x,
                    "), slice={[0:32]}\n", "  hi", k, " = f32[32] slice(", x,
                    "), slice={[32:64]}\n", "  a", k, " = f32[32] maximum(lo",
                    k, ", hi", k, ")\n", "  b", k, " = f32[32] minimum(lo", k,
                    ", hi", k, ")\n", "  ",
                    k == stages && !return_all ? "ROOT " : "", "s", k,
                    " = f32[64] concatenate(a", k, ", b", k,
                    "), dimensions={0}\n");
    types.push_back("f32[64]");
    names.push_back(absl::StrCat("s", k));
  }
  if (return_all) {
    absl::StrAppend(&text, "  ROOT t = (", absl::StrJoin(types, ", "),
                    ") tuple(", absl::StrJoin(names, ", "), ")\n");
  }
  return text + "}\n";
}

TEST(CostModel, ProducerEmissionsCountIndexings) {
  auto module = Parse(Butterflies(1));
  // concatenate reads each operand at an index of its own, once; maximum
  // reads both slices at its own index.
  EXPECT_EQ(ProducerEmissions(*Find(*module, "s1"), *Find(*module, "a1")), 1);
  EXPECT_EQ(ProducerEmissions(*Find(*module, "a1"), *Find(*module, "lo1")), 1);
  // The fused stage reads its input through two slices, in each of
  // concatenate's two branches (basic blocks of their own, which share no
  // values): four emissions.
  FusionReport report;
  RunFusion(module.get(), &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(ProducerEmissions(*fusions[0], *fusions[0]->operand(0)), 4);
}

TEST(CostModel, ButterflyChainsSplitAtTheEmissionLimit) {
  auto module = Parse(Butterflies(10));
  FusionReport report;
  RunFusion(module.get(), &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  // Each stage emits the one before it 4 times (two slices in each of
  // concatenate's two branches): 10 stages in one kernel would emit the
  // first 4^9 times. With at most 15 a kernel holds 2 stages, and the
  // chain takes 5 kernels.
  EXPECT_EQ(fusions.size(), 5u);
  bool refused = false;
  for (const FusionDecisionRecord& r : report.records()) {
    refused |= absl::StrContains(r.rule, "code duplication limit");
  }
  EXPECT_TRUE(refused);
}

TEST(CostModel, OperandLimit) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  c = f32[4] parameter(2)
  x = f32[4] add(a, b)
  ROOT y = f32[4] multiply(x, c)
})");
  FusionOptions options;
  options.max_operands = 2;
  FusionDecision d =
      ShouldFuse(*Find(*module, "x"), *Find(*module, "y"), options);
  EXPECT_FALSE(d.fuse);
  EXPECT_EQ(d.rule, "not fused: fusion would have 3 operands (limit 2)");
}

// ---- instruction-fusion -----------------------------------------------------

TEST(InstructionFusion, ElementwiseChainIsOneLoopFusion) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  x = f32[64,32] parameter(0)
  b = f32[32] parameter(1)
  bb = f32[64,32] broadcast(b), dimensions={1}
  a = f32[64,32] add(x, bb)
  t = f32[32,64] transpose(a), dimensions={1,0}
  l = f32[32,64] logistic(t)
  ROOT s = f32[16,64] slice(l), slice={[0:32:2], [0:64]}
})");
  FusionReport report;
  RunFusion(module.get(), &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->fusion_kind(), FusionKind::kLoop);
  EXPECT_EQ(fusions[0]->operand_count(), 2);
  EXPECT_EQ(CountKernels(*module).total(), 1);
}

TEST(InstructionFusion, ExpensiveProducerJoinsOnceAllUsersAreInside) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  p = f32[16] parameter(0)
  x = f32[16] exponential(p)
  a = f32[16] add(x, p)
  ROOT b = f32[16] multiply(x, a)
})");
  FusionReport report;
  RunFusion(module.get(), &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(CountIn(*fusions[0]->fused_computation(), HloOpcode::kExp), 1);
  EXPECT_TRUE(
      ReportHas(report, "x (exponential)", "expensive elementwise", true));
}

TEST(InstructionFusion, CheapProducerIsCopiedIntoEachConsumer) {
  auto module = Parse(WithReducers(R"(
ENTRY e {
  p = f32[16,8] parameter(0)
  n = f32[16,8] negate(p)
  c = f32[] constant(0)
  r = f32[16] reduce(n, c), dimensions={1}, to_apply=add_f32
  t = f32[8,16] transpose(n), dimensions={1,0}
  ROOT out = (f32[16], f32[8,16]) tuple(r, t)
})"));
  FusionReport report;
  RunFusion(module.get(), &report, /*gpu=*/false);
  // negate is in both kernels; no kernel computes it alone.
  EXPECT_EQ(CountKernels(*module).total(), 2);
  for (HloInstruction* fusion : EntryFusions(*module)) {
    EXPECT_EQ(CountIn(*fusion->fused_computation(), HloOpcode::kNegate), 1);
  }
}

// JAX's threefry for the GPU is unrolled: each round's two values feed two
// ops of the next (x0 += x1; x1 = rotl(x1) ^ x0), a DAG of cheap shared
// values. Copies of them were fused once per path that reached them, a
// number of fusions exponential in the rounds (24 rounds never finished; 8
// took 76090 fusions). Latest operand first, each value joins a consumer
// at most once.
TEST(InstructionFusion, SharedCheapValuesAreFusedOncePerConsumer) {
  constexpr int kRounds = 24;
  std::string text = R"(
ENTRY e {
  a = u32[4,6] parameter(0)
  b = u32[4,6] parameter(1)
  s = u32[] constant(13)
  t = u32[] constant(19)
  sb = u32[4,6] broadcast(s), dimensions={}
  tb = u32[4,6] broadcast(t), dimensions={}
)";
  std::string x0 = "a", x1 = "b";
  for (int i = 0; i < kRounds; ++i) {
    const std::string n = absl::StrCat("n", i), x = absl::StrCat("x", i);
    absl::StrAppend(&text, "  ", n, " = u32[4,6] add(", x0, ", ", x1, ")\n",
                    "  l", i, " = u32[4,6] shift-left(", x1, ", sb)\n", "  r",
                    i, " = u32[4,6] shift-right-logical(", x1, ", tb)\n", "  o",
                    i, " = u32[4,6] or(l", i, ", r", i, ")\n", "  ", x,
                    " = u32[4,6] xor(o", i, ", ", n, ")\n");
    x0 = n;
    x1 = x;
  }
  absl::StrAppend(&text, "  ROOT out = (u32[4,6], u32[4,6]) tuple(", x0, ", ",
                  x1, ")\n}\n");
  auto module = Parse(text);
  ASSERT_NE(module, nullptr);
  InstructionFusion fusion(CpuOptions());
  absl::StatusOr<bool> changed = fusion.Run(module.get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  // Two consumers (the two outputs) take in at most every instruction each.
  const int64_t instructions = 6 + 5 * kRounds;
  EXPECT_LE(fusion.statistics().at("fusions"), 2 * instructions);
  EXPECT_EQ(CountKernels(*module).total(), 2);
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
}

TEST(InstructionFusion, ReductionFusionStopsAtTheReduce) {
  auto module = Parse(WithReducers(R"(
ENTRY e {
  p = f32[8,16] parameter(0)
  x = f32[8,16] exponential(p)
  c = f32[] constant(0)
  r = f32[8] reduce(x, c), dimensions={1}, to_apply=add_f32
  l = f32[8] log(r)
  ROOT d = f32[8] negate(l)
})"));
  FusionReport report;
  RunFusion(module.get(), &report, /*gpu=*/false);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 2u);
  EXPECT_EQ(fusions[0]->fusion_kind(), FusionKind::kInput);
  EXPECT_EQ(fusions[0]->fused_expression_root()->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(fusions[1]->fusion_kind(), FusionKind::kLoop);
  EXPECT_TRUE(ReportHas(report, "r (reduce)", "reduction barrier", false));
}

TEST(InstructionFusion, DotEpilogueBecomesOutputFusion) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  a = f32[8,16] parameter(0)
  w = f32[16,4] parameter(1)
  bias = f32[4] parameter(2)
  d = f32[8,4] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[8,4] broadcast(bias), dimensions={1}
  s = f32[8,4] add(d, bb)
  ROOT t = f32[8,4] tanh(s)
})");
  FusionReport report;
  RunFusion(module.get(), &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->fusion_kind(), FusionKind::kOutput);
  absl::StatusOr<const HloInstruction*> dot =
      AnalyzeDotEpilogue(*fusions[0]->fused_computation());
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_EQ((*dot)->opcode(), HloOpcode::kDot);

  auto cpu = Parse(R"(HloModule m
ENTRY e {
  a = f32[8,16] parameter(0)
  w = f32[16,4] parameter(1)
  d = f32[8,4] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[8,4] tanh(d)
})");
  FusionReport cpu_report;
  RunFusion(cpu.get(), &cpu_report, /*gpu=*/false);
  EXPECT_EQ(CountIn(*cpu->entry_computation(), HloOpcode::kDot), 1);
  EXPECT_EQ(CountKernels(*cpu).total(), 2);
}

TEST(InstructionFusion, DynamicUpdateSliceStaysInPlace) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  x = f32[64,32] parameter(0)
  buffer = f32[64,32] negate(x)
  u = f32[8,32] parameter(1)
  i = s32[] parameter(2)
  zero = s32[] constant(0)
  lt = pred[] compare(i, zero), direction=LT
  n = s32[] constant(64)
  wrapped = s32[] add(i, n)
  start = s32[] select(lt, wrapped, i)
  ROOT d = f32[64,32] dynamic-update-slice(buffer, u, start, zero)
})");
  FusionReport report;
  RunFusion(module.get(), &report);
  HloInstruction* root = module->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(root->fused_expression_root()->opcode(),
            HloOpcode::kDynamicUpdateSlice);
  // The buffer is computed by its own kernel and updated in place.
  const HloInstruction* buffer = root->fused_expression_root()->operand(0);
  ASSERT_EQ(buffer->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(root->operand(buffer->parameter_number())->opcode(),
            HloOpcode::kNegate);
  EXPECT_EQ(CountIn(*root->fused_computation(), HloOpcode::kSelect), 1);
  EXPECT_TRUE(ReportHas(report, "buffer (negate)", "in-place", false));
}

TEST(InstructionFusion, VariadicReduceAndReduceWindow) {
  auto module = Parse(R"(HloModule m
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  v = f32[] select(gt, v0, v1)
  i = s32[] select(gt, i0, i1)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
max_f32 {
  max_lhs = f32[] parameter(0)
  max_rhs = f32[] parameter(1)
  ROOT max_result = f32[] maximum(max_lhs, max_rhs)
}
ENTRY e {
  x = f32[6,10] parameter(0)
  n = f32[6,10] negate(x)
  io = s32[6,10] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  am = (f32[6], s32[6]) reduce(n, io, ninf, zero), dimensions={1}, to_apply=argmax
  idx = s32[6] get-tuple-element(am), index=1
  a = f32[6,10] abs(x)
  pool = f32[3,5] reduce-window(a, ninf), window={size=2x2 stride=2x2}, to_apply=max_f32
  ROOT out = (s32[6], f32[3,5]) tuple(idx, pool)
})");
  FusionReport report;
  RunFusion(module.get(), &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 2u);
  // argmax: negate and iota computed while reducing.
  const HloInstruction* reduction =
      fusions[0]->fusion_kind() == FusionKind::kInput ? fusions[0] : fusions[1];
  EXPECT_EQ(reduction->fusion_kind(), FusionKind::kInput);
  EXPECT_EQ(CountIn(*reduction->fused_computation(), HloOpcode::kIota), 1);
  // Max pooling: the window reduction is the root of a loop fusion.
  const HloInstruction* pool =
      reduction == fusions[0] ? fusions[1] : fusions[0];
  EXPECT_EQ(pool->fusion_kind(), FusionKind::kLoop);
  EXPECT_EQ(pool->fused_expression_root()->opcode(), HloOpcode::kReduceWindow);
}

// A cumsum as reduce-window-to-scan leaves it: a scan of a converted input
// from a broadcast zero carry, its result scaled after. With scan fusions
// (the GPUs') the convert and the broadcast are computed by the scan's
// kernel; the scale after it is a kernel of its own (a scan is a barrier),
// and so is the scan on the CPU, whose scan loop reads buffers.
constexpr absl::string_view kCumsumOfConvert = R"(HloModule m
scan_body {
  x = f32[5] parameter(0)
  c = f32[5] parameter(1)
  s = f32[5] add(c, x)
  ROOT t = (f32[5], f32[5]) tuple(s, s)
}
ENTRY e {
  x = s32[40,5] parameter(0)
  xf = f32[40,5] convert(x)
  zero = f32[] constant(0)
  init = f32[5] broadcast(zero), dimensions={}
  sc = (f32[40,5], f32[5]) scan(xf, init), dimensions={0}, num_carries=1, is_associative=true, to_apply=scan_body
  sums = f32[40,5] get-tuple-element(sc), index=0
  half = f32[] constant(0.5)
  halves = f32[40,5] broadcast(half), dimensions={}
  ROOT scaled = f32[40,5] multiply(sums, halves)
})";

TEST(InstructionFusion, ScanComputesItsOperandsProducers) {
  auto module = Parse(kCumsumOfConvert);
  FusionOptions options;
  options.scan_fusion = true;
  FusionReport report;
  RunFusionAndCheck(module.get(), options, &report, Tolerance{1e-6, 1e-6});
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 2u);
  const HloInstruction* scan = fusions[0];
  EXPECT_EQ(GetFusionShape(*scan), FusionShape::kScan);
  EXPECT_EQ(scan->fusion_kind(), FusionKind::kCustom);
  EXPECT_EQ(scan->name().rfind("scan_fusion", 0), 0u) << scan->name();
  EXPECT_EQ(scan->fused_expression_root()->opcode(), HloOpcode::kScan);
  EXPECT_EQ(CountIn(*scan->fused_computation(), HloOpcode::kConvert), 1);
  EXPECT_EQ(CountIn(*scan->fused_computation(), HloOpcode::kBroadcast), 1);
  EXPECT_EQ(scan->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_TRUE(
      ReportHas(report, "init (broadcast)", "into scan consumer", true));
  EXPECT_TRUE(
      ReportHas(report, "xf (convert)", "into scan fusion consumer", true));
  // The multiply reads the scan's result: a loop fusion of its own.
  EXPECT_EQ(GetFusionShape(*fusions[1]), FusionShape::kLoop);
  EXPECT_EQ(fusions[1]->fused_expression_root()->opcode(),
            HloOpcode::kMultiply);
  EXPECT_EQ(CountIn(*fusions[1]->fused_computation(), HloOpcode::kScan), 0);
}

TEST(InstructionFusion, ScansReadBuffersWithoutScanFusion) {
  auto module = Parse(kCumsumOfConvert);
  FusionReport report;
  RunFusionAndCheck(module.get(), CpuOptions(), &report, Tolerance{1e-6, 1e-6});
  EXPECT_EQ(CountIn(*module->entry_computation(), HloOpcode::kScan), 1);
  for (const HloInstruction* fusion : EntryFusions(*module)) {
    EXPECT_NE(GetFusionShape(*fusion), FusionShape::kScan);
  }
  EXPECT_TRUE(ReportHas(report, "xf (convert)", "no scan fusions", false));
}

// jnp.zeros(16).at[i].add(2 * u): with scatter fusions (the GPUs') the
// zeros and the doubling are computed by the scatter's kernels (the copy
// of operand 0 and the updates); the negation of its result is a kernel
// of its own. Without them (the CPU) the scatter reads buffers.
constexpr absl::string_view kScatterOfZeros = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  i = s32[6,1] parameter(0)
  u = f32[6] parameter(1)
  two = f32[] constant(2)
  twos = f32[6] broadcast(two), dimensions={}
  u2 = f32[6] multiply(u, twos)
  zero = f32[] constant(0)
  zeros = f32[16] broadcast(zero), dimensions={}
  s = f32[16] scatter(zeros, i, u2), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT n = f32[16] negate(s)
})";

TEST(InstructionFusion, ScatterComputesItsOperandsProducers) {
  auto module = Parse(kScatterOfZeros);
  FusionOptions options;
  options.scatter_fusion = true;
  FusionReport report;
  RunFusionAndCheck(module.get(), options, &report, Tolerance{1e-6, 1e-6});
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u);
  const HloInstruction* scatter = fusions[0];
  EXPECT_EQ(GetFusionShape(*scatter), FusionShape::kScatter);
  EXPECT_EQ(scatter->name().rfind("scatter_fusion", 0), 0u) << scatter->name();
  EXPECT_EQ(scatter->fused_expression_root()->opcode(), HloOpcode::kScatter);
  EXPECT_EQ(CountIn(*scatter->fused_computation(), HloOpcode::kMultiply), 1);
  EXPECT_EQ(CountIn(*scatter->fused_computation(), HloOpcode::kBroadcast), 2);
  // Its operands are the indices and the updates' source only.
  EXPECT_EQ(scatter->operand_count(), 2);
  const HloInstruction* root = module->entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(root->operand(0), scatter);
  EXPECT_TRUE(ReportHas(report, "s (scatter)", "not fused", false));
}

TEST(InstructionFusion, ScattersReadBuffersWithoutScatterFusion) {
  auto module = Parse(kScatterOfZeros);
  FusionReport report;
  RunFusionAndCheck(module.get(), CpuOptions(), &report, Tolerance{1e-6, 1e-6});
  EXPECT_EQ(CountIn(*module->entry_computation(), HloOpcode::kScatter), 1);
  EXPECT_TRUE(ReportHas(report, "u2 (multiply)", "no scatter fusions", false));
}

TEST(MultiOutputFusion, SiblingReductionsShareTheirInput) {
  // Mean and mean of squares of the same columns: one reduction kernel with
  // two outputs.
  auto module = Parse(WithReducers(R"(
ENTRY e {
  x = f32[64,32] parameter(0)
  zero = f32[] constant(0)
  s = f32[32] reduce(x, zero), dimensions={0}, to_apply=add_f32
  sq = f32[64,32] multiply(x, x)
  s2 = f32[32] reduce(sq, zero), dimensions={0}, to_apply=add_f32
  ROOT out = (f32[32], f32[32]) tuple(s, s2)
})"));
  FusionReport report;
  RunFusion(module.get(), &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->fusion_kind(), FusionKind::kInput);
  EXPECT_TRUE(fusions[0]->IsMultiOutputFusion());
  EXPECT_EQ(CountKernels(*module).total(), 1);
}

// ---- row-reduction-fusion ---------------------------------------------------

constexpr absl::string_view kSoftmax = R"(
ENTRY e {
  x = f32[4,8] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[4] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[4,8] broadcast(m), dimensions={0}
  s = f32[4,8] subtract(x, mb)
  e = f32[4,8] exponential(s)
  zero = f32[] constant(0)
  sum = f32[4] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[4,8] broadcast(sum), dimensions={0}
  ROOT d = f32[4,8] divide(e, sb)
})";

TEST(RowReductionFusion, SoftmaxIsOneKernel) {
  auto module = Parse(WithReducers(kSoftmax));
  FusionReport report;
  RunFusion(module.get(), &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(GetFusionShape(*fusions[0]), FusionShape::kRowReduction);
  EXPECT_EQ(fusions[0]->backend_config(), kRowReductionBackendConfig);
  absl::StatusOr<RowReductionInfo> info =
      AnalyzeRowReduction(*fusions[0]->fused_computation());
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->rows, (RowShape{4, 8}));
  EXPECT_EQ(info->reductions.size(), 2u);
  EXPECT_EQ(CountKernels(*module).total(), 1);
}

TEST(RowReductionFusion, SoftmaxOnTheCpuIsThreeKernels) {
  auto module = Parse(WithReducers(kSoftmax));
  FusionReport report;
  RunFusion(module.get(), &report, /*gpu=*/false);
  // max; exp and its sum (exp kept as a second output of the reduction);
  // divide.
  EXPECT_EQ(CountKernels(*module).total(), 3);
  EXPECT_TRUE(ReportHas(report, "", "kept as an extra output", true))
      << FormatFusionReport(report);
}

TEST(RowReductionFusion, ColumnReductionIsNotARowReduction) {
  auto module = Parse(WithReducers(R"(
ENTRY e {
  x = f32[8,16] parameter(0)
  zero = f32[] constant(0)
  s = f32[16] reduce(x, zero), dimensions={0}, to_apply=add_f32
  b = f32[8,16] broadcast(s), dimensions={1}
  ROOT d = f32[8,16] divide(x, b)
})"));
  EXPECT_FALSE(GetRowReductionShape(*Find(*module, "s")).has_value());
  FusionReport report;
  RunFusion(module.get(), &report);
  for (HloInstruction* fusion : EntryFusions(*module)) {
    EXPECT_NE(GetFusionShape(*fusion), FusionShape::kRowReduction);
  }
  EXPECT_EQ(CountKernels(*module).total(), 2);
}

// A log-sum-exp over a 32k vocabulary of bf16 logits, as JAX's
// cross-entropy computes it (f32 rows of 128 KiB): one kernel reading the
// logits once, not two reductions each reading them.
TEST(RowReductionFusion, VocabularyLogSumExpIsOneKernel) {
  auto module = Parse(WithReducers(R"(
ENTRY e {
  logits = bf16[4,32768] parameter(0)
  x = f32[4,32768] convert(logits)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  m = f32[4] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[4,32768] broadcast(m), dimensions={0}
  d = f32[4,32768] subtract(x, mb)
  e = f32[4,32768] exponential(d)
  s = f32[4] reduce(e, zero), dimensions={1}, to_apply=add_f32
  l = f32[4] log(s)
  ROOT lse = f32[4] add(l, m)
})"));
  FusionReport report;
  RunFusion(module.get(), &report);
  EXPECT_EQ(CountKernels(*module).total(), 1);
}

TEST(RowReductionFusion, LongRowsDoNotFitOneBlock) {
  auto module = Parse(WithReducers(R"(
ENTRY e {
  x = f32[2,40000] parameter(0)
  zero = f32[] constant(0)
  s = f32[2] reduce(x, zero), dimensions={1}, to_apply=add_f32
  b = f32[2,40000] broadcast(s), dimensions={0}
  ROOT d = f32[2,40000] divide(x, b)
})"));
  FusionReport report;
  RunFusion(module.get(), &report);
  EXPECT_EQ(CountKernels(*module).total(), 2);
  EXPECT_TRUE(ReportHas(report, "s (reduce)", "do not fit one block", false));
}

TEST(RowReductionFusion, ReshapesAndDegenerateDimensionsKeepRows) {
  // JAX's keepdims pattern: reduce, reshape to [N,1], broadcast back.
  auto module = Parse(WithReducers(R"(
ENTRY e {
  h = f32[6,4,5] parameter(0)
  zero = f32[] constant(0)
  s = f32[6] reduce(h, zero), dimensions={1,2}, to_apply=add_f32
  k = f32[6,1] reshape(s)
  n = f32[] constant(20)
  nb = f32[6,1] broadcast(n), dimensions={}
  mean = f32[6,1] divide(k, nb)
  m2 = f32[6] reshape(mean)
  mb = f32[6,4,5] broadcast(m2), dimensions={0}
  c = f32[6,4,5] subtract(h, mb)
  flat = f32[6,20] reshape(c)
  sq = f32[6,20] multiply(flat, flat)
  v = f32[6] reduce(sq, zero), dimensions={1}, to_apply=add_f32
  ROOT out = (f32[6,20], f32[6]) tuple(flat, v)
})"));
  FusionReport report;
  RunFusion(module.get(), &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(GetFusionShape(*fusions[0]), FusionShape::kRowReduction);
  EXPECT_TRUE(fusions[0]->IsMultiOutputFusion());
}

TEST(RowReductionFusion, NoCycleThroughAnOutsideKernel) {
  // s is per-row work, but t/tt move it across rows outside the fusion; out
  // uses both, so it cannot join the row fusion (that would be a cycle).
  auto module = Parse(WithReducers(R"(
ENTRY e {
  x = f32[4,4] parameter(0)
  zero = f32[] constant(0)
  r = f32[4] reduce(x, zero), dimensions={1}, to_apply=add_f32
  b = f32[4,4] broadcast(r), dimensions={0}
  s = f32[4,4] subtract(x, b)
  t = f32[4,4] transpose(s), dimensions={1,0}
  c = f32[4,4] sort(t), dimensions={1}, to_apply=lt_f32
  ROOT out = f32[4,4] add(s, c)
})"));
  FusionReport report;
  RunFusion(module.get(), &report);
  EXPECT_TRUE(ReportHas(report, "s (subtract)", "would create a cycle", false));
  EXPECT_TRUE(ReportHas(report, "s (subtract)", "transpose", false));
}

// RMSNorm then a rotary embedding (a Llama attention input, as JAX lowers
// it): each head's halves are sliced, rotated and concatenated again. The
// concatenate is the fusion's hero (its one output reads it at its own
// positions), so the whole of it is one kernel.
constexpr absl::string_view kRmsNormRotary = R"(
ENTRY e {
  x = f32[2,3,8] parameter(0)
  cs = f32[3,2] parameter(1)
  sq = f32[2,3,8] multiply(x, x)
  zero = f32[] constant(0)
  ss = f32[2,3] reduce(sq, zero), dimensions={2}, to_apply=add_f32
  r = f32[2,3] rsqrt(ss)
  rb = f32[2,3,8] broadcast(r), dimensions={0,1}
  n = f32[2,3,8] multiply(x, rb)
  h = f32[2,3,2,4] reshape(n)
  x1 = f32[2,3,2,2] slice(h), slice={[0:2], [0:3], [0:2], [0:2]}
  x2 = f32[2,3,2,2] slice(h), slice={[0:2], [0:3], [0:2], [2:4]}
  cb = f32[2,3,2,2] broadcast(cs), dimensions={1,3}
  a = f32[2,3,2,2] multiply(x1, cb)
  b = f32[2,3,2,2] multiply(x2, cb)
  d = f32[2,3,2,2] subtract(a, b)
  c = f32[2,3,2,4] concatenate(d, a), dimensions={3}
  ROOT out = f32[2,3,8] reshape(c)
})";

TEST(RowReductionFusion, AConcatenateHeroJoins) {
  auto module = Parse(WithReducers(kRmsNormRotary));
  FusionReport report;
  RunFusion(module.get(), &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u) << PrintModule(*module);
  EXPECT_EQ(GetFusionShape(*fusions[0]), FusionShape::kRowReduction);
  EXPECT_EQ(CountKernels(*module).total(), 1);
  const HloComputation& fused = *fusions[0]->fused_computation();
  absl::StatusOr<RowReductionInfo> info = AnalyzeRowReduction(fused);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->rows, (RowShape{6, 8}));
  const HloInstruction* hero = FindRowConcatenateHero(fused);
  ASSERT_NE(hero, nullptr);
  EXPECT_EQ(hero->opcode(), HloOpcode::kConcatenate);
}

// The concatenate is also read reversed (not at the output's positions):
// no hero, so it stays out, and the row fusion ends at the whole rows.
TEST(RowReductionFusion, AConcatenateWithoutHeroStaysOut) {
  std::string text(kRmsNormRotary);
  text.replace(text.find("  ROOT out = f32[2,3,8] reshape(c)"),
               std::string("  ROOT out = f32[2,3,8] reshape(c)").size(),
               "  o = f32[2,3,8] reshape(c)\n"
               "  rv = f32[2,3,2,4] reverse(c), dimensions={3}\n"
               "  o2 = f32[2,3,8] reshape(rv)\n"
               "  ROOT out = f32[2,3,8] add(o, o2)");
  auto module = Parse(WithReducers(text));
  FusionReport report;
  RunFusion(module.get(), &report);
  EXPECT_TRUE(ReportHas(report, "", "hero", false))
      << FormatFusionReport(report);
  EXPECT_TRUE(ReportHas(report, "h (reshape)", "a piece of each row", false))
      << FormatFusionReport(report);
  EXPECT_EQ(CountKernels(*module).total(), 2) << PrintModule(*module);
  for (HloInstruction* fusion : EntryFusions(*module)) {
    if (GetFusionShape(*fusion) != FusionShape::kRowReduction) continue;
    EXPECT_EQ(FindRowConcatenateHero(*fusion->fused_computation()), nullptr);
  }
}

// A transpose, a reverse and a slice padded back to the row, all within
// the rows: one kernel.
TEST(RowReductionFusion, MovesWithinRowsJoin) {
  auto module = Parse(WithReducers(R"(
ENTRY e {
  x = f32[7,48] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[7] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[7,48] broadcast(m), dimensions={0}
  d = f32[7,48] subtract(x, mb)
  d3 = f32[7,6,8] reshape(d)
  t = f32[7,8,6] transpose(d3), dimensions={0,2,1}
  tf = f32[7,48] reshape(t)
  rv = f32[7,48] reverse(d), dimensions={1}
  sl = f32[7,40] slice(d), slice={[0:7], [4:44]}
  zero = f32[] constant(0)
  pd = f32[7,48] pad(sl, zero), padding=0_0x2_6
  s1 = f32[7,48] add(tf, rv)
  ROOT o = f32[7,48] add(s1, pd)
})"));
  FusionReport report;
  RunFusion(module.get(), &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u) << PrintModule(*module);
  EXPECT_EQ(GetFusionShape(*fusions[0]), FusionShape::kRowReduction);
  EXPECT_EQ(CountKernels(*module).total(), 1);
}

// A ladder of moves within the rows that reads each level at two indices
// (an associative scan's levels: jax.grad of lax.cumlogsumexp) would have
// the row fusion's elemental code for the first level emitted 2^levels
// times: past kMaxProducerEmissions (15) the group is left to
// instruction-fusion, below it it is one row fusion as before.
std::string RowLadder(int levels) {
  std::string hlo = R"(
ENTRY e {
  x = f32[7,64] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[7] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[7,64] broadcast(m), dimensions={0}
  h0 = f32[7,64] subtract(x, mb)
)";
  int n = 64;
  for (int k = 1; k <= levels; ++k) {
    const int h = n / 2;
    absl::StrAppend(&hlo, "  a", k, " = f32[7,", h, "] slice(h", k - 1,
                    "), slice={[0:7], [0:", h, "]}\n", "  b", k, " = f32[7,", h,
                    "] slice(h", k - 1, "), slice={[0:7], [", h, ":", n, "]}\n",
                    "  h", k, " = f32[7,", h, "] add(a", k, ", b", k, ")\n");
    n = h;
  }
  absl::StrAppend(&hlo, "  zero = f32[] constant(0)\n",
                  "  ROOT o = f32[7,64] pad(h", levels,
                  ", zero), padding=0_0x0_", 64 - n, "\n}");
  return hlo;
}

TEST(RowReductionFusion, LaddersOfMovesKeepTheirCodeBounded) {
  for (int levels : {3, 5}) {
    SCOPED_TRACE(levels);
    auto module = Parse(WithReducers(RowLadder(levels)));
    FusionReport report;
    RunFusion(module.get(), &report);
    int row_fusions = 0;
    for (HloInstruction* f : EntryFusions(*module)) {
      row_fusions += GetFusionShape(*f) == FusionShape::kRowReduction;
    }
    EXPECT_EQ(row_fusions, levels == 3 ? 1 : 0) << PrintModule(*module);
    EXPECT_EQ(ReportHas(report, "", "row fusion would emit h0's code 32 times",
                        false),
              levels == 5)
        << FormatFusionReport(report);
  }
}

TEST(RowReductionFusion, ARowPieceUsedOutsideStaysOut) {
  // x1, a piece of each row, is also an output: the fusion can only write
  // whole rows, so x1 and what is computed from it stay outside, and n is
  // the row fusion's output instead.
  auto module = Parse(WithReducers(R"(
ENTRY e {
  x = f32[6,8] parameter(0)
  zero = f32[] constant(0)
  ss = f32[6] reduce(x, zero), dimensions={1}, to_apply=add_f32
  rb = f32[6,8] broadcast(ss), dimensions={0}
  n = f32[6,8] divide(x, rb)
  x1 = f32[6,4] slice(n), slice={[0:6], [0:4]}
  x2 = f32[6,4] slice(n), slice={[0:6], [4:8]}
  e = f32[6,4] exponential(x1)
  c = f32[6,8] concatenate(e, x2), dimensions={1}
  ROOT out = (f32[6,8], f32[6,4]) tuple(c, x1)
})"));
  FusionReport report;
  RunFusion(module.get(), &report);
  EXPECT_TRUE(ReportHas(report, "n (divide)", "a piece of each row", false))
      << FormatFusionReport(report);
  HloInstruction* row_fusion = nullptr;
  for (HloInstruction* fusion : EntryFusions(*module)) {
    if (GetFusionShape(*fusion) == FusionShape::kRowReduction) {
      row_fusion = fusion;
    }
  }
  ASSERT_NE(row_fusion, nullptr) << PrintModule(*module);
  absl::StatusOr<RowReductionInfo> info =
      AnalyzeRowReduction(*row_fusion->fused_computation());
  EXPECT_TRUE(info.ok()) << info.status();
}

TEST(RowReductionFusion, SlicesAcrossRowsDoNotJoin) {
  auto module = Parse(WithReducers(R"(
ENTRY e {
  x = f32[6,8] parameter(0)
  zero = f32[] constant(0)
  ss = f32[6] reduce(x, zero), dimensions={1}, to_apply=add_f32
  rb = f32[6,8] broadcast(ss), dimensions={0}
  n = f32[6,8] divide(x, rb)
  top = f32[3,8] slice(n), slice={[0:3], [0:8]}
  ROOT e = f32[3,8] exponential(top)
})"));
  FusionReport report;
  RunFusion(module.get(), &report);
  EXPECT_TRUE(ReportHas(report, "n (divide)", "across rows", false))
      << FormatFusionReport(report);
}

// ---- multi-output-fusion
// ------------------------------------------------------

TEST(MultiOutputFusion, SiblingsReadingTheSameInput) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  x = f32[4096] parameter(0)
  s = f32[4096] sine(x)
  c = f32[4096] cosine(x)
  ROOT t = (f32[4096], f32[4096]) tuple(s, c)
})");
  FusionReport report;
  RunFusion(module.get(), &report);
  std::vector<HloInstruction*> fusions = EntryFusions(*module);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_TRUE(fusions[0]->IsMultiOutputFusion());
  EXPECT_EQ(fusions[0]->operand_count(), 1);
  EXPECT_TRUE(ReportHas(report, "", "siblings share operand x", true));
}

TEST(MultiOutputFusion, SiblingsOfDifferentShapesStayApart) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  x = f32[64] parameter(0)
  s = f32[64] sine(x)
  b = f32[8,64] broadcast(x), dimensions={1}
  c = f32[8,64] cosine(b)
  ROOT t = (f32[64], f32[8,64]) tuple(s, c)
})");
  FusionReport report;
  RunFusion(module.get(), &report);
  EXPECT_EQ(CountKernels(*module).total(), 2);
  EXPECT_TRUE(ReportHas(report, "", "different iteration spaces", false));
}

TEST(MultiOutputFusion, ReduceWindowSiblingsStayOutOfReductions) {
  // A reduce-window is only ever a loop kernel's output: merged as a
  // sibling into a row fusion (a softmax over one row of 7, beside a
  // max-pool of the same 7 values reshaped to [7, 1]) it made a kernel no
  // backend could emit: cuda and rocm failed to compile, AArch64 refused
  // it and x86 ran it in the evaluator (hunted14's random programs). Nor
  // does it join a column reduction's kernel as an input.
  for (absl::string_view text : {
           R"(
ENTRY e {
  p = f32[1,7] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  m = f32[1] reduce(p, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[1,7] broadcast(m), dimensions={0}
  d = f32[1,7] subtract(p, mb)
  x = f32[1,7] exponential(d)
  s = f32[1] reduce(x, zero), dimensions={1}, to_apply=add_f32
  sb = f32[1,7] broadcast(s), dimensions={0}
  sm = f32[1,7] divide(x, sb)
  r = f32[7,1] reshape(p)
  w = f32[7,1] reduce-window(r, ninf), window={size=2x2 stride=1x2 pad=0_1x0_1}, to_apply=max_f32
  ROOT t = (f32[1,7], f32[7,1]) tuple(sm, w)
})",
           R"(
ENTRY e {
  p = f32[64,32] parameter(0)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  x = f32[64,32] exponential(p)
  s = f32[32] reduce(x, zero), dimensions={0}, to_apply=add_f32
  w = f32[64,32] reduce-window(p, ninf), window={size=3x3 pad=1_1x1_1}, to_apply=max_f32
  ROOT t = (f32[32], f32[64,32]) tuple(s, w)
})"}) {
    auto module = Parse(WithReducers(text));
    FusionReport report;
    RunFusion(module.get(), &report);
    EXPECT_EQ(CountKernels(*module).total(), 2) << PrintModule(*module);
    EXPECT_TRUE(ReportHas(report, "", "different iteration spaces", false))
        << FormatFusionReport(report);
  }
}

TEST(MultiOutputFusion, ProducersKeepTheEmissionLimit) {
  // The butterfly chain with every stage also returned: instruction-fusion
  // splits it at the emission limit as above, and each kernel's output,
  // read by the next kernel and by the tuple, is a candidate extra output
  // of the next. Merged without the limit the kernels made one that
  // emitted the first stage 4^9 times (a cumulative logsumexp under vmap
  // and grad, whose associative scan is such a chain: 0.9 million lines of
  // LLVM IR in one kernel and 5 minutes of x86 compilation for an f32[11,6]
  // input, hunted15's random programs).
  auto module = Parse(Butterflies(10, /*return_all=*/true));
  FusionReport report;
  RunFusion(module.get(), &report);
  for (HloInstruction* fusion : EntryFusions(*module)) {
    EXPECT_LE(MaxFusedEmissions(*fusion), kMaxProducerEmissions)
        << PrintModule(*module);
  }
  bool refused = false;
  for (const FusionDecisionRecord& r : report.records()) {
    refused |= r.pass == "multi-output-fusion" &&
               absl::StrContains(r.rule, "code duplication limit");
  }
  EXPECT_TRUE(refused) << FormatFusionReport(report);
}

TEST(MultiOutputFusion, NoCycles) {
  // x feeds p and q; p also reaches q through a sort (a kernel of its own),
  // so neither producer-consumer nor sibling fusion of p and q is legal.
  auto module = Parse(WithReducers(R"(
ENTRY e {
  x = f32[16] parameter(0)
  p = f32[16] exponential(x)
  k = f32[16] sort(p), dimensions={0}, to_apply=lt_f32
  a = f32[16] add(k, x)
  ROOT q = f32[16] add(p, a)
})"));
  FusionReport report;
  RunFusion(module.get(), &report);
  EXPECT_TRUE(
      ReportHas(report, "p (exponential)", "would create a cycle", false));
  EXPECT_TRUE(
      ReportHas(report, "p (exponential)", "one depends on the other", false));
  EXPECT_EQ(CountKernels(*module).total(), 3);
}

TEST(MultiOutputFusion, ReachabilityHelpers) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  a = f32[4] negate(x)
  b = f32[4] abs(a)
  ROOT c = f32[4] add(a, b)
})");
  EXPECT_TRUE(Reaches(Find(*module, "x"), Find(*module, "c")));
  EXPECT_FALSE(Reaches(Find(*module, "b"), Find(*module, "a")));
  EXPECT_TRUE(ReachesIndirectly(Find(*module, "a"), Find(*module, "c")));
  EXPECT_FALSE(ReachesIndirectly(Find(*module, "b"), Find(*module, "c")));
}

// Growing a fusion in place must give exactly the fusion FuseInstructions
// gives (instruction-fusion's decisions depend on its operand order):
// fuse `producer` into `fusion` both ways and compare, names aside.
void ExpectInPlaceMatchesRebuild(absl::string_view text,
                                 absl::string_view producer,
                                 absl::string_view fusion) {
  auto rebuilt = Parse(text);
  auto in_place = Parse(text);
  ASSERT_TRUE(rebuilt && in_place);
  HloInstruction* f = Find(*rebuilt, fusion);
  // Copies: f is gone once FuseInstructions has expanded it.
  const std::string name = f->name();
  const std::string backend_config = f->backend_config();
  absl::StatusOr<HloInstruction*> a = FuseInstructions(
      rebuilt->entry_computation(), {Find(*rebuilt, producer), f},
      f->fusion_kind(), name, /*keep_name=*/true, backend_config);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<HloInstruction*> b = FuseProducerIntoFusion(
      in_place->entry_computation(), Find(*in_place, producer),
      Find(*in_place, fusion));
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_NE(*b, nullptr);
  in_place->entry_computation()->SortInstructionsInPostOrder();
  EXPECT_TRUE(VerifyModule(*in_place).ok()) << VerifyModule(*in_place);
  EXPECT_EQ((*b)->name(), (*a)->name());
  EXPECT_TRUE(
      rebuilt->entry_computation()->Equal(*in_place->entry_computation()))
      << "rebuilt:\n"
      << PrintModule(*rebuilt) << "\nin place:\n"
      << PrintModule(*in_place);
  std::vector<HloComputation*> ca = rebuilt->computations();
  std::vector<HloComputation*> cb = in_place->computations();
  ASSERT_EQ(ca.size(), cb.size());
  for (size_t i = 0; i < ca.size(); ++i) {
    EXPECT_TRUE(ca[i]->Equal(*cb[i])) << "computation " << i;
  }
}

TEST(FusionUtils, GrowingInPlaceRenumbersParameters) {
  // The producer takes parameter 1's place and is reached first: its
  // operand becomes parameter 0.
  ExpectInPlaceMatchesRebuild(R"(HloModule m
fused {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  m = f32[4] multiply(p1, p1)
  ROOT a = f32[4] add(m, p0)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  a = f32[4] exponential(x)
  b = f32[4] add(y, x)
  f = f32[4] fusion(a, b), kind=kLoop, calls=fused
  ROOT r = f32[4] negate(f)
})",
                              "b", "f");
}

TEST(FusionUtils, GrowingInPlaceMergesIdenticalInstructions) {
  // exp(x) is already fused: the copy merges with it, and then so do the
  // two negates, as MergeIdenticalInstructions merges them.
  ExpectInPlaceMatchesRebuild(R"(HloModule m
fused {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  e = f32[4] exponential(p0)
  n0 = f32[4] negate(e)
  n1 = f32[4] negate(p1)
  c = f32[] constant(2)
  bc = f32[4] broadcast(c), dimensions={}
  s = f32[4] multiply(n1, bc)
  ROOT a = f32[4] add(n0, s)
}
ENTRY e {
  x = f32[4] parameter(0)
  ex = f32[4] exponential(x)
  ROOT f = f32[4] fusion(x, ex), kind=kLoop, calls=fused
})",
                              "ex", "f");
  // An operand-less producer (a constant's broadcast copied in).
  ExpectInPlaceMatchesRebuild(R"(HloModule m
fused {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  c = f32[4] constant({1, 2, 3, 4})
  m = f32[4] multiply(p0, c)
  ROOT a = f32[4] add(m, p1)
}
ENTRY e {
  x = f32[4] parameter(0)
  k = f32[4] constant({1, 2, 3, 4})
  ROOT f = f32[4] fusion(x, k), kind=kLoop, calls=fused
})",
                              "k", "f");
}

// ---- Fusion shapes
// -------------------------------------------------------------

TEST(FusionShapes, VerifierRejectsBrokenFusions) {
  auto module = Parse(WithReducers(R"(
loop_with_reduce {
  p = f32[4,8] parameter(0)
  z = f32[] constant(0)
  r = f32[4] reduce(p, z), dimensions={1}, to_apply=add_f32
  ROOT n = f32[4] negate(r)
}
reduce_of_reduce {
  p = f32[4,8] parameter(0)
  z = f32[] constant(0)
  r = f32[4] reduce(p, z), dimensions={1}, to_apply=add_f32
  ROOT s = f32[] reduce(r, z), dimensions={0}, to_apply=add_f32
}
row_transpose {
  p = f32[4,4] parameter(0)
  z = f32[] constant(0)
  r = f32[4] reduce(p, z), dimensions={1}, to_apply=add_f32
  b = f32[4,4] broadcast(r), dimensions={0}
  ROOT t = f32[4,4] transpose(b), dimensions={1,0}
}
scan_body {
  x = f32[4] parameter(0)
  c = f32[4] parameter(1)
  s = f32[4] add(c, x)
  ROOT t = (f32[4], f32[4]) tuple(s, s)
}
scan_of_reduce {
  p = f32[4,8] parameter(0)
  z = f32[] constant(0)
  r = f32[4] reduce(p, z), dimensions={1}, to_apply=add_f32
  b = f32[4,4] broadcast(r), dimensions={0}
  ROOT s = (f32[4,4], f32[4]) scan(b, r), dimensions={0}, num_carries=1, to_apply=scan_body
}
scan_then_negate {
  p = f32[4,4] parameter(0)
  q = f32[4] parameter(1)
  s = (f32[4,4], f32[4]) scan(p, q), dimensions={0}, num_carries=1, to_apply=scan_body
  ROOT g = f32[4,4] get-tuple-element(s), index=0
}
reduce_prologue {
  a = f32[4,4] parameter(0)
  z = f32[] constant(0)
  r = f32[4] reduce(a, z), dimensions={1}, to_apply=add_f32
  b = f32[4,4] broadcast(r), dimensions={0}
  ROOT d = f32[4,4] dot(b, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  x = f32[4,8] parameter(0)
  y = f32[4,4] parameter(1)
  f1 = f32[4] fusion(x), kind=kLoop, calls=loop_with_reduce
  f2 = f32[] fusion(x), kind=kInput, calls=reduce_of_reduce
  f3 = f32[4,4] fusion(y), kind=kCustom, calls=row_transpose, backend_config={"fusion_backend_config":{"kind":"__hloc_row_reduction"}}
  f4 = f32[4,4] fusion(y), kind=kOutput, calls=reduce_prologue
  f5 = (f32[4,4], f32[4]) fusion(x), kind=kCustom, calls=scan_of_reduce, backend_config={"fusion_backend_config":{"kind":"__hloc_scan"}}
  z4 = f32[4] constant({0, 0, 0, 0})
  f6 = f32[4,4] fusion(y, z4), kind=kCustom, calls=scan_then_negate, backend_config={"fusion_backend_config":{"kind":"__hloc_scan"}}
  f7 = f32[4,4] fusion(y, z4), kind=kCustom, calls=scan_then_negate, backend_config={"fusion_backend_config":{"kind":"__hloc_scatter"}}
  ROOT t = (f32[4], f32[], f32[4,4], f32[4,4], (f32[4,4], f32[4]), f32[4,4], f32[4,4]) tuple(f1, f2, f3, f4, f5, f6, f7)
})"));
  auto error = [&](absl::string_view name) {
    absl::Status s = VerifyFusionShape(*Find(*module, name));
    EXPECT_FALSE(s.ok()) << name;
    return std::string(s.message());
  };
  EXPECT_TRUE(absl::StrContains(error("f1"), "not loop-fusible"));
  EXPECT_TRUE(absl::StrContains(error("f2"), "barrier"));
  EXPECT_TRUE(absl::StrContains(error("f3"), "across rows"));
  // A prologue may only hold loop-fusible ops (a reduce is a barrier).
  EXPECT_TRUE(absl::StrContains(error("f4"), "not fusible into a dot"));
  // A scan fusion computes loop-fusible producers of its scan, the root.
  EXPECT_TRUE(absl::StrContains(error("f5"), "not loop-fusible"));
  EXPECT_TRUE(absl::StrContains(error("f6"), "root of a scan fusion"));
  EXPECT_TRUE(absl::StrContains(error("f7"), "root of a scatter fusion"));
}

// ---- Report
// -------------------------------------------------------------------

TEST(FusionReport, FormatsDecisions) {
  auto module = Parse(WithReducers(kSoftmax));
  FusionReport report;
  {
    // Passes built without a report record into the scoped sink.
    ScopedFusionReportSink sink(&report);
    ASSERT_TRUE(RowReductionFusion().Run(module.get()).ok());
    ASSERT_TRUE(InstructionFusion().Run(module.get()).ok());
  }
  std::string text = FormatFusionReport(report);
  EXPECT_TRUE(absl::StrContains(text, "row-reduction-fusion, computation e:"))
      << text;
  EXPECT_TRUE(absl::StrContains(
      text,
      "FUSED     e (exponential) -> sum (reduce) => row_reduction_fusion"))
      << text;
  EXPECT_TRUE(absl::StrContains(text, "pairs considered")) << text;
  // A pair decided twice keeps one record.
  FusionDecisionRecord r;
  r.pass = "p";
  r.computation = "c";
  r.producer = "a";
  r.consumer = "b";
  r.rule = "not fused: first";
  FusionReport twice;
  twice.Record(r);
  r.fused = true;
  r.rule = "fused: second";
  twice.Record(r);
  ASSERT_EQ(twice.records().size(), 1u);
  EXPECT_EQ(twice.records()[0].rule, "fused: second");
}

}  // namespace
}  // namespace hloc

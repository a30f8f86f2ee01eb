// dot-prologue-fusion: the cheap producers of a small dot's operands join
// the dot in one kOutput fusion (a valid kDotEpilogue shape), large dots,
// expensive producers and producers read elsewhere stay out, and
// instruction-fusion afterwards adds an epilogue but nothing to the
// prologue. Results are the evaluator's before and after.
#include "passes/fusion/dot_prologue_fusion.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/fusion/fusion_kinds.h"
#include "passes/fusion/instruction_fusion.h"
#include "passes/pipelines.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

// f32 values rounded to bf16 and a broadcast bias matrix, into a small dot.
constexpr char kSmallDot[] = R"(
HloModule m
ENTRY main {
  a = f32[24,40] parameter(0)
  b = f32[40,16] parameter(1)
  v = f32[40] parameter(2)
  ra = bf16[24,40] convert(a)
  rb = bf16[40,16] convert(b)
  wa = f32[24,40] convert(ra)
  bv = f32[40,16] broadcast(v), dimensions={0}
  nb = f32[40,16] add(b, bv)
  d = f32[24,16] dot(wa, nb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[24,16], bf16[40,16]) tuple(d, rb)
}
)";

// The GPU form with a flops limit (ROCm's has none; CUDA's is small and
// only for f16/bf16 dots: CudaFusesOnlyIntoSmallHalfPrecisionDots).
FusionOptions GpuOptions(int64_t max_flops = int64_t{1} << 25) {
  FusionOptions options;
  options.dot_prologue_max_flops = max_flops;
  return options;
}

struct Result {
  std::unique_ptr<HloModule> module;
  Literal before;
  FusionReport report;
};

// Parses `text`, evaluates it, runs dot-prologue-fusion (then
// instruction-fusion if `then_instruction_fusion`) and checks the result
// still evaluates to the same values and every fusion has a valid shape.
void RunPasses(const std::string& text, const FusionOptions& options,
               bool then_instruction_fusion, Result* run) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status();
  run->module = std::move(*module);
  std::vector<Literal> args;
  for (const HloInstruction* p :
       run->module->entry_computation()->parameter_instructions()) {
    args.push_back(MakeUniformInput(p->shape(), 11 + p->parameter_number()));
  }
  absl::StatusOr<Literal> want = EvaluateModule(*run->module, args);
  ASSERT_TRUE(want.ok()) << want.status();
  DotPrologueFusion prologue(options, &run->report);
  ASSERT_TRUE(RunAndVerify(prologue, run->module.get()).ok());
  if (then_instruction_fusion) {
    InstructionFusion fusion(options, &run->report);
    ASSERT_TRUE(RunAndVerify(fusion, run->module.get()).ok());
  }
  for (const HloInstruction* instr :
       run->module->entry_computation()->instructions()) {
    if (instr->opcode() == HloOpcode::kFusion) {
      EXPECT_TRUE(VerifyFusionShape(*instr).ok())
          << VerifyFusionShape(*instr) << "\n" << ModuleText(*run->module);
    }
  }
  absl::StatusOr<Literal> got = EvaluateModule(*run->module, args);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(*got == *want) << ModuleText(*run->module);
}

// The names of the instructions fused with the dot (in its fusion).
std::vector<std::string> FusedWithDot(const HloModule& module) {
  std::vector<std::string> names;
  for (const HloInstruction* instr :
       module.entry_computation()->instructions()) {
    if (instr->opcode() != HloOpcode::kFusion ||
        instr->fusion_kind() != FusionKind::kOutput) {
      continue;
    }
    for (const HloInstruction* f : instr->fused_computation()->instructions()) {
      if (f->opcode() != HloOpcode::kParameter) names.push_back(f->name());
    }
  }
  return names;
}

bool Has(const std::vector<std::string>& names, const std::string& prefix) {
  for (const std::string& n : names) {
    if (absl::StartsWith(n, prefix)) return true;
  }
  return false;
}

TEST(DotPrologueFusionTest, FusesConvertsAndBroadcastsOfASmallDot) {
  Result run;
  RunPasses(kSmallDot, GpuOptions(), false, &run);
  const std::vector<std::string> fused = FusedWithDot(*run.module);
  EXPECT_TRUE(Has(fused, "d")) << ModuleText(*run.module);
  EXPECT_TRUE(Has(fused, "wa"));
  EXPECT_TRUE(Has(fused, "ra"));
  EXPECT_TRUE(Has(fused, "nb"));
  EXPECT_TRUE(Has(fused, "bv"));
  // rb is also an output of the module: it stays outside.
  EXPECT_FALSE(Has(fused, "rb"));
  EXPECT_EQ(CountOpcode(*run.module, HloOpcode::kDot), 1);
}

TEST(DotPrologueFusionTest, LeavesLargeDotsToTheLibrary) {
  Result run;
  RunPasses(kSmallDot, GpuOptions(2 * 24 * 16 * 40 - 1), false, &run);
  EXPECT_TRUE(FusedWithDot(*run.module).empty()) << ModuleText(*run.module);
  bool said_why = false;
  for (const FusionDecisionRecord& r : run.report.records()) {
    said_why |= !r.fused && absl::StrContains(r.rule, "consumer dot is large");
  }
  EXPECT_TRUE(said_why);
}

TEST(DotPrologueFusionTest, NoPrologueWithoutALimit) {
  FusionOptions options;
  options.dot_prologue_max_flops = 0;
  Result run;
  RunPasses(kSmallDot, options, false, &run);
  EXPECT_TRUE(FusedWithDot(*run.module).empty()) << ModuleText(*run.module);
}

// CUDA's form (its pipeline's options): roundings to bf16 join a small
// bf16 dot, which the tensor-core tiled kernel computes; the same dot
// above the limit, and an f32 dot (no tensor-core form), keep cuBLASLt.
std::string RoundedDot(int64_t n) {
  const std::string f = absl::StrCat("f32[", n, ",", n, "]");
  const std::string h = absl::StrCat("bf16[", n, ",", n, "]");
  return absl::StrCat("HloModule m\nENTRY main {\n  a = ", f,
                      " parameter(0)\n  b = ", f, " parameter(1)\n  ra = ", h,
                      " convert(a)\n  rb = ", h, " convert(b)\n  ROOT d = ", f,
                      " dot(ra, rb), lhs_contracting_dims={1}, "
                      "rhs_contracting_dims={0}\n}\n");
}

TEST(DotPrologueFusionTest, CudaFusesOnlyIntoSmallHalfPrecisionDots) {
  absl::StatusOr<FusionOptions> cuda = FusionOptionsForPlatform("cuda");
  ASSERT_TRUE(cuda.ok()) << cuda.status();
  {
    Result run;
    RunPasses(RoundedDot(128), *cuda, false, &run);
    const std::vector<std::string> fused = FusedWithDot(*run.module);
    EXPECT_TRUE(Has(fused, "ra")) << ModuleText(*run.module);
    EXPECT_TRUE(Has(fused, "rb"));
  }
  {
    Result run;
    RunPasses(RoundedDot(512), *cuda, false, &run);
    EXPECT_TRUE(FusedWithDot(*run.module).empty()) << ModuleText(*run.module);
  }
  {
    Result run;
    RunPasses(kSmallDot, *cuda, false, &run);
    EXPECT_TRUE(FusedWithDot(*run.module).empty()) << ModuleText(*run.module);
    bool said_why = false;
    for (const FusionDecisionRecord& r : run.report.records()) {
      said_why |= !r.fused && absl::StrContains(r.rule, "matrix-instruction");
    }
    EXPECT_TRUE(said_why);
  }
}

// The CPU's form: converts and views join at any size, arithmetic (the
// add, and so the broadcast behind it) does not.
TEST(DotPrologueFusionTest, CpuPrologueHoldsOnlyViewsAndConverts) {
  FusionOptions options;
  options.dot_prologue_max_flops = std::numeric_limits<int64_t>::max();
  options.dot_prologue_views_only = true;
  Result run;
  RunPasses(kSmallDot, options, false, &run);
  const std::vector<std::string> fused = FusedWithDot(*run.module);
  EXPECT_TRUE(Has(fused, "wa")) << ModuleText(*run.module);
  EXPECT_TRUE(Has(fused, "ra"));
  EXPECT_FALSE(Has(fused, "nb"));
  EXPECT_FALSE(Has(fused, "bv"));
}

// exp is expensive (recomputed once per output tile): it stays a kernel,
// and instruction-fusion does not add it to the prologue afterwards; the
// dot's elementwise epilogue does join the fusion.
TEST(DotPrologueFusionTest, ExpensiveProducersStayOutEpiloguesJoin) {
  Result run;
  RunPasses(R"(
HloModule m
ENTRY main {
  a = f32[24,40] parameter(0)
  b = f32[40,16] parameter(1)
  e = f32[24,40] exponential(a)
  n = f32[24,40] negate(e)
  d = f32[24,16] dot(n, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  zb = f32[24,16] broadcast(z), dimensions={}
  ROOT r = f32[24,16] maximum(d, zb)
}
)",
            GpuOptions(), true, &run);
  const std::vector<std::string> fused = FusedWithDot(*run.module);
  EXPECT_TRUE(Has(fused, "n")) << ModuleText(*run.module);
  EXPECT_TRUE(Has(fused, "r"));
  EXPECT_FALSE(Has(fused, "e"));
}

}  // namespace
}  // namespace hloc

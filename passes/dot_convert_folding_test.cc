// dot-convert-folding gives a dot the narrow operands of its exact
// converts, on each platform only in the combinations its dot reads, and
// never folds a convert that rounds; the module's results stay the same.
#include "passes/dot_convert_folding.h"

#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

// A dot of f32[8,16] x f32[16,4] -> OUT whose operands are converts of
// LHS and RHS values; each of those is made inside the module from an f32
// parameter, so every test feeds the same uniform inputs.
std::string DotOfConverts(const std::string& lhs, const std::string& rhs,
                          const std::string& wide, const std::string& out) {
  return absl::StrReplaceAll(R"(
HloModule m
ENTRY main {
  p0 = f32[8,16] parameter(0)
  p1 = f32[16,4] parameter(1)
  c = f32[] constant(100)
  b0 = f32[8,16] broadcast(c), dimensions={}
  b1 = f32[16,4] broadcast(c), dimensions={}
  s0 = f32[8,16] multiply(p0, b0)
  s1 = f32[16,4] multiply(p1, b1)
  n0 = LHS[8,16] convert(s0)
  n1 = RHS[16,4] convert(s1)
  w0 = WIDE[8,16] convert(n0)
  w1 = WIDE[16,4] convert(n1)
  ROOT d = OUT[8,4] dot(w0, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                             {{"LHS", lhs}, {"RHS", rhs}, {"WIDE", wide},
                              {"OUT", out}});
}

// Runs the pass for `reads` and checks which operands the dot reads
// unconverted afterwards, and that the result is unchanged.
void Check(const std::string& text, DotOperandReads reads, bool lhs_folded,
           bool rhs_folded) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  for (const HloInstruction* p :
       (*module)->entry_computation()->parameter_instructions()) {
    args.push_back(MakeUniformInput(p->shape(), 3 + p->parameter_number()));
  }
  absl::StatusOr<Literal> want = EvaluateModule(**module, args);
  ASSERT_TRUE(want.ok()) << want.status();

  DotConvertFolding pass(reads);
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(*changed, lhs_folded || rhs_folded) << ModuleText(**module);
  const HloInstruction* dot = (*module)->entry_computation()->root_instruction();
  ASSERT_EQ(dot->opcode(), HloOpcode::kDot);
  EXPECT_EQ(dot->operand(0)->name(), lhs_folded ? "n0" : "w0")
      << ModuleText(**module);
  EXPECT_EQ(dot->operand(1)->name(), rhs_folded ? "n1" : "w1")
      << ModuleText(**module);
  // The folded converts are gone (nothing else reads them).
  EXPECT_EQ(FindInstruction(**module, "w0") == nullptr, lhs_folded);
  EXPECT_EQ(FindInstruction(**module, "w1") == nullptr, rhs_folded);

  absl::StatusOr<Literal> got = EvaluateModule(**module, args);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(*got == *want) << ModuleText(**module);
}

constexpr DotOperandReads kCpu = DotOperandReads::kEachOperandAnyType;
constexpr DotOperandReads kRocm = DotOperandReads::kBothOperandsOneType;
constexpr DotOperandReads kCuda = DotOperandReads::kCublasLtTypes;

TEST(DotConvertFoldingTest, Bf16WidenedToF32) {
  const std::string text = DotOfConverts("bf16", "bf16", "f32", "f32");
  for (DotOperandReads reads : {kCpu, kRocm, kCuda}) {
    Check(text, reads, true, true);
  }
}

TEST(DotConvertFoldingTest, F16WidenedToF32) {
  const std::string text = DotOfConverts("f16", "f16", "f32", "f32");
  for (DotOperandReads reads : {kCpu, kRocm, kCuda}) {
    Check(text, reads, true, true);
  }
}

// One operand bf16, the other f16: the CPU reads both, the GPUs want one
// type (MFMA, cuBLASLt).
TEST(DotConvertFoldingTest, MixedNarrowTypes) {
  const std::string text = DotOfConverts("bf16", "f16", "f32", "f32");
  Check(text, kCpu, true, true);
  Check(text, kRocm, false, false);
  Check(text, kCuda, false, false);
}

// f32 into f64: cuBLAS has no f32 x f32 -> f64 gemm (the tiled kernel
// would take the dot from the library), the others fold.
TEST(DotConvertFoldingTest, F32WidenedToF64) {
  const std::string text = DotOfConverts("f32", "f32", "f64", "f64");
  Check(text, kCpu, true, true);
  Check(text, kRocm, true, true);
  Check(text, kCuda, false, false);
}

TEST(DotConvertFoldingTest, IntegersWidened) {
  const std::string text = DotOfConverts("s8", "s8", "s32", "s32");
  for (DotOperandReads reads : {kCpu, kRocm, kCuda}) {
    Check(text, reads, true, true);
  }
  // s8 into f32 is exact too: the CPU reads it, the GPUs want floats of
  // the library's types.
  const std::string to_float = DotOfConverts("s8", "s8", "f32", "f32");
  Check(to_float, kCpu, true, true);
  Check(to_float, kRocm, true, true);
  Check(to_float, kCuda, false, false);
}

// Rounding converts stay: f32 -> bf16 operands, s32 -> f32 (not every s32
// is an f32), u8 -> s8.
TEST(DotConvertFoldingTest, InexactConvertsStay) {
  Check(R"(
HloModule m
ENTRY main {
  p0 = f32[8,16] parameter(0)
  p1 = f32[16,4] parameter(1)
  w0 = bf16[8,16] convert(p0)
  w1 = bf16[16,4] convert(p1)
  ROOT d = bf16[8,4] dot(w0, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
        kCpu, false, false);
  Check(DotOfConverts("s32", "s32", "f32", "f32"), kCpu, false, false);
}

// Only one operand is a convert: the CPU folds it, the GPUs would get
// mixed operand types and leave it.
TEST(DotConvertFoldingTest, OneOperandConverted) {
  const std::string text = R"(
HloModule m
ENTRY main {
  p0 = f32[8,16] parameter(0)
  p1 = f32[16,4] parameter(1)
  n0 = bf16[8,16] convert(p0)
  w0 = f32[8,16] convert(n0)
  w1 = f32[16,4] negate(p1)
  ROOT d = f32[8,4] dot(w0, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";
  Check(text, kCpu, true, false);
  Check(text, kCuda, false, false);
}

// A convert with another user stays for it; the dot reads the narrow value.
TEST(DotConvertFoldingTest, SharedConvertStaysForItsOtherUser) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(R"(
HloModule m
ENTRY main {
  p0 = bf16[8,16] parameter(0)
  p1 = bf16[16,4] parameter(1)
  w0 = f32[8,16] convert(p0)
  w1 = f32[16,4] convert(p1)
  d = f32[8,4] dot(w0, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[8,16] exponential(w0)
  ROOT t = (f32[8,4], f32[8,16]) tuple(d, e)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  DotConvertFolding pass(kCuda);
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const HloInstruction* root =
      (*module)->entry_computation()->root_instruction();
  const HloInstruction* dot = root->operand(0);
  EXPECT_EQ(dot->operand(0)->name(), "p0") << ModuleText(**module);
  EXPECT_EQ(dot->operand(1)->name(), "p1") << ModuleText(**module);
  EXPECT_EQ(root->operand(1)->operand(0)->name(), "w0");
  EXPECT_EQ(FindInstruction(**module, "w1"), nullptr);
}

TEST(DotConvertFoldingTest, ExactConversions) {
  struct Case {
    PrimitiveType from, to;
    bool exact;
  } cases[] = {
      {BF16, F32, true},  {F16, F32, true},   {F32, F64, true},
      {BF16, F64, true},  {F16, BF16, false}, {BF16, F16, false},
      {F32, BF16, false}, {F64, F32, false},  {S8, S32, true},
      {S8, S8, true},     {S32, S8, false},   {U8, U16, true},
      {U8, S16, true},    {U8, S8, false},    {S8, U32, false},
      {S8, BF16, true},   {U8, BF16, true},   {S16, F32, true},
      {S32, F32, false},  {S32, F64, true},   {U32, F64, true},
      {S64, F64, false},  {PRED, F32, false}, {F32, S32, false},
      {C64, C128, false}, {F8E4M3FN, F32, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(IsExactConversion(c.from, c.to), c.exact)
        << PrimitiveTypeName(c.from) << " -> " << PrimitiveTypeName(c.to);
  }
}

}  // namespace
}  // namespace hloc

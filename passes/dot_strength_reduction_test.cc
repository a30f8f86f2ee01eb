// dot-strength-reduction computes what the dots it rewrites compute (the
// evaluator before and after the pass: f32 sums in another order within
// rounding, integers exactly), rewrites the small and vector dots and
// leaves the large ones, those with an explicit algorithm and the empty
// ones; a matrix-vector product reads its matrix in its own order.
#include "passes/dot_strength_reduction.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "passes/test_util.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

struct DotCase {
  std::string name;
  std::string lhs;  // shape, with a layout where it matters
  std::string rhs;
  std::string out;
  std::string dims;  // the dot's dimension attributes
  bool reduced;      // whether the pass rewrites it
};

// Evaluates the dot of converted uniform inputs, runs the pass, checks
// whether a dot is left and evaluates again.
void ExpectSameAfterReduction(const DotCase& c) {
  const std::string text = absl::StrReplaceAll(
      R"(
HloModule m
ENTRY e {
  a = LHS parameter(0)
  b = RHS parameter(1)
  ROOT d = OUT dot(a, b), DIMS
})",
      {{"LHS", c.lhs}, {"RHS", c.rhs}, {"OUT", c.out}, {"DIMS", c.dims}});
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<Literal> inputs;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    inputs.push_back(
        MakeTiedInput(entry->parameter_instruction(i)->shape(), 3 + i));
  }
  SCOPED_TRACE(text);
  DotStrengthReduction pass;
  const bool narrow = c.out.rfind("bf16", 0) == 0;
  const std::optional<bool> changed = ExpectSameResultsAfterPass(
      pass, module->get(), inputs,
      narrow ? Tolerance{1e-2, 1e-2} : Tolerance{1e-5, 1e-5});
  ASSERT_TRUE(changed.has_value());
  EXPECT_EQ(*changed, c.reduced);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kDot), c.reduced ? 0 : 1)
      << ModuleText(**module);
  if (c.reduced) {
    EXPECT_EQ(CountOpcode(**module, HloOpcode::kReduce), 1)
        << ModuleText(**module);
    // The result keeps the dot's shape and layout.
    EXPECT_TRUE(
        (*module)->entry_computation()->root_instruction()->shape().Equal(
            entry->root_instruction()->shape(), true));
  }
}

class DotStrengthReductionTest : public testing::TestWithParam<DotCase> {};

TEST_P(DotStrengthReductionTest, SameResults) {
  ExpectSameAfterReduction(GetParam());
}

const char kMatmul[] = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";

INSTANTIATE_TEST_SUITE_P(
    Dots, DotStrengthReductionTest,
    testing::Values(
        // A GRU cell's products.
        DotCase{"tiny_matmul", "f32[2,3]", "f32[3,4]", "f32[2,4]", kMatmul,
                true},
        DotCase{"matrix_vector", "f32[64,33]", "f32[33]", "f32[64]",
                "lhs_contracting_dims={1}, rhs_contracting_dims={0}", true},
        DotCase{"vector_matrix", "f32[33]", "f32[33,70]", "f32[70]",
                "lhs_contracting_dims={0}, rhs_contracting_dims={0}", true},
        DotCase{"vector_vector", "f32[5,100]", "f32[5,100]", "f32[5]",
                "lhs_batch_dims={0}, lhs_contracting_dims={1}, "
                "rhs_batch_dims={0}, rhs_contracting_dims={1}",
                true},
        DotCase{"batched_transposed", "f32[4,3,2]", "f32[4,5,3]", "f32[4,2,5]",
                "lhs_batch_dims={0}, lhs_contracting_dims={1}, "
                "rhs_batch_dims={0}, rhs_contracting_dims={2}",
                true},
        // Batch dimensions in the middle, the rhs the larger operand.
        DotCase{"batch_in_middle", "f32[3,4,2]", "f32[2,4,5,6]", "f32[4,3,5,6]",
                "lhs_batch_dims={1}, lhs_contracting_dims={2}, "
                "rhs_batch_dims={1}, rhs_contracting_dims={0}",
                true},
        // Two contracted dimensions.
        DotCase{"two_contracted", "f32[3,2,4]", "f32[4,3,5]", "f32[2,5]",
                "lhs_contracting_dims={0,2}, rhs_contracting_dims={1,0}", true},
        // A column-major matrix: read in its own order.
        DotCase{"column_major_matrix", "f32[40,30]{0,1}", "f32[30]", "f32[40]",
                kMatmul, true},
        DotCase{"column_major_result", "f32[2,3]", "f32[3,4]", "f32[2,4]{0,1}",
                kMatmul, true},
        DotCase{"bf16", "bf16[6,20]", "bf16[20,7]", "bf16[6,7]", kMatmul, true},
        DotCase{"bf16_to_f32", "bf16[6,20]", "bf16[20,7]", "f32[6,7]", kMatmul,
                true},
        DotCase{"s8_to_s32", "s8[5,9]", "s8[9,3]", "s32[5,3]", kMatmul, true},
        DotCase{"c64", "c64[3,4]", "c64[4,2]", "c64[3,2]", kMatmul, true},
        DotCase{"f64", "f64[8,8]", "f64[8,8]", "f64[8,8]", kMatmul, true},
        // 16 x 64 x 128 = 2^17 products: a library call's size, as is a
        // matrix of 10 million elements.
        DotCase{"large_matmul", "f32[16,128]", "f32[128,64]", "f32[16,64]",
                kMatmul, false},
        DotCase{"limit_matmul", "f32[16,64]", "f32[64,64]", "f32[16,64]",
                kMatmul, true},
        DotCase{"large_matrix_vector", "f32[4000,2500]", "f32[2500]",
                "f32[4000]", kMatmul, false},
        DotCase{"explicit_algorithm", "f32[2,3]", "f32[3,4]", "f32[2,4]",
                absl::StrCat(kMatmul, ", algorithm=dot_bf16_bf16_f32"), false},
        DotCase{"empty", "f32[0,3]", "f32[3,4]", "f32[0,4]", kMatmul, false}),
    [](const testing::TestParamInfo<DotCase>& info) {
      return info.param.name;
    });

// The product of a vector and a row-major matrix is a column reduction
// (reduced dimension outermost), a matrix-vector product a row reduction:
// both read the matrix row by row.
TEST(DotStrengthReductionLayoutTest, MatrixReadInItsOwnOrder) {
  for (const auto& [dot, reduced] :
       std::vector<std::pair<std::string, std::string>>{
           {"f32[70] dot(v, m), lhs_contracting_dims={0}, "
            "rhs_contracting_dims={0}",
            "{0}"},
           {"f32[70] dot(mt, v), lhs_contracting_dims={1}, "
            "rhs_contracting_dims={0}",
            "{1}"}}) {
    auto module = ParseAndVerify(absl::StrCat(R"(
HloModule m
ENTRY e {
  v = f32[33] parameter(0)
  m = f32[33,70] parameter(1)
  mt = f32[70,33] parameter(2)
  ROOT d = )",
                                              dot, "\n}"));
    ASSERT_TRUE(module.ok()) << module.status();
    DotStrengthReduction pass;
    ASSERT_TRUE(RunAndVerify(pass, module->get()).value_or(false));
    const std::string text = ModuleText(**module);
    const size_t at = text.find(" reduce(");
    ASSERT_NE(at, std::string::npos) << text;
    const std::string line = text.substr(at, text.find('\n', at) - at);
    EXPECT_NE(line.find(absl::StrCat("dimensions=", reduced)),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("transpose"), std::string::npos) << text;
  }
}

// A rewritten default-precision f32 dot leaves its mark on the module: a
// GPU might have run it with TF32, and comparisons with such a GPU's
// outputs read that from the optimised module (runtime/compare.h). Dots
// that ask for HIGHEST, and other types, leave none.
TEST(DotStrengthReductionMarkTest, MarksRewrittenTf32CandidateDots) {
  for (const auto& [dot, marked] : std::vector<std::pair<std::string, bool>>{
           {"f32[4,5] dot(a, b), lhs_contracting_dims={1}, "
            "rhs_contracting_dims={0}",
            true},
           {"f32[4,5] dot(a, b), lhs_contracting_dims={1}, "
            "rhs_contracting_dims={0}, operand_precision={highest,highest}",
            false},
           {"f64[4,5] dot(c, d), lhs_contracting_dims={1}, "
            "rhs_contracting_dims={0}",
            false}}) {
    auto module = ParseAndVerify(absl::StrCat(R"(
HloModule m
ENTRY e {
  a = f32[4,3] parameter(0)
  b = f32[3,5] parameter(1)
  c = f64[4,3] parameter(2)
  d = f64[3,5] parameter(3)
  ROOT r = )",
                                              dot, "\n}"));
    ASSERT_TRUE(module.ok()) << module.status();
    DotStrengthReduction pass;
    ASSERT_TRUE(RunAndVerify(pass, module->get()).value_or(false)) << dot;
    EXPECT_EQ((*module)->config().frontend_attributes.count(
                  kRewroteDefaultPrecisionF32Contractions) > 0,
              marked)
        << dot;
    // The mark is in the text a saved executable carries.
    EXPECT_EQ(ModuleText(**module).find(
                  kRewroteDefaultPrecisionF32Contractions) != std::string::npos,
              marked)
        << dot;
  }
}

}  // namespace
}  // namespace hloc

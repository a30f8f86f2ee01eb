#include "runtime/compare.h"

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/module.h"

namespace hloc {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Literal R1(std::vector<float> values) {
  return Literal::CreateR1<float>(F32, values);
}

TEST(CompareTest, FloatsWithinTolerance) {
  const Tolerance tol{1e-5, 1e-6};
  ComparisonResult r = CompareLiterals(R1({1.0f, 100.0f, 0.0f}),
                                       R1({1.000005f, 100.0009f, 9e-7f}), tol);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.element_count, 3);
  EXPECT_EQ(r.mismatch_count, 0);
  EXPECT_NEAR(r.max_abs_error, 9e-4, 1e-5);
  // expected 9e-7, got 0: relative error 1.
  EXPECT_NEAR(r.max_rel_error, 1.0, 1e-6);

  r = CompareLiterals(R1({1.0f, 100.0f, 0.0f}), R1({1.00002f, 100.0f, 2e-6f}),
                      tol);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.mismatch_count, 2);
  ASSERT_EQ(r.first_mismatches.size(), 2);
  EXPECT_EQ(r.first_mismatches[0].ToString(),
            "[0]: got 1, expected 1.00002003");
  EXPECT_EQ(r.first_mismatches[1].index, std::vector<int64_t>{2});
}

TEST(CompareTest, NaNAndInfinity) {
  const Tolerance tol{1e-5, 1e-6};
  EXPECT_TRUE(
      CompareLiterals(R1({kNaN, kInf, -kInf}), R1({kNaN, kInf, -kInf}), tol)
          .ok());
  ComparisonResult r = CompareLiterals(R1({kNaN, 1, kInf, kInf, 1e30f}),
                                       R1({1, kNaN, -kInf, 1e30f, kInf}), tol);
  EXPECT_EQ(r.mismatch_count, 5);
  EXPECT_TRUE(std::isinf(r.max_abs_error));
  EXPECT_EQ(r.first_mismatches[0].ToString(), "[0]: got nan, expected 1");
  // Even a huge tolerance does not make NaN or infinity match a number.
  r = CompareLiterals(R1({kNaN, kInf}), R1({0, 0}), Tolerance{1e9, 1e9});
  EXPECT_EQ(r.mismatch_count, 2);
}

TEST(CompareTest, IntegersAndPredicatesAreExact) {
  Literal a = Literal::CreateR1<int32_t>(S32, std::vector<int32_t>{1, 2, 3});
  Literal b = Literal::CreateR1<int32_t>(S32, std::vector<int32_t>{1, 2, 4});
  ComparisonResult r = CompareLiterals(a, b, Tolerance{0.5, 10});
  EXPECT_EQ(r.mismatch_count, 1);
  EXPECT_EQ(r.max_abs_error, 1);
  EXPECT_EQ(r.max_rel_error, 0.25);
  EXPECT_EQ(r.first_mismatches[0].ToString(), "[2]: got 3, expected 4");

  Literal u = Literal::CreateR1<uint64_t>(
      U64, std::vector<uint64_t>{~uint64_t{0}, ~uint64_t{0} - 1});
  Literal v = Literal::CreateR1<uint64_t>(
      U64, std::vector<uint64_t>{~uint64_t{0}, ~uint64_t{0}});
  r = CompareLiterals(u, v, Tolerance{});
  EXPECT_EQ(r.mismatch_count, 1);  // differ below double precision
  EXPECT_EQ(r.first_mismatches[0].actual, "18446744073709551614");

  Literal t(Shape::Array(PRED, {2, 2}));
  Literal f(Shape::Array(PRED, {2, 2}));
  t.data<bool>()[3] = true;
  r = CompareLiterals(t, f, Tolerance{});
  EXPECT_EQ(r.mismatch_count, 1);
  EXPECT_EQ(r.first_mismatches[0].ToString(),
            "[1,1]: got true, expected false");
}

TEST(CompareTest, HalfBF16AndComplex) {
  Literal h(Shape::Array(F16, {2}));
  Literal h2(Shape::Array(F16, {2}));
  h.data<Half>()[0] = Half(1.0f);
  h2.data<Half>()[0] = Half(1.001f);
  h.data<Half>()[1] = Half(2.0f);
  h2.data<Half>()[1] = Half(2.1f);
  ComparisonResult r = CompareLiterals(h, h2, DefaultTolerance(F16, false));
  EXPECT_EQ(r.mismatch_count, 1);
  EXPECT_EQ(r.first_mismatches[0].index, std::vector<int64_t>{1});

  Literal b(Shape::Array(BF16, {1}));
  Literal b2(Shape::Array(BF16, {1}));
  b.data<BFloat16>()[0] = BFloat16(1.0f);
  b2.data<BFloat16>()[0] = BFloat16(1.0079f);  // one bf16 ulp above 1
  EXPECT_TRUE(CompareLiterals(b, b2, DefaultTolerance(BF16, false)).ok());

  Literal c = Literal::CreateR1<complex64>(
      C64, std::vector<complex64>{{1, 2}, {3, kNaN}});
  Literal c2 = Literal::CreateR1<complex64>(
      C64, std::vector<complex64>{{1, 2.5f}, {3, kNaN}});
  r = CompareLiterals(c, c2, DefaultTolerance(C64, false));
  EXPECT_EQ(r.mismatch_count, 1);
  EXPECT_EQ(r.first_mismatches[0].ToString(),
            "[0]: got (1, 2), expected (1, 2.5)");
}

TEST(CompareTest, ShapeMismatch) {
  ComparisonResult r = CompareLiterals(
      R1({1, 2}), Literal::CreateR1<double>(F64, std::vector<double>{1, 2}),
      Tolerance{});
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.shape_mismatch);
  EXPECT_EQ(r.shape_message, "got f32[2], expected f64[2]");
  r = CompareLiterals(R1({1, 2}), R1({1, 2, 3}), Tolerance{});
  EXPECT_EQ(r.shape_message, "got f32[2], expected f32[3]");
  // Layouts do not matter.
  Literal a(Shape::ArrayWithLayout(F32, {2, 2}, {0, 1}));
  Literal e(Shape::Array(F32, {2, 2}));
  EXPECT_TRUE(CompareLiterals(a, e, Tolerance{}).ok());
}

TEST(CompareTest, Tuples) {
  Literal a = Literal::MakeTuple({R1({1, 2}), R1({3})});
  Literal e = Literal::MakeTuple({R1({1, 2}), R1({4})});
  ComparisonResult r = CompareLiterals(a, e, Tolerance{1e-5, 1e-6});
  EXPECT_EQ(r.element_count, 3);
  EXPECT_EQ(r.mismatch_count, 1);
  EXPECT_EQ(r.max_abs_error, 1);
}

TEST(CompareTest, MismatchListIsCapped) {
  std::vector<float> zeros(100, 0.0f), ones(100, 1.0f);
  ComparisonResult r = CompareLiterals(R1(zeros), R1(ones), Tolerance{});
  EXPECT_EQ(r.mismatch_count, 100);
  EXPECT_EQ(r.first_mismatches.size(), kMaxReportedMismatches);
}

TEST(CompareTest, DefaultTolerances) {
  EXPECT_EQ(DefaultTolerance(S32, true).ToString(), "exact");
  EXPECT_EQ(DefaultTolerance(PRED, false).ToString(), "exact");
  EXPECT_EQ(DefaultTolerance(F32, false).ToString(), "rtol=1e-05 atol=1e-06");
  EXPECT_EQ(DefaultTolerance(F32, true).ToString(), "rtol=0.0001 atol=1e-05");
  EXPECT_GT(DefaultTolerance(BF16, false).rtol,
            DefaultTolerance(F16, false).rtol);
  EXPECT_GT(DefaultTolerance(F16, false).rtol,
            DefaultTolerance(F32, true).rtol);
  EXPECT_LT(DefaultTolerance(F64, true).rtol,
            DefaultTolerance(F32, false).rtol);
}

TEST(CompareTest, AccumulatingOps) {
  HloModule module("m");
  auto add = std::make_unique<HloComputation>("add");
  HloInstruction* x = add->AddParameter(
      HloInstruction::CreateParameter(0, Shape::Scalar(F32), "x"));
  HloInstruction* y = add->AddParameter(
      HloInstruction::CreateParameter(1, Shape::Scalar(F32), "y"));
  add->AddInstruction(
      HloInstruction::CreateBinary(Shape::Scalar(F32), HloOpcode::kAdd, x, y));
  HloComputation* add_computation =
      module.AddEmbeddedComputation(std::move(add));
  EXPECT_FALSE(HasAccumulatingOps(module));

  auto entry = std::make_unique<HloComputation>("entry");
  HloInstruction* p = entry->AddParameter(
      HloInstruction::CreateParameter(0, Shape::Array(F32, {4}), "p"));
  HloInstruction* zero = entry->AddInstruction(
      HloInstruction::CreateConstant(Literal::CreateR0<float>(F32, 0.0f)));
  HloInstruction* exp = entry->AddInstruction(
      HloInstruction::CreateUnary(Shape::Array(F32, {4}), HloOpcode::kExp, p));
  HloComputation* entry_computation =
      module.AddEntryComputation(std::move(entry));
  EXPECT_FALSE(HasAccumulatingOps(module));

  entry_computation->AddInstruction(HloInstruction::CreateReduce(
      Shape::Scalar(F32), {exp, zero}, {0}, add_computation));
  EXPECT_TRUE(HasAccumulatingOps(module));
}

TEST(CompareTest, DefaultPrecisionF32Contractions) {
  HloModule module("m");
  auto entry = std::make_unique<HloComputation>("entry");
  const Shape shape = Shape::Array(F32, {2, 2});
  HloInstruction* a =
      entry->AddParameter(HloInstruction::CreateParameter(0, shape, "a"));
  HloInstruction* b =
      entry->AddParameter(HloInstruction::CreateParameter(1, shape, "b"));
  HloInstruction* dot = entry->AddInstruction(
      HloInstruction::Create(HloOpcode::kDot, shape, {a, b}));
  module.AddEntryComputation(std::move(entry));
  ASSERT_TRUE(HasDefaultPrecisionF32Contractions(module));

  Literal expected =
      R1({1.0f, -2048.0f, std::numeric_limits<float>::infinity()});
  // Outputs computed at full f32 precision (XLA:CPU, our backends): the
  // accumulating tolerance, its atol at least the elementwise rtol times
  // the largest |expected|.
  Tolerance tolerance = DefaultToleranceFor(module, expected);
  EXPECT_EQ(tolerance.rtol, 1e-4);
  EXPECT_DOUBLE_EQ(tolerance.atol, 1e-5 * 2048);  // infinity ignored
  // Expected outputs from a GPU that used TF32: 2^-8 of the largest.
  ToleranceOptions tf32;
  tf32.expected_used_tf32 = true;
  tolerance = DefaultToleranceFor(module, expected, tf32);
  EXPECT_EQ(tolerance.rtol, 1e-4);
  EXPECT_EQ(tolerance.atol, 8.0);  // 2048 * 2^-8
  // Integer outputs stay exact.
  EXPECT_EQ(DefaultToleranceFor(module, Literal(Shape::Array(S32, {2})), tf32)
                .ToString(),
            "exact");

  PrecisionConfig highest;
  highest.operand_precision = {Precision::kHighest, Precision::kHighest};
  dot->mutable_attrs().precision_config = highest;
  EXPECT_FALSE(HasDefaultPrecisionF32Contractions(module));
  EXPECT_DOUBLE_EQ(DefaultToleranceFor(module, expected, tf32).atol,
                   1e-5 * 2048);

  // A pass that rewrote such a dot into other instructions says so on the
  // module: the allowance stays.
  module.mutable_config()
      .frontend_attributes[kRewroteDefaultPrecisionF32Contractions] = "true";
  EXPECT_TRUE(HasDefaultPrecisionF32Contractions(module));
  EXPECT_EQ(DefaultToleranceFor(module, expected, tf32).atol, 8.0);
}

// A module whose entry applies `opcode` (a dot of the parameter with
// itself, or a one-operand op) to an `op_type` parameter, then converts the
// result to `output_type`.
std::unique_ptr<HloModule> ConvertedModule(HloOpcode opcode,
                                           PrimitiveType op_type,
                                           PrimitiveType output_type) {
  auto module = std::make_unique<HloModule>("m");
  auto entry = std::make_unique<HloComputation>("entry");
  HloInstruction* p = entry->AddParameter(
      HloInstruction::CreateParameter(0, Shape::Array(op_type, {2, 2}), "p"));
  std::vector<HloInstruction*> operands = {p};
  if (opcode == HloOpcode::kDot) operands.push_back(p);
  HloInstruction* op = entry->AddInstruction(
      HloInstruction::Create(opcode, Shape::Array(op_type, {2, 2}), operands));
  entry->AddInstruction(HloInstruction::CreateUnary(
      Shape::Array(output_type, {2, 2}), HloOpcode::kConvert, op));
  module->AddEntryComputation(std::move(entry));
  return module;
}

TEST(CompareTest, ToleranceFollowsTheLeastPreciseComputedType) {
  // (a @ b).astype(f64): the dot rounds in f32, so an f64 output is judged
  // as f32.
  std::unique_ptr<HloModule> f32_dot =
      ConvertedModule(HloOpcode::kDot, F32, F64);
  EXPECT_EQ(LeastPreciseFloatType(*f32_dot), F32);
  Literal f64_out(Shape::Array(F64, {2}));
  f64_out.data<double>()[0] = 0.5;
  EXPECT_EQ(DefaultToleranceFor(*f32_dot, f64_out).rtol,
            DefaultTolerance(F32, true).rtol);

  // A bf16 dot converted to f32: f32 outputs get bf16's tolerance.
  std::unique_ptr<HloModule> bf16_dot =
      ConvertedModule(HloOpcode::kDot, BF16, F32);
  EXPECT_EQ(LeastPreciseFloatType(*bf16_dot), BF16);
  EXPECT_EQ(DefaultToleranceFor(*bf16_dot, R1({0.5f})).rtol,
            DefaultTolerance(BF16, true).rtol);

  // Parameters and moves do not count: an f16 input reshaped and widened
  // to f32 rounds nothing below f32.
  std::unique_ptr<HloModule> widened =
      ConvertedModule(HloOpcode::kReshape, F16, F32);
  EXPECT_EQ(LeastPreciseFloatType(*widened), F32);
  EXPECT_EQ(DefaultToleranceFor(*widened, R1({0.5f})).ToString(),
            DefaultTolerance(F32, false).ToString());
  // A more precise module does not tighten a less precise output.
  std::unique_ptr<HloModule> f64_module =
      ConvertedModule(HloOpcode::kNegate, F64, F64);
  Literal f16_out(Shape::Array(F16, {1}));
  EXPECT_EQ(DefaultToleranceFor(*f64_module, f16_out).ToString(),
            DefaultTolerance(F16, false).ToString());
}

TEST(CompareTest, AccumulatingAbsoluteToleranceScalesWithMagnitude) {
  HloModule module("m");
  auto entry = std::make_unique<HloComputation>("entry");
  HloInstruction* p = entry->AddParameter(
      HloInstruction::CreateParameter(0, Shape::Array(F32, {1000}), "p"));
  entry->AddInstruction(
      HloInstruction::Create(HloOpcode::kScan, Shape::Array(F32, {1000}), {p}));
  module.AddEntryComputation(std::move(entry));
  // Scan (jnp.cumsum's op) sums, so it counts as accumulating.
  EXPECT_TRUE(HasAccumulatingOps(module));

  // Partial sums of O(1) terms: near zero at index 0, up to 40. A
  // different summation order moves a near-zero partial sum by ~1000 ulps
  // of the terms (6e-5), far beyond atol + rtol * 0.001 = 1e-5 + 1e-7.
  std::vector<float> sums(1000);
  for (int i = 0; i < 1000; ++i) sums[i] = 40.0f * std::sin(i * 0.01f);
  sums[0] = 0.001f;
  const Literal expected = R1(sums);
  const Tolerance tolerance = DefaultToleranceFor(module, expected);
  std::vector<float> reordered = sums;
  reordered[0] += 6e-5f;
  EXPECT_TRUE(CompareLiterals(R1(reordered), expected, tolerance).ok())
      << tolerance.ToString();

  // Real errors still fail: a dropped term (one partial sum off by a term
  // of ~1), a wrong index (two sums swapped), one element off by 10%.
  std::vector<float> dropped = sums;
  dropped[500] -= 0.8f;
  EXPECT_FALSE(CompareLiterals(R1(dropped), expected, tolerance).ok());
  std::vector<float> swapped = sums;
  std::swap(swapped[100], swapped[101]);
  EXPECT_FALSE(CompareLiterals(R1(swapped), expected, tolerance).ok());
  std::vector<float> off = sums;
  off[300] *= 1.1f;
  EXPECT_FALSE(CompareLiterals(R1(off), expected, tolerance).ok());
}

TEST(CompareTest, Tf32AllowanceOnlyWhenAskedFor) {
  // A default-precision f32 dot whose outputs reach 300, one element moved
  // from 0.0085 to 0.2585: the error that hid in the TF32 allowance when it
  // applied to every comparison.
  HloModule module("m");
  auto entry = std::make_unique<HloComputation>("entry");
  const Shape shape = Shape::Array(F32, {16, 16});
  HloInstruction* a =
      entry->AddParameter(HloInstruction::CreateParameter(0, shape, "a"));
  entry->AddInstruction(HloInstruction::Create(HloOpcode::kDot, shape, {a, a}));
  module.AddEntryComputation(std::move(entry));
  std::vector<float> values(256);
  for (int i = 0; i < 256; ++i) values[i] = 0.01f + 350.0f * (i % 7) / 7;
  values[3] = 0.0085f;
  const Literal expected = R1(values);
  std::vector<float> wrong = values;
  wrong[3] = 0.2585f;
  EXPECT_FALSE(CompareLiterals(R1(wrong), expected,
                               DefaultToleranceFor(module, expected))
                   .ok());
  ToleranceOptions tf32;
  tf32.expected_used_tf32 = true;
  // Against TF32 GPU outputs, 2^-8 of max |expected| (300) is 1.17 of
  // slack: the same error is within what TF32 rounding can do.
  EXPECT_TRUE(CompareLiterals(R1(wrong), expected,
                              DefaultToleranceFor(module, expected, tf32))
                  .ok());
}

}  // namespace
}  // namespace hloc

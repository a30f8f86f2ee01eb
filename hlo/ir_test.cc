// Unit tests of the IR core: types, shapes, literals, opcodes and the
// mutation API (replace uses, remove, fusion creation, cloning).
#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/float8.h"
#include "hlo/module.h"

namespace hloc {
namespace {

TEST(PrimitiveTypeTest, NamesRoundTripWithXlaEnumValues) {
  EXPECT_EQ(PRED, 1);
  EXPECT_EQ(F32, 11);
  EXPECT_EQ(BF16, 16);
  EXPECT_EQ(C128, 18);
  EXPECT_EQ(S1, 30);
  EXPECT_EQ(F8E8M0FNU, 33);
  EXPECT_EQ(F6E2M3FN, 36);
  for (PrimitiveType t : {PRED, S8, S16, S32, S64, U8, U16, U32, U64, F16,
                          BF16, F32, F64, C64, C128, F8E4M3FN, S4, TOKEN}) {
    auto parsed = ParsePrimitiveType(PrimitiveTypeName(t));
    ASSERT_TRUE(parsed.ok()) << PrimitiveTypeName(t);
    EXPECT_EQ(*parsed, t);
  }
  EXPECT_FALSE(ParsePrimitiveType("f33").ok());
  EXPECT_TRUE(IsSupportedElementType(BF16));
  EXPECT_TRUE(IsSupportedElementType(F8E5M2));
  EXPECT_TRUE(IsSupportedElementType(F8E8M0FNU));
  EXPECT_TRUE(IsSupportedElementType(F4E2M1FN));
  for (PrimitiveType t : {S4, U4, S2, U2}) {
    EXPECT_TRUE(IsSupportedElementType(t)) << PrimitiveTypeName(t);
    EXPECT_TRUE(IsSubByteIntegralType(t)) << PrimitiveTypeName(t);
    EXPECT_EQ(ByteWidth(t), 1) << PrimitiveTypeName(t);
  }
  EXPECT_FALSE(IsSupportedElementType(S1));
  EXPECT_FALSE(IsSupportedElementType(F6E2M3FN));
  EXPECT_FALSE(IsSubByteIntegralType(S8));
  EXPECT_EQ(BitWidth(S4), 4);
  EXPECT_EQ(ByteWidth(C64), 8);
}

TEST(Float16Test, RoundsToNearestEven) {
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7c00);  // rounds up to inf
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  // 1 + 2^-11 is exactly between 1 and the next half; ties go to even (1).
  EXPECT_EQ(FloatToHalfBits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(FloatToHalfBits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // Smallest denormal, and half of it (a tie with zero) rounding to zero.
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_TRUE(std::isnan(HalfBitsToFloat(FloatToHalfBits(NAN))));
  EXPECT_EQ(HalfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(FloatToBF16Bits(1.0f), 0x3f80);
  // 1 + 2^-8 is a tie between bf16 1.0 and 1.0078125: to even.
  EXPECT_EQ(FloatToBF16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_TRUE(std::isnan(BF16BitsToFloat(FloatToBF16Bits(NAN))));
}

TEST(ShapeTest, PrintsLikeXla) {
  Shape s = Shape::Array(F32, {2, 3});
  EXPECT_EQ(s.ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(s.ToString(false), "f32[2,3]");
  EXPECT_EQ(Shape::Scalar(S32).ToString(), "s32[]");
  Shape t = Shape::Tuple({s, Shape::Scalar(PRED)});
  EXPECT_EQ(t.ToString(), "(f32[2,3]{1,0}, pred[])");
  Shape col = Shape::ArrayWithLayout(F32, {2, 3}, {0, 1});
  EXPECT_EQ(col.ToString(), "f32[2,3]{0,1}");
  EXPECT_TRUE(col.Compatible(s));
  EXPECT_FALSE(col == s);
  EXPECT_EQ(LayoutStrides(col), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(s.ByteSize(), 24);
  Layout tiled = s.layout();
  tiled.tiles.push_back(Tile{{8, 128}});
  tiled.element_size_in_bits = 16;
  tiled.memory_space = 1;
  EXPECT_EQ(tiled.ToString(), "{1,0:T(8,128)E(16)S(1)}");
}

TEST(LiteralTest, StoresAndPrintsValues) {
  Literal lit = Literal::FromVector<float>(Shape::Array(F32, {2, 2}),
                                           {1.0f, 2.5f, -INFINITY, NAN});
  EXPECT_EQ(lit.Get<float>({1, 0}), -INFINITY);
  EXPECT_EQ(lit.ValuesToString(), "{ { 1, 2.5 }, { -inf, nan } }");
  Literal r1 = Literal::CreateR1<int32_t>(S32, {1, 2, 3});
  EXPECT_EQ(r1.ValuesToString(), "{1, 2, 3}");
  EXPECT_EQ(Literal::CreateR0<bool>(PRED, true).ValuesToString(), "true");
  Literal h(Shape::Scalar(F16));
  h.SetFromDouble(0, 0.1);
  EXPECT_EQ(h.ValuesToString(), "0.1");
  EXPECT_EQ(Literal::CreateR0<float>(F32, 0.1f).ValuesToString(), "0.1");
  // XLA's spelling: 6 digits when they round-trip, else 9.
  EXPECT_EQ(Literal::CreateR0<float>(F32, 0.70710677f).ValuesToString(),
            "0.707106769");
  EXPECT_EQ(Literal::CreateR0<float>(F32, 60000.0f).ValuesToString(), "60000");
  EXPECT_EQ(Literal::CreateR0<float>(F32, 1e-8f).ValuesToString(), "1e-08");
  auto reshaped = lit.Reshape({4});
  ASSERT_TRUE(reshaped.ok());
  EXPECT_EQ(reshaped->Get<float>({1}), 2.5f);
  EXPECT_FALSE(lit.Reshape({3}).ok());
}

TEST(OpcodeTest, AllOpcodesOfCurrentXla) {
  EXPECT_EQ(kHloOpcodeCount, 136);
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    HloOpcode op = static_cast<HloOpcode>(i);
    auto parsed = StringToHloOpcode(HloOpcodeString(op));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, op);
  }
  EXPECT_EQ(HloOpcodeString(HloOpcode::kClz), "count-leading-zeros");
  EXPECT_EQ(*HloOpcodeArity(HloOpcode::kSelect), 3);
  EXPECT_FALSE(HloOpcodeArity(HloOpcode::kTuple).has_value());
  EXPECT_TRUE(HloOpcodeIsElementwise(HloOpcode::kExp));
  EXPECT_FALSE(HloOpcodeIsElementwise(HloOpcode::kBroadcast));
  EXPECT_TRUE(HloOpcodeHasSideEffect(HloOpcode::kAllReduce));
  EXPECT_FALSE(StringToHloOpcode("frobnicate").ok());
}

// entry(p0: f32[4]) = negate(exp(p0)) + exp(p0)
class MutationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = std::make_unique<HloModule>("m");
    auto entry = std::make_unique<HloComputation>("entry");
    Shape s = Shape::Array(F32, {4});
    p0_ = entry->AddParameter(HloInstruction::CreateParameter(0, s, "p0"));
    exp_ = entry->AddInstruction(
        HloInstruction::CreateUnary(s, HloOpcode::kExp, p0_));
    neg_ = entry->AddInstruction(
        HloInstruction::CreateUnary(s, HloOpcode::kNegate, exp_));
    add_ = entry->AddInstruction(
        HloInstruction::CreateBinary(s, HloOpcode::kAdd, neg_, exp_));
    entry->set_root_instruction(add_);
    entry_ = module_->AddEntryComputation(std::move(entry));
  }
  std::unique_ptr<HloModule> module_;
  HloComputation* entry_;
  HloInstruction *p0_, *exp_, *neg_, *add_;
};

TEST_F(MutationTest, UsersAndUniqueNames) {
  EXPECT_EQ(exp_->users(), (std::vector<HloInstruction*>{neg_, add_}));
  EXPECT_EQ(exp_->name(), "exponential");
  HloInstruction* exp2 = entry_->AddInstruction(
      HloInstruction::CreateUnary(exp_->shape(), HloOpcode::kExp, p0_));
  EXPECT_EQ(exp2->name(), "exponential.1");
  EXPECT_NE(exp2->unique_id(), exp_->unique_id());
}

TEST_F(MutationTest, ReplaceAllUsesAndRemove) {
  ASSERT_TRUE(neg_->ReplaceAllUsesWith(exp_).ok());
  EXPECT_EQ(add_->operand(0), exp_);
  EXPECT_EQ(neg_->user_count(), 0);
  ASSERT_TRUE(entry_->RemoveInstruction(neg_).ok());
  EXPECT_EQ(entry_->instruction_count(), 3);
  EXPECT_EQ(exp_->users(), (std::vector<HloInstruction*>{add_}));
  EXPECT_FALSE(entry_->RemoveInstruction(exp_).ok());  // still used
}

TEST_F(MutationTest, FusesIntoOneLoopFusion) {
  auto fused = entry_->CreateFusionInstruction({exp_, neg_, add_},
                                               FusionKind::kLoop);
  ASSERT_TRUE(fused.ok()) << fused.status();
  HloInstruction* fusion = *fused;
  EXPECT_EQ(entry_->root_instruction(), fusion);
  EXPECT_EQ(fusion->opcode(), HloOpcode::kFusion);
  EXPECT_EQ(fusion->operands(), (std::vector<HloInstruction*>{p0_}));
  EXPECT_EQ(fusion->fused_computation()->instruction_count(), 4);
  EXPECT_EQ(fusion->fused_expression_root()->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(entry_->instruction_count(), 2);
  // The fused computation precedes its caller.
  EXPECT_EQ(module_->computations().front(), fusion->fused_computation());
  EXPECT_EQ(module_->computations().back(), entry_);
}

TEST_F(MutationTest, SetInstructionOrderAndMoveComputation) {
  // A second parameter, then the stored order given explicitly: the
  // parameter list follows the numbers, not the order.
  HloInstruction* p1 = entry_->AddInstruction(
      HloInstruction::CreateParameter(1, p0_->shape(), "p1"));
  ASSERT_TRUE(entry_->SetInstructionOrder({p1, p0_, exp_, neg_, add_}).ok());
  EXPECT_EQ(entry_->instructions(),
            (std::vector<HloInstruction*>{p1, p0_, exp_, neg_, add_}));
  EXPECT_EQ(entry_->parameter_instructions(),
            (std::vector<HloInstruction*>{p0_, p1}));
  EXPECT_FALSE(entry_->SetInstructionOrder({p0_, exp_, neg_, add_}).ok());
  EXPECT_FALSE(
      entry_->SetInstructionOrder({p0_, p0_, exp_, neg_, add_}).ok());
  EXPECT_EQ(entry_->instruction_count(), 5);

  auto fused = entry_->CreateFusionInstruction({exp_}, FusionKind::kLoop);
  ASSERT_TRUE(fused.ok()) << fused.status();
  HloComputation* body = (*fused)->fused_computation();
  auto other = std::make_unique<HloComputation>("other");
  HloComputation* last = module_->AddEmbeddedComputation(std::move(other));
  EXPECT_EQ(module_->computations(),
            (std::vector<HloComputation*>{body, entry_, last}));
  module_->MoveComputationBefore(body, last);
  EXPECT_EQ(module_->computations(),
            (std::vector<HloComputation*>{entry_, body, last}));
}

TEST_F(MutationTest, FusionWithOutsideUserIsMultiOutput) {
  auto fused =
      entry_->CreateFusionInstruction({exp_, neg_}, FusionKind::kLoop);
  ASSERT_TRUE(fused.ok()) << fused.status();
  // exp is still read by add outside the fusion: a second output.
  HloInstruction* fusion = (*fused)->operand(0);
  EXPECT_TRUE(fusion->IsMultiOutputFusion());
  EXPECT_EQ(fusion->shape().tuple_shapes_size(), 2);
  EXPECT_EQ(add_->operand(0)->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(add_->operand(0)->tuple_index(), 0);
  EXPECT_EQ(add_->operand(1)->tuple_index(), 1);
  // Stored order is still def-before-use.
  std::vector<HloInstruction*> order = entry_->instructions();
  EXPECT_EQ(order.back(), add_);
}

TEST_F(MutationTest, CloneIsStructurallyEqual) {
  std::unique_ptr<HloModule> clone = module_->Clone();
  EXPECT_TRUE(clone->StructurallyEqual(*module_));
  HloInstruction* root = clone->entry_computation()->root_instruction();
  EXPECT_NE(root, add_);
  EXPECT_EQ(root->name(), add_->name());
  root->mutable_attrs().dimensions = {0};
  EXPECT_FALSE(clone->StructurallyEqual(*module_));
}

TEST_F(MutationTest, CloneSurvivesStoredOrderThatIsNotDefBeforeUse) {
  // Make add (stored last) an operand of exp (stored second): the stored
  // order is now use-before-def, which Clone must tolerate.
  HloInstruction* neg2 = entry_->AddInstruction(
      HloInstruction::CreateUnary(p0_->shape(), HloOpcode::kNegate, p0_));
  ASSERT_TRUE(exp_->ReplaceOperandWith(0, neg2).ok());
  std::unique_ptr<HloComputation> clone = entry_->Clone();
  EXPECT_TRUE(clone->Equal(*entry_));
}

TEST_F(MutationTest, EntryLayoutFromHeaderGetsParameterNames) {
  ProgramShape header;
  header.parameters = {p0_->shape()};
  header.result = add_->shape();
  module_->mutable_config().entry_computation_layout = header;
  EXPECT_EQ(module_->EntryComputationLayout().parameter_names,
            std::vector<std::string>{"p0"});
}

TEST_F(MutationTest, PostOrderPutsOperandsFirst) {
  std::vector<HloInstruction*> order = entry_->MakeInstructionPostOrder();
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order.front(), p0_);
  EXPECT_EQ(order.back(), add_);
}

// Spot values of each 8-bit float conversion, as ml_dtypes and XLA:CPU
// (jax 0.10.2) give them: rounding ties to even (464 -> 448 in e4m3fn,
// 2^-10 -> 0), overflow to inf (e5m2) or NaN (no-inf formats), NaN and inf
// inputs, denormals, and fnuz's lack of -0.
TEST(Float8Test, FromFloatAsMlDtypes) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {
      0.0f,     -0.0f,    1.0f,     448.0f,   460.0f,   464.0f,  465.0f,
      500.0f,   1e9f,     inf,      -inf,     nan,      0x1p-9f, 0x1p-10f,
      0x3p-11f, 0x3p-11f, 57344.0f, 61440.0f, 61441.0f, -1e-30f};
  const std::vector<std::pair<PrimitiveType, std::vector<int>>> expected = {
      {F8E4M3FN, {0,   128, 56, 126, 126, 126, 127, 127, 127, 127,
                  255, 127, 1,  0,   1,   1,   127, 127, 127, 128}},
      {F8E5M2, {0,   128, 60, 95, 95, 95, 95,  96,  124, 124,
                252, 126, 24, 20, 22, 22, 123, 124, 124, 128}},
      {F8E4M3FNUZ, {0,   0,   64, 128, 128, 128, 128, 128, 128, 128,
                    128, 128, 2,  1,   2,   2,   128, 128, 128, 0}},
      {F8E5M2FNUZ, {0,   0,   64, 99, 99, 99, 99,  100, 128, 128,
                    128, 128, 28, 24, 26, 26, 127, 128, 128, 0}},
      {F8E4M3B11FNUZ, {0,   0,   88, 128, 128, 128, 128, 128, 128, 128,
                       128, 128, 16, 8,   12,  12,  128, 128, 128, 0}},
  };
  for (const auto& [type, bits] : expected) {
    const Float8Format& format = *Float8FormatOf(type);
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(FloatToFloat8Bits(x[i], format), bits[i])
          << PrimitiveTypeName(type) << " of " << x[i];
    }
  }
}

// Every bit pattern decodes to a value that encodes back to it (NaNs to
// the format's NaN of the same sign), and decoding is monotonic over the
// positive finite patterns.
TEST(Float8Test, EveryPatternRoundTrips) {
  for (PrimitiveType type : {F8E5M2, F8E4M3, F8E3M4, F8E4M3FN, F8E4M3FNUZ,
                             F8E5M2FNUZ, F8E4M3B11FNUZ}) {
    const Float8Format& format = *Float8FormatOf(type);
    float previous = -1.0f;
    for (int b = 0; b < 256; ++b) {
      const float v = Float8BitsToFloat(static_cast<uint8_t>(b), format);
      const uint8_t back = FloatToFloat8Bits(v, format);
      if (std::isnan(v)) {
        EXPECT_EQ(back, format.Nan(std::signbit(v)))
            << PrimitiveTypeName(type) << " pattern " << b;
        continue;
      }
      EXPECT_EQ(back, b) << PrimitiveTypeName(type) << " pattern " << b << " = "
                         << v;
      if (b < 0x80 && std::isfinite(v)) {
        EXPECT_GT(v, previous) << PrimitiveTypeName(type) << " pattern " << b;
        previous = v;
      }
    }
  }
  EXPECT_EQ(Float8BitsToFloat(0x7b, *Float8FormatOf(F8E5M2)), 57344.0f);
  EXPECT_EQ(Float8BitsToFloat(0x7e, *Float8FormatOf(F8E4M3FN)), 448.0f);
  EXPECT_EQ(Float8BitsToFloat(0x7f, *Float8FormatOf(F8E4M3FNUZ)), 240.0f);
  EXPECT_EQ(Float8BitsToFloat(0x01, *Float8FormatOf(F8E4M3FN)), 0x1p-9f);
}

}  // namespace
}  // namespace hloc

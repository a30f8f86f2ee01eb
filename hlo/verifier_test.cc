// Unit tests of the verifier on modules built with the IR API: for each
// family of checks a module that passes and one that fails with the exact
// error text.
#include "hlo/verifier.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/module.h"

namespace hloc {
namespace {

Shape A(PrimitiveType type, std::vector<int64_t> dims) {
  return Shape::Array(type, std::move(dims));
}

std::string Verify(const HloModule& module) {
  absl::Status status = VerifyModule(module);
  return status.ok() ? "ok" : std::string(status.message());
}

// Builds one computation; instruction names are given explicitly so error
// texts are predictable.
class Builder {
 public:
  explicit Builder(std::string name)
      : name_(name), computation_(std::make_unique<HloComputation>(name)) {}

  HloInstruction* Param(const Shape& shape) {
    const int64_t n = computation_->num_parameters();
    return computation_->AddParameter(HloInstruction::CreateParameter(
        n, shape, absl::StrCat(name_, ".p", n)));
  }
  HloInstruction* Add(std::unique_ptr<HloInstruction> instr,
                      const std::string& name) {
    instr->SetName(name);
    return computation_->AddInstruction(std::move(instr));
  }
  HloInstruction* Op(HloOpcode opcode, const Shape& shape,
                     std::vector<HloInstruction*> operands,
                     const std::string& name) {
    return Add(HloInstruction::Create(opcode, shape, operands), name);
  }
  std::unique_ptr<HloComputation> Build(HloInstruction* root) {
    computation_->set_root_instruction(root);
    return std::move(computation_);
  }

 private:
  std::string name_;
  std::unique_ptr<HloComputation> computation_;
};

// (T, T) -> T applying `opcode`.
HloComputation* AddBinaryComputation(HloModule* module, const std::string& name,
                                     PrimitiveType type, HloOpcode opcode) {
  Builder b(name);
  HloInstruction* x = b.Param(A(type, {}));
  HloInstruction* y = b.Param(A(type, {}));
  HloInstruction* r = b.Op(opcode, A(type, {}), {x, y}, name + ".r");
  return module->AddEmbeddedComputation(b.Build(r));
}

// (T, T) -> pred[] comparing with LT.
HloComputation* AddLessThan(HloModule* module, const std::string& name,
                            PrimitiveType type) {
  Builder b(name);
  HloInstruction* x = b.Param(A(type, {}));
  HloInstruction* y = b.Param(A(type, {}));
  HloInstruction* r = b.Add(HloInstruction::CreateCompare(
                                A(PRED, {}), x, y, ComparisonDirection::kLt),
                            name + ".r");
  return module->AddEmbeddedComputation(b.Build(r));
}

TEST(VerifierTest, ElementwiseModulePasses) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {4}));
  HloInstruction* y = b.Param(A(F32, {4}));
  HloInstruction* add = b.Op(HloOpcode::kAdd, A(F32, {4}), {x, y}, "add");
  HloInstruction* cmp =
      b.Add(HloInstruction::CreateCompare(A(PRED, {4}), add, y,
                                          ComparisonDirection::kGt,
                                          ComparisonType::kTotalOrder),
            "cmp");
  HloInstruction* sel =
      b.Op(HloOpcode::kSelect, A(F32, {4}), {cmp, add, x}, "sel");
  HloInstruction* cvt = b.Op(HloOpcode::kConvert, A(BF16, {4}), {sel}, "cvt");
  HloInstruction* tuple = b.Add(HloInstruction::CreateTuple({cvt, cmp}), "t");
  module.AddEntryComputation(b.Build(tuple));
  EXPECT_EQ(Verify(module), "ok");
}

TEST(VerifierTest, BinaryOperandMismatch) {
  HloModule module("m");
  Builder b("main.3");
  HloInstruction* x = b.Param(A(F32, {3}));
  HloInstruction* y = b.Param(A(F32, {4}));
  b.Op(HloOpcode::kAdd, A(F32, {3}), {x, y}, "add.5");
  module.AddEntryComputation(b.Build(x));
  EXPECT_EQ(Verify(module),
            "verifier: in computation main.3, instruction add.5: operand 1 "
            "has shape f32[4] but f32[3] was expected");
}

TEST(VerifierTest, DeclaredShapeMustMatchInferred) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {2, 3}));
  HloInstruction* t = b.Add(
      HloInstruction::CreateTranspose(A(F32, {2, 3}), x, {1, 0}), "transpose");
  module.AddEntryComputation(b.Build(t));
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction transpose: declared "
            "shape f32[2,3] does not match inferred shape f32[3,2]");
  // Layouts do not matter.
  *t->mutable_shape() = Shape::ArrayWithLayout(F32, {3, 2}, {0, 1});
  EXPECT_EQ(Verify(module), "ok");
  // Element types do.
  *t->mutable_shape() = A(S32, {3, 2});
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction transpose: declared "
            "shape s32[3,2] does not match inferred shape f32[3,2]");
}

TEST(VerifierTest, OperandCounts) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {3}));
  b.Op(HloOpcode::kAdd, A(F32, {3}), {x}, "add");
  module.AddEntryComputation(b.Build(x));
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction add: add takes 2 "
            "operands, got 1");
}

TEST(VerifierTest, VariadicOperandCounts) {
  HloModule module("m");
  HloComputation* sum =
      AddBinaryComputation(&module, "sum", F32, HloOpcode::kAdd);
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {3}));
  b.Add(HloInstruction::CreateReduce(A(F32, {}), {x}, {0}, sum), "reduce");
  module.AddEntryComputation(b.Build(x));
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction reduce: reduce takes "
            "inputs then as many init values: an even, non-zero number of "
            "operands, got 1");
}

TEST(VerifierTest, ReducePassesAndChecksItsComputation) {
  HloModule module("m");
  HloComputation* sum =
      AddBinaryComputation(&module, "sum", F32, HloOpcode::kAdd);
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {2, 3}));
  HloInstruction* zero =
      b.Add(HloInstruction::CreateConstant(Literal::CreateR0<float>(F32, 0.0f)),
            "zero");
  HloInstruction* reduce = b.Add(
      HloInstruction::CreateReduce(A(F32, {2}), {x, zero}, {1}, sum), "reduce");
  module.AddEntryComputation(b.Build(reduce));
  EXPECT_EQ(Verify(module), "ok");

  // A reducer over s32 does not fit f32 inputs.
  HloComputation* isum =
      AddBinaryComputation(&module, "isum", S32, HloOpcode::kAdd);
  reduce->set_called_computation(0, isum);
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction reduce: init value 0 "
            "has shape f32[] but reduce computation result 0 has shape s32[]");
}

TEST(VerifierTest, SortComparatorSignature) {
  HloModule module("m");
  HloComputation* less = AddLessThan(&module, "less", F32);
  HloComputation* sum =
      AddBinaryComputation(&module, "sum", F32, HloOpcode::kAdd);
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {16, 100}));
  HloInstruction* sort = b.Op(HloOpcode::kSort, A(F32, {16, 100}), {x}, "sort");
  sort->mutable_attrs().dimensions = {1};
  sort->mutable_attrs().is_stable = true;
  sort->set_called_computations({less});
  module.AddEntryComputation(b.Build(sort));
  EXPECT_EQ(Verify(module), "ok");
  sort->set_called_computations({sum});
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction sort: sort comparator "
            "must return pred[], returns f32[]");
  sort->set_called_computations({});
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction sort: sort calls 1 "
            "computation, has 0");
}

TEST(VerifierTest, MapAndScatterComputations) {
  HloModule module("m");
  HloComputation* sum =
      AddBinaryComputation(&module, "sum", F32, HloOpcode::kAdd);
  HloComputation* isum =
      AddBinaryComputation(&module, "isum", S32, HloOpcode::kAdd);
  Builder b("main");
  HloInstruction* table = b.Param(A(F32, {100, 8}));
  HloInstruction* indices = b.Param(A(S32, {50}));
  HloInstruction* updates = b.Param(A(F32, {50, 8}));
  HloInstruction* scatter = b.Op(HloOpcode::kScatter, A(F32, {100, 8}),
                                 {table, indices, updates}, "scatter");
  ScatterDimensionNumbers dnums;
  dnums.update_window_dims = {1};
  dnums.inserted_window_dims = {0};
  dnums.scatter_dims_to_operand_dims = {0};
  dnums.index_vector_dim = 1;
  scatter->mutable_attrs().scatter_dimension_numbers = dnums;
  scatter->set_called_computations({sum});
  HloInstruction* map =
      b.Op(HloOpcode::kMap, A(F32, {100, 8}), {scatter, table}, "map");
  map->set_called_computations({sum});
  module.AddEntryComputation(b.Build(map));
  EXPECT_EQ(Verify(module), "ok");

  map->set_called_computations({isum});
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction map: map computation "
            "parameter 0 has shape s32[] but f32[] was expected");
  map->set_called_computations({sum});
  scatter->set_called_computations({isum});
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction scatter: init value 0 "
            "has shape f32[] but scatter computation result 0 has shape "
            "s32[]");
}

TEST(VerifierTest, SelectAndScatterComputations) {
  HloModule module("m");
  HloComputation* ge = AddLessThan(&module, "select", F32);
  HloComputation* sum =
      AddBinaryComputation(&module, "sum", F32, HloOpcode::kAdd);
  Builder b("main");
  HloInstruction* operand = b.Param(A(F32, {4, 4}));
  HloInstruction* source = b.Param(A(F32, {2, 2}));
  HloInstruction* init = b.Param(A(F32, {}));
  HloInstruction* sas = b.Op(HloOpcode::kSelectAndScatter, A(F32, {4, 4}),
                             {operand, source, init}, "sas");
  Window window;
  for (int i = 0; i < 2; ++i) {
    WindowDimension d;
    d.size = 2;
    d.stride = 2;
    window.dimensions.push_back(d);
  }
  sas->mutable_attrs().window = window;
  sas->set_called_computations({ge, sum});
  module.AddEntryComputation(b.Build(sas));
  EXPECT_EQ(Verify(module), "ok");
  sas->set_called_computations({sum, sum});
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction sas: select "
            "computation must return pred[], returns f32[]");
}

TEST(VerifierTest, WhileSignatures) {
  HloModule module("m");
  const Shape state = Shape::Tuple({A(S32, {}), A(F32, {4})});
  Builder cb("cond");
  HloInstruction* cp = cb.Param(state);
  HloInstruction* i = cb.Add(
      HloInstruction::CreateGetTupleElement(A(S32, {}), cp, 0), "cond.i");
  HloInstruction* limit = cb.Add(
      HloInstruction::CreateConstant(Literal::CreateR0<int32_t>(S32, 10)),
      "cond.limit");
  HloInstruction* lt =
      cb.Add(HloInstruction::CreateCompare(A(PRED, {}), i, limit,
                                           ComparisonDirection::kLt),
             "cond.lt");
  HloComputation* cond = module.AddEmbeddedComputation(cb.Build(lt));
  Builder bb("body");
  HloInstruction* bp = bb.Param(state);
  HloComputation* body = module.AddEmbeddedComputation(bb.Build(bp));
  // A body returning the wrong type.
  Builder wb("bad_body");
  HloInstruction* wp = wb.Param(state);
  HloInstruction* wx = wb.Add(
      HloInstruction::CreateGetTupleElement(A(F32, {4}), wp, 1), "bad_body.x");
  HloComputation* bad_body = module.AddEmbeddedComputation(wb.Build(wx));

  Builder b("main");
  HloInstruction* init = b.Param(state);
  HloInstruction* loop = b.Op(HloOpcode::kWhile, state, {init}, "while");
  loop->set_called_computations({cond, body});
  module.AddEntryComputation(b.Build(loop));
  EXPECT_EQ(Verify(module), "ok");
  loop->set_called_computations({cond, bad_body});
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction while: while body "
            "returns f32[4] but the init is (s32[], f32[4])");
  loop->set_called_computations({body, body});
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction while: while "
            "condition must return pred[], returns (s32[], f32[4])");
}

TEST(VerifierTest, ConditionalBranches) {
  HloModule module("m");
  Builder b0("branch0");
  HloInstruction* p0 = b0.Param(A(F32, {2}));
  HloComputation* branch0 = module.AddEmbeddedComputation(b0.Build(p0));
  Builder b1("branch1");
  b1.Param(A(S32, {}));
  HloInstruction* c1 = b1.Add(
      HloInstruction::CreateConstant(Literal::CreateR1<float>(F32, {1, 2})),
      "branch1.c");
  HloComputation* branch1 = module.AddEmbeddedComputation(b1.Build(c1));

  Builder b("main");
  HloInstruction* pred = b.Param(A(PRED, {}));
  HloInstruction* x = b.Param(A(F32, {2}));
  HloInstruction* n = b.Param(A(S32, {}));
  HloInstruction* cond =
      b.Op(HloOpcode::kConditional, A(F32, {2}), {pred, x, n}, "cond");
  cond->set_called_computations({branch0, branch1});
  module.AddEntryComputation(b.Build(cond));
  EXPECT_EQ(Verify(module), "ok");
  cond->set_called_computations({branch1, branch0});
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction cond: operand 1 has "
            "shape f32[2] but branch 0 takes s32[]");
}

TEST(VerifierTest, CallAndFusionSignatures) {
  HloModule module("m");
  Builder cb("callee");
  HloInstruction* cp = cb.Param(A(F32, {4}));
  HloInstruction* neg =
      cb.Op(HloOpcode::kNegate, A(F32, {4}), {cp}, "callee.neg");
  HloComputation* callee = module.AddEmbeddedComputation(cb.Build(neg));
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {4}));
  HloInstruction* y = b.Param(A(F32, {5}));
  HloInstruction* call = b.Op(HloOpcode::kCall, A(F32, {4}), {x}, "call");
  call->set_called_computations({callee});
  module.AddEntryComputation(b.Build(call));
  EXPECT_EQ(Verify(module), "ok");
  ASSERT_TRUE(call->ReplaceOperandWith(0, y).ok());
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction call: operand 0 has "
            "shape f32[5] but the called computation's parameter 0 has shape "
            "f32[4]");
}

// entry(p0: f32[4]) = negate(exp(p0)) + exp(p0), then fused.
class FusionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = std::make_unique<HloModule>("m");
    Builder b("entry");
    Shape s = A(F32, {4});
    p0_ = b.Param(s);
    exp_ = b.Op(HloOpcode::kExp, s, {p0_}, "exp");
    neg_ = b.Op(HloOpcode::kNegate, s, {exp_}, "neg");
    add_ = b.Op(HloOpcode::kAdd, s, {neg_, exp_}, "add");
    entry_ = module_->AddEntryComputation(b.Build(add_));
  }
  std::unique_ptr<HloModule> module_;
  HloComputation* entry_;
  HloInstruction *p0_, *exp_, *neg_, *add_;
};

TEST_F(FusionTest, MultiOutputFusionVerifies) {
  auto fused = entry_->CreateFusionInstruction({exp_, neg_}, FusionKind::kLoop);
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_TRUE((*fused)->operand(0)->IsMultiOutputFusion());
  EXPECT_EQ(Verify(*module_), "ok");
}

TEST_F(FusionTest, LoopFusionVerifies) {
  auto fused =
      entry_->CreateFusionInstruction({exp_, neg_, add_}, FusionKind::kLoop);
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(Verify(*module_), "ok");
}

TEST_F(FusionTest, FusionRootMustMatch) {
  auto fused = entry_->CreateFusionInstruction({exp_}, FusionKind::kLoop);
  ASSERT_TRUE(fused.ok()) << fused.status();
  HloInstruction* fusion = *fused;
  fusion->SetName("fusion");
  *fusion->mutable_shape() = A(F32, {5});
  EXPECT_EQ(Verify(*module_),
            "verifier: in computation entry, instruction fusion: declared "
            "shape f32[5] does not match inferred shape f32[4]");
}

TEST_F(FusionTest, FusedComputationMustBeMarked) {
  auto fused = entry_->CreateFusionInstruction({exp_}, FusionKind::kLoop);
  ASSERT_TRUE(fused.ok()) << fused.status();
  HloInstruction* fusion = *fused;
  fusion->SetName("fusion");
  fusion->fused_computation()->SetFusionInstruction(add_);
  EXPECT_EQ(Verify(*module_),
            absl::StrCat("verifier: in computation entry, instruction fusion: "
                         "its fused computation ",
                         fusion->fused_computation()->name(),
                         " is not marked as fused by it"));
}

TEST(VerifierTest, ParameterNumbering) {
  HloModule module("m");
  auto c = std::make_unique<HloComputation>("main");
  HloInstruction* p1 =
      c->AddParameter(HloInstruction::CreateParameter(1, A(F32, {}), "p1"));
  c->set_root_instruction(p1);
  module.AddEntryComputation(std::move(c));
  EXPECT_EQ(Verify(module),
            "verifier: in computation main: parameter 0 is missing (2 "
            "parameters expected)");

  HloModule dup("m");
  auto d = std::make_unique<HloComputation>("main");
  HloInstruction* a =
      d->AddParameter(HloInstruction::CreateParameter(0, A(F32, {}), "a"));
  d->AddInstruction(HloInstruction::CreateParameter(0, A(F32, {}), "b"));
  d->set_root_instruction(a);
  dup.AddEntryComputation(std::move(d));
  EXPECT_EQ(Verify(dup),
            "verifier: in computation main, instruction b: parameter number 0 "
            "is also used by a");
}

TEST(VerifierTest, OperandsStayInTheirComputation) {
  HloModule module("m");
  Builder ob("other");
  HloInstruction* foreign = ob.Param(A(F32, {}));
  module.AddEmbeddedComputation(ob.Build(foreign));
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {}));
  b.Op(HloOpcode::kAdd, A(F32, {}), {x, foreign}, "add");
  module.AddEntryComputation(b.Build(x));
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction add: operand 1 "
            "(other.p0) belongs to computation other");
}

TEST(VerifierTest, CyclesAreRejected) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {}));
  HloInstruction* n1 = b.Op(HloOpcode::kNegate, A(F32, {}), {x}, "n1");
  HloInstruction* n2 = b.Op(HloOpcode::kNegate, A(F32, {}), {n1}, "n2");
  module.AddEntryComputation(b.Build(n2));
  EXPECT_EQ(Verify(module), "ok");
  ASSERT_TRUE(n1->ReplaceOperandWith(0, n2).ok());
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction n1: it is part of a "
            "cycle through operands or control dependencies");
}

TEST(VerifierTest, ControlDependencyCycles) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {}));
  HloInstruction* n1 = b.Op(HloOpcode::kNegate, A(F32, {}), {x}, "n1");
  HloInstruction* n2 = b.Op(HloOpcode::kExp, A(F32, {}), {x}, "n2");
  HloInstruction* t = b.Add(HloInstruction::CreateTuple({n1, n2}), "t");
  module.AddEntryComputation(b.Build(t));
  ASSERT_TRUE(n1->AddControlDependencyTo(n2).ok());
  EXPECT_EQ(Verify(module), "ok");
  ASSERT_TRUE(n2->AddControlDependencyTo(n1).ok());
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction n1: it is part of a "
            "cycle through operands or control dependencies");
}

TEST(VerifierTest, RootAndEntryMustExist) {
  HloModule module("m");
  Builder b("main");
  b.Param(A(F32, {}));
  module.AddEntryComputation(b.Build(nullptr));
  EXPECT_EQ(Verify(module),
            "verifier: in computation main: there is no root instruction");
  HloModule empty("e");
  EXPECT_EQ(Verify(empty),
            "verifier: in module e: there is no entry computation");
}

TEST(VerifierTest, TupleIndexInRange) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(Shape::Tuple({A(F32, {}), A(S32, {})}));
  HloInstruction* gte =
      b.Add(HloInstruction::CreateGetTupleElement(A(S32, {}), x, 2), "gte");
  module.AddEntryComputation(b.Build(gte));
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction gte: tuple index 2 is "
            "out of range for (f32[], s32[])");
}

TEST(VerifierTest, NamesAreUniqueInTheModule) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {}));
  HloInstruction* n1 = b.Op(HloOpcode::kNegate, A(F32, {}), {x}, "n1");
  HloInstruction* n2 = b.Op(HloOpcode::kNegate, A(F32, {}), {n1}, "n2");
  module.AddEntryComputation(b.Build(n2));
  n2->SetName("n1");
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction n1: the name is also "
            "used in computation main");
}

TEST(VerifierTest, EntryComputationLayout) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {4}));
  module.AddEntryComputation(b.Build(x));
  ProgramShape layout;
  layout.parameters = {Shape::ArrayWithLayout(F32, {4}, {0})};
  layout.result = A(F32, {4});
  module.mutable_config().entry_computation_layout = layout;
  EXPECT_EQ(Verify(module), "ok");
  module.mutable_config().entry_computation_layout->result = A(F32, {5});
  EXPECT_EQ(Verify(module),
            "verifier: in module m: entry computation layout result is f32[5] "
            "but the root of main has shape f32[4]");
  module.mutable_config().entry_computation_layout->parameters.clear();
  EXPECT_EQ(Verify(module),
            "verifier: in module m: the entry computation layout has 0 "
            "parameters but entry computation main has 1");
}

TEST(VerifierTest, MalformedAttributesGiveErrors) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {3}));
  HloInstruction* bcast = b.Add(
      HloInstruction::CreateBroadcast(A(F32, {2, 3}), x, {1000}), "bcast");
  module.AddEntryComputation(b.Build(bcast));
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction bcast: broadcast "
            "dimensions {1000} has dimension 1000 out of range for rank 2");
  bcast->mutable_attrs().dimensions = {-1};
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction bcast: broadcast "
            "dimensions {-1} has dimension -1 out of range for rank 2");
  bcast->mutable_attrs().dimensions = {1};
  EXPECT_EQ(Verify(module), "ok");
}

TEST(VerifierTest, InvalidShapesGiveErrors) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {3}));
  HloInstruction* n = b.Op(HloOpcode::kNegate, A(F32, {3}), {x}, "neg");
  module.AddEntryComputation(b.Build(n));
  n->mutable_shape()->mutable_dimensions()->push_back(2);
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction neg: invalid shape: "
            "shape has 2 dimensions but 1 dynamic-dimension flags");
}

TEST(VerifierTest, UnsupportedElementTypesVerify) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F8E4M3FN, {8}));
  HloInstruction* y = b.Param(A(S4, {8}));
  HloInstruction* cvt = b.Op(HloOpcode::kConvert, A(F8E4M3FN, {8}), {y}, "cvt");
  HloInstruction* mul =
      b.Op(HloOpcode::kMultiply, A(F8E4M3FN, {8}), {x, cvt}, "mul");
  module.AddEntryComputation(b.Build(mul));
  EXPECT_EQ(Verify(module), "ok");
}

TEST(VerifierTest, OnlyCallersCallComputations) {
  HloModule module("m");
  HloComputation* sum =
      AddBinaryComputation(&module, "sum", F32, HloOpcode::kAdd);
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {}));
  HloInstruction* n = b.Op(HloOpcode::kNegate, A(F32, {}), {x}, "neg");
  n->set_called_computations({sum});
  module.AddEntryComputation(b.Build(n));
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction neg: negate does not "
            "call computations but has 1");
}

TEST(VerifierTest, RecursiveCallsAreRejected) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {}));
  HloInstruction* call = b.Op(HloOpcode::kCall, A(F32, {}), {x}, "call");
  HloComputation* main = module.AddEntryComputation(b.Build(call));
  call->set_called_computations({main});
  EXPECT_EQ(Verify(module),
            "verifier: in computation main: it calls itself through the call "
            "graph");
}

TEST(VerifierTest, ComparisonTypeFitsOperands) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(S32, {3}));
  HloInstruction* cmp = b.Add(HloInstruction::CreateCompare(
                                  A(PRED, {3}), x, x, ComparisonDirection::kLt,
                                  ComparisonType::kSigned),
                              "cmp");
  module.AddEntryComputation(b.Build(cmp));
  EXPECT_EQ(Verify(module), "ok");
  cmp->mutable_attrs().comparison_type = ComparisonType::kFloat;
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction cmp: comparison type "
            "FLOAT does not apply to s32 operands");
}

TEST(VerifierTest, GenericOpcodesGetGenericChecks) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {3}));
  HloInstruction* cc =
      b.Op(HloOpcode::kCustomCall, Shape::Tuple({A(F32, {7}), A(U8, {64})}),
           {x}, "cc");
  cc->mutable_attrs().custom_call_target = "my_kernel";
  module.AddEntryComputation(b.Build(cc));
  EXPECT_EQ(Verify(module), "ok");
  cc->mutable_attrs().output_to_operand_aliasing = {{{0}, 0, {}}};
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction cc: output {0} "
            "aliases operand 0 at {} of a different shape");
  cc->mutable_attrs().output_to_operand_aliasing = {{{0}, 3, {}}};
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction cc: "
            "output_to_operand_aliasing names operand 3 which does not exist");
}

TEST(VerifierTest, ScheduleListsEveryInstructionOperandsFirst) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {}));
  HloInstruction* n1 = b.Op(HloOpcode::kNegate, A(F32, {}), {x}, "n1");
  HloInstruction* n2 = b.Op(HloOpcode::kNegate, A(F32, {}), {n1}, "n2");
  HloComputation* main = module.AddEntryComputation(b.Build(n2));
  module.mutable_schedule()[main] = {x, n1, n2};
  EXPECT_EQ(Verify(module), "ok");
  module.mutable_schedule()[main] = {x, n2, n1};
  EXPECT_EQ(Verify(module),
            "verifier: in computation main: the schedule lists n2 before its "
            "operand n1");
  module.mutable_schedule()[main] = {x, n1};
  EXPECT_EQ(Verify(module),
            "verifier: in computation main: the schedule misses n2");
}

TEST(VerifierTest, InputOutputAliasIndices) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* x = b.Param(A(F32, {4}));
  module.AddEntryComputation(b.Build(x));
  module.mutable_config().input_output_alias = {{{}, 0, {}, false}};
  EXPECT_EQ(Verify(module), "ok");
  module.mutable_config().input_output_alias = {{{}, 1, {}, false}};
  EXPECT_EQ(Verify(module),
            "verifier: in module m: input_output_alias names parameter 1 but "
            "the entry has 1");
}

TEST(VerifierTest, DotConvolutionGather) {
  HloModule module("m");
  Builder b("main");
  HloInstruction* lhs = b.Param(A(BF16, {16, 64}));
  HloInstruction* rhs = b.Param(A(BF16, {64, 8}));
  HloInstruction* dot =
      b.Op(HloOpcode::kDot, A(F32, {16, 8}), {lhs, rhs}, "dot");
  DotDimensionNumbers dnums;
  dnums.lhs_contracting_dimensions = {1};
  dnums.rhs_contracting_dimensions = {0};
  dot->mutable_attrs().dot_dimension_numbers = dnums;
  HloInstruction* image = b.Param(A(F32, {2, 4, 16, 16}));
  HloInstruction* kernel = b.Param(A(F32, {8, 4, 3, 3}));
  HloInstruction* conv = b.Op(HloOpcode::kConvolution, A(F32, {2, 8, 8, 8}),
                              {image, kernel}, "conv");
  ConvolutionDimensionNumbers cd;
  cd.input_batch_dimension = 0;
  cd.input_feature_dimension = 1;
  cd.input_spatial_dimensions = {2, 3};
  cd.kernel_output_feature_dimension = 0;
  cd.kernel_input_feature_dimension = 1;
  cd.kernel_spatial_dimensions = {2, 3};
  cd.output_batch_dimension = 0;
  cd.output_feature_dimension = 1;
  cd.output_spatial_dimensions = {2, 3};
  conv->mutable_attrs().convolution_dimension_numbers = cd;
  Window window;
  for (int i = 0; i < 2; ++i) {
    WindowDimension d;
    d.size = 3;
    d.stride = 2;
    d.padding_high = 1;
    window.dimensions.push_back(d);
  }
  conv->mutable_attrs().window = window;
  HloInstruction* indices = b.Param(A(S32, {7}));
  HloInstruction* gather =
      b.Op(HloOpcode::kGather, A(BF16, {7, 8}), {rhs, indices}, "gather");
  GatherDimensionNumbers gd;
  gd.offset_dims = {1};
  gd.collapsed_slice_dims = {0};
  gd.start_index_map = {0};
  gd.index_vector_dim = 1;
  gather->mutable_attrs().gather_dimension_numbers = gd;
  gather->mutable_attrs().gather_slice_sizes = {1, 8};
  HloInstruction* t =
      b.Add(HloInstruction::CreateTuple({dot, conv, gather}), "t");
  module.AddEntryComputation(b.Build(t));
  EXPECT_EQ(Verify(module), "ok");

  conv->mutable_attrs().convolution_dimension_numbers.reset();
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction conv: convolution has "
            "no dimension numbers");
  conv->mutable_attrs().convolution_dimension_numbers = cd;
  gather->mutable_attrs().gather_slice_sizes = {1, 9};
  EXPECT_EQ(Verify(module),
            "verifier: in computation main, instruction gather: gather slice "
            "size 9 in dimension 1 is not within [0, 8]");
}

}  // namespace
}  // namespace hloc

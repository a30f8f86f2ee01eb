// Control flow and structure: while, conditional (pred, index, out of range),
// call, fusion (incl. multi-output), tuples, optimization-barrier, tokens,
// replica-id; computations the lane programs cannot express; modules built
// with the IR API; and the errors for unsupported operations and bad
// arguments.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/test_util.h"
#include "hlo/module.h"

namespace hloc {
namespace {

using eval_test::ExpectFloats;
using eval_test::Make;
using eval_test::MustRun;
using eval_test::RunHlo;
using eval_test::Values;
using eval_test::Vec;

TEST(ControlTest, WhileLoopCountsAndAccumulates) {
  const char* kHlo = R"(
HloModule m
cond {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[3] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  f = f32[] convert(j)
  b = f32[3] broadcast(f), dimensions={}
  w = f32[3] add(v, b)
  ROOT t = (s32[], f32[3]) tuple(j, w)
}
ENTRY e {
  z = s32[] constant(0)
  v = f32[3] parameter(0)
  init = (s32[], f32[3]) tuple(z, v)
  ROOT w = (s32[], f32[3]) while(init), condition=cond, body=body
})";
  Literal r = MustRun(kHlo, {Vec<float>(F32, {0, 1, 2})});
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[0]), (std::vector<int32_t>{10}));
  ExpectFloats(r.tuple_elements()[1], {55, 56, 57});
}

// A loop of exactly ten iterations finishes within a limit of ten; a limit
// of nine stops it, naming the loop.
TEST(ControlTest, WhileIterationLimitCountsBodyRuns) {
  const char* kHlo = R"(
HloModule m
cond {
  i = s32[] parameter(0)
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  i = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT j = s32[] add(i, one)
}
ENTRY e {
  z = s32[] constant(0)
  ROOT loop = s32[] while(z), condition=cond, body=body
})";
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(kHlo, "limit.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  EvaluateOptions options;
  options.max_while_iterations = 10;
  absl::StatusOr<Literal> r = EvaluateModule(**module, {}, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<int32_t>(*r), (std::vector<int32_t>{10}));
  options.max_while_iterations = 9;
  r = EvaluateModule(**module, {}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(r.status().message(),
            "while loop loop did not finish within 9 iterations (the limit "
            "given; --max-while-iterations)");
}

const char* kBranches = R"(
HloModule m
neg {
  x = f32[] parameter(0)
  ROOT r = f32[] negate(x)
}
dbl {
  x = f32[] parameter(0)
  ROOT r = f32[] add(x, x)
}
sq {
  x = f32[] parameter(0)
  ROOT r = f32[] multiply(x, x)
}
)";

TEST(ControlTest, ConditionalByPredicateAndIndex) {
  const std::string pred = std::string(kBranches) + R"(
ENTRY e {
  p = pred[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(p, x, x), true_computation=neg, false_computation=dbl
})";
  Literal three = Literal::CreateR0<float>(F32, 3.0f);
  ExpectFloats(MustRun(pred, {Literal::CreateR0<bool>(PRED, true), three}),
               {-3});
  ExpectFloats(MustRun(pred, {Literal::CreateR0<bool>(PRED, false), three}),
               {6});
  const std::string index = std::string(kBranches) + R"(
ENTRY e {
  i = s32[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(i, x, x, x), branch_computations={neg, dbl, sq}
})";
  auto at = [&](int32_t i) {
    return MustRun(index, {Literal::CreateR0<int32_t>(S32, i), three});
  };
  ExpectFloats(at(0), {-3});
  ExpectFloats(at(1), {6});
  ExpectFloats(at(2), {9});
  // Out of range in either direction: the last branch.
  ExpectFloats(at(7), {9});
  ExpectFloats(at(-1), {9});
}

TEST(ControlTest, CallFusionAndTuples) {
  const char* kHlo = R"(
HloModule m
helper {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT s = f32[2] subtract(a, b)
}
fused {
  p0 = f32[2] parameter(0)
  p1 = f32[] parameter(1)
  b = f32[2] broadcast(p1), dimensions={}
  m = f32[2] multiply(p0, b)
  e = f32[2] exponential(p0)
  ROOT t = (f32[2], f32[2]) tuple(m, e)
}
ENTRY e {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  c = f32[2] call(x, y), to_apply=helper
  k = f32[] constant(3)
  f = (f32[2], f32[2]) fusion(c, k), kind=kLoop, calls=fused
  g0 = f32[2] get-tuple-element(f), index=0
  g1 = f32[2] get-tuple-element(f), index=1
  o = f32[2] opt-barrier(g0)
  nested = ((f32[2], f32[2]), f32[2]) tuple(f, o)
  ROOT r = (((f32[2], f32[2]), f32[2]), f32[2]) tuple(nested, g1)
})";
  Literal r = MustRun(kHlo, {Vec<float>(F32, {5, 1}), Vec<float>(F32, {2, 1})});
  const Literal& nested = r.tuple_elements()[0];
  ExpectFloats(nested.tuple_elements()[0].tuple_elements()[0], {9, 0});
  ExpectFloats(nested.tuple_elements()[1], {9, 0});
  ExpectFloats(r.tuple_elements()[1], {static_cast<double>(std::exp(3.0f)), 1});
}

// A called computation or conditional branch takes the operands nothing
// else reads any more, and updates them in place: JAX's lax.scan writes each
// step's output into the stacked outputs through a call of
// dynamic_update_index_in_dim, which copied the whole array every step
// (quadratic: 12 s for a scan of 40000 steps; this loop of 100000 steps
// writing into f32[4000000] copied 1.6 TB: minutes, now about a second).
// An operand still read afterwards (x
// after the first call, b after the conditional) is copied, not changed.
TEST(ControlTest, CalledComputationsUpdateTakenOperandsInPlace) {
  const char* kHlo = R"(
HloModule m
write {
  a = f32[4000000] parameter(0)
  v = f32[] parameter(1)
  i = s32[] parameter(2)
  u = f32[1] reshape(v)
  ROOT d = f32[4000000] dynamic-update-slice(a, u, i)
}
cond {
  s = (s32[], f32[4000000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(100000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4000000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = f32[4000000] get-tuple-element(s), index=1
  f = f32[] convert(i)
  w = f32[4000000] call(a, f, i), to_apply=write
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[4000000]) tuple(j, w)
}
ENTRY e {
  x = f32[4000000] parameter(0)
  z = s32[] constant(0)
  v = f32[] constant(7)
  k = s32[] constant(3)
  y = f32[4000000] call(x, v, k), to_apply=write
  init = (s32[], f32[4000000]) tuple(z, y)
  l = (s32[], f32[4000000]) while(init), condition=cond, body=body
  a = f32[4000000] get-tuple-element(l), index=1
  ROOT r = (f32[4000000], f32[4000000], f32[4000000]) tuple(a, y, x)
})";
  std::vector<float> x(4000000, 5.0f);
  Literal r = MustRun(kHlo, {Vec<float>(F32, x)});
  std::vector<float> a = x;
  for (int64_t i = 0; i < 100000; ++i) a[i] = static_cast<float>(i);
  EXPECT_EQ(Values<float>(r.tuple_elements()[0]), a);
  std::vector<float> y = x;
  y[3] = 7.0f;
  EXPECT_EQ(Values<float>(r.tuple_elements()[1]), y);
  EXPECT_EQ(Values<float>(r.tuple_elements()[2]), x);

  const char* kBranches = R"(
HloModule m
write {
  t = (f32[4], s32[]) parameter(0)
  a = f32[4] get-tuple-element(t), index=0
  i = s32[] get-tuple-element(t), index=1
  u = f32[1] constant({-1})
  ROOT d = f32[4] dynamic-update-slice(a, u, i)
}
keep {
  ROOT a = f32[4] parameter(0)
}
ENTRY e {
  p = pred[] parameter(0)
  b = f32[4] parameter(1)
  i = s32[] constant(2)
  c = f32[4] copy(b)
  t = (f32[4], s32[]) tuple(c, i)
  first = f32[4] conditional(p, t, b), true_computation=write, false_computation=keep
  t2 = (f32[4], s32[]) tuple(b, i)
  second = f32[4] conditional(p, t2, b), true_computation=write, false_computation=keep
  ROOT r = (f32[4], f32[4], f32[4]) tuple(first, second, b)
})";
  for (bool p : {true, false}) {
    Literal c = MustRun(kBranches, {Literal::CreateR0<bool>(PRED, p),
                                    Vec<float>(F32, {1, 2, 3, 4})});
    const std::vector<float> written =
        p ? std::vector<float>{1, 2, -1, 4} : std::vector<float>{1, 2, 3, 4};
    EXPECT_EQ(Values<float>(c.tuple_elements()[0]), written);
    EXPECT_EQ(Values<float>(c.tuple_elements()[1]), written);
    EXPECT_EQ(Values<float>(c.tuple_elements()[2]),
              (std::vector<float>{1, 2, 3, 4}));
  }
}

TEST(ControlTest, TokensAndReplicaId) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  t0 = token[] after-all()
  t1 = token[] after-all(t0, t0)
  d = f32[2] add-dependency(x, t1)
  r = u32[] replica-id()
  p = u32[] partition-id()
  ROOT o = (f32[2], u32[], u32[]) tuple(d, r, p)
})";
  Literal r = MustRun(kHlo, {Vec<float>(F32, {1, 2})});
  ExpectFloats(r.tuple_elements()[0], {1, 2});
  EXPECT_EQ(Values<uint32_t>(r.tuple_elements()[1]),
            (std::vector<uint32_t>{0}));
  EXPECT_EQ(Values<uint32_t>(r.tuple_elements()[2]),
            (std::vector<uint32_t>{0}));
}

TEST(ControlTest, ScalarComputationsOutsideTheLaneProgramFallBack) {
  const char* kHlo = R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
twice {
  x = f32[] parameter(0)
  b = f32[2] broadcast(x), dimensions={}
  z = f32[] constant(0)
  ROOT s = f32[] reduce(b, z), dimensions={0}, to_apply=add
}
sum_via_call {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = f32[] call(x, y), to_apply=add
}
ENTRY e {
  a = f32[3] parameter(0)
  m = f32[3] map(a), dimensions={0}, to_apply=twice
  z = f32[] constant(0)
  r = f32[] reduce(a, z), dimensions={0}, to_apply=sum_via_call
  ROOT t = (f32[3], f32[]) tuple(m, r)
})";
  Literal r = MustRun(kHlo, {Vec<float>(F32, {1, 2, 3})});
  ExpectFloats(r.tuple_elements()[0], {2, 4, 6});
  ExpectFloats(r.tuple_elements()[1], {6});
}

TEST(ControlTest, UnsupportedOperationsAreNamed) {
  const char* kCustom = R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(x), custom_call_target="foo"
})";
  absl::StatusOr<Literal> r = RunHlo(kCustom, {Vec<float>(F32, {1, 2})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "not supported by the evaluator: custom-call (c) to 'foo'");
  const char* kRng = R"(
HloModule m
ENTRY e {
  a = f32[] constant(0)
  b = f32[] constant(1)
  ROOT r = f32[4] rng(a, b), distribution=rng_uniform
})";
  r = RunHlo(kRng);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "not supported by the evaluator: rng (r)");
  const char* kAllReduce = R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  x = f32[2] parameter(0)
  ROOT a = f32[2] all-reduce(x), replica_groups={}, to_apply=add
})";
  // One device: the collective is a group of one (EvaluateReplicated runs
  // several, hlo/evaluator/collective_test.cc).
  r = RunHlo(kAllReduce, {Vec<float>(F32, {1, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->GetAsDouble(0), 1);
  EXPECT_EQ(r->GetAsDouble(1), 2);
  // Only what the root needs is evaluated: dead device ops are harmless.
  const char* kDead = R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  c = f32[2] custom-call(x), custom_call_target="foo"
  ROOT n = f32[2] negate(x)
})";
  ExpectFloats(MustRun(kDead, {Vec<float>(F32, {1, 2})}), {-1, -2});
}

// Sharding marks and dce_sink mean nothing on one device: the evaluator
// computes them as the identity the pipelines' sharding-remover makes them
// (the lax coverage test found with_sharding_constraint refused here).
TEST(ControlTest, AnnotationCustomCallsAreIdentities) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  s = f32[2] custom-call(x), custom_call_target="Sharding", sharding={replicated}
  n = f32[2] negate(s)
  t = (f32[2], f32[2]) custom-call(x, n), custom_call_target="xla.sdy.GlobalToLocalShape"
  sink = () custom-call(n), custom_call_target="dce_sink", custom_call_has_side_effect=true
  ROOT r = ((f32[2], f32[2]), ()) tuple(t, sink)
})";
  Literal r = MustRun(kHlo, {Vec<float>(F32, {1, 2})});
  ExpectFloats(r.tuple_elements()[0].tuple_elements()[0], {1, 2});
  ExpectFloats(r.tuple_elements()[0].tuple_elements()[1], {-1, -2});
  EXPECT_TRUE(r.tuple_elements()[1].tuple_elements().empty());
  // A mark that changes the shape partitions: not an identity.
  const char* kPartition = R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ROOT s = f32[2] custom-call(x), custom_call_target="SPMDFullToShardShape"
})";
  absl::StatusOr<Literal> bad =
      RunHlo(kPartition, {Vec<float>(F32, {1, 2, 3, 4})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "not supported by the evaluator: custom-call (s) to "
            "'SPMDFullToShardShape'");
}

// XLA's AllocateBuffer (jnp.empty in JAX 0.11) is zeros, as the pipelines'
// sharding-remover makes it: a dynamic-update-slice into it leaves zeros
// around the update.
TEST(ControlTest, AllocateBufferIsZeros) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  e = f32[4] custom-call(), custom_call_target="AllocateBuffer"
  one = s32[] constant(1)
  ROOT d = f32[4] dynamic-update-slice(e, p, one)
})";
  ExpectFloats(MustRun(kHlo, {Vec<float>(F32, {5, 6})}), {0, 5, 6, 0});
}

// geev refused says why: eigenvectors where they are asked for, the
// eigenvalues' order where they are not (jnp.linalg.eigvals, jnp.roots).
TEST(ControlTest, GeevRefusalNamesItsReason) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f64[3,3]{0,1} parameter(0)
  ROOT eig = (f64[3], f64[3], c128[3,3]{0,1}, c128[3,3]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_dgeev_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={compute_left = 78 : ui8, compute_right = JOBVR : ui8}
})";
  const std::vector<double> a = {1, 2, 0, 0, 3, 1, 4, 0, 5};
  for (const char* jobvr : {"78", "86"}) {
    absl::StatusOr<Literal> r =
        RunHlo(absl::StrReplaceAll(kHlo, {{"JOBVR", jobvr}}),
               {Make<double>(F64, {3, 3}, a)});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              absl::StrCat("not supported by the evaluator: custom-call (eig) "
                           "to 'lapack_dgeev_ffi' (",
                           std::string(jobvr) == "78"
                               ? "eigenvalues, in an order that is LAPACK's own"
                               : "eigenvectors",
                           ")"));
  }
}

TEST(ControlTest, BadArgumentsAreErrors) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
})";
  absl::StatusOr<Literal> r = RunHlo(kHlo, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("takes 1 arguments but was given 0"),
            std::string::npos)
      << r.status();
  r = RunHlo(kHlo, {Vec<float>(F32, {1, 2, 3})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("argument 0 has shape f32[3]"),
            std::string::npos)
      << r.status();
  r = RunHlo(kHlo, {Vec<int32_t>(S32, {1, 2})});
  ASSERT_FALSE(r.ok());
}

// Malformed instructions (as a buggy pass could build them) give errors
// naming the instruction instead of reading out of bounds.
TEST(ControlTest, MalformedInstructionsAreErrors) {
  auto evaluate = [](HloOpcode opcode, const Shape& shape,
                     const std::function<void(HloInstruction*)>& edit) {
    auto entry = std::make_unique<HloComputation>("entry");
    HloInstruction* p = entry->AddParameter(
        HloInstruction::CreateParameter(0, Shape::Array(F32, {2, 3}), "p"));
    HloInstruction* q = entry->AddParameter(
        HloInstruction::CreateParameter(1, Shape::Array(S32, {2}), "q"));
    std::vector<HloInstruction*> operands = {p};
    if (opcode == HloOpcode::kGather || opcode == HloOpcode::kDot) {
      operands.push_back(opcode == HloOpcode::kDot ? p : q);
    }
    HloInstruction* instr =
        entry->AddInstruction(HloInstruction::Create(opcode, shape, operands));
    edit(instr);
    entry->set_root_instruction(instr);
    HloModule module("bad");
    module.AddEntryComputation(std::move(entry));
    return EvaluateModule(module, {Make<float>(F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                                   Vec<int32_t>(S32, {0, 1})});
  };
  auto none = [](HloInstruction*) {};
  const Shape f32_3x2 = Shape::Array(F32, {3, 2});
  EXPECT_FALSE(evaluate(HloOpcode::kTranspose, f32_3x2, none).ok());
  EXPECT_FALSE(evaluate(HloOpcode::kTranspose, f32_3x2, [](HloInstruction* i) {
                 i->mutable_attrs().dimensions = {0, 0};
               }).ok());
  EXPECT_FALSE(evaluate(HloOpcode::kSlice, f32_3x2, [](HloInstruction* i) {
                 i->mutable_attrs().slice_starts = {0, 0};
                 i->mutable_attrs().slice_limits = {3, 2};
               }).ok());
  EXPECT_FALSE(evaluate(HloOpcode::kDot, f32_3x2, none).ok());
  EXPECT_FALSE(evaluate(HloOpcode::kDot, Shape::Array(F32, {2, 2}),
                        [](HloInstruction* i) {
                          DotDimensionNumbers dn;
                          dn.lhs_contracting_dimensions = {5};
                          dn.rhs_contracting_dimensions = {1};
                          i->mutable_attrs().dot_dimension_numbers = dn;
                        })
                   .ok());
  absl::StatusOr<Literal> gather = evaluate(
      HloOpcode::kGather, Shape::Array(F32, {2, 3}), [](HloInstruction* i) {
        GatherDimensionNumbers dn;
        dn.offset_dims = {1};
        dn.collapsed_slice_dims = {7};
        dn.start_index_map = {0};
        dn.index_vector_dim = 1;
        i->mutable_attrs().gather_dimension_numbers = dn;
        i->mutable_attrs().gather_slice_sizes = {1, 3};
      });
  ASSERT_FALSE(gather.ok());
  EXPECT_NE(gather.status().message().find("gather"), std::string::npos)
      << gather.status();
}

// A module built with the IR API instead of text.
TEST(ControlTest, ModuleBuiltWithTheIrApi) {
  const Shape vec = Shape::Array(F32, {3});
  auto max = std::make_unique<HloComputation>("max");
  {
    HloInstruction* x = max->AddParameter(
        HloInstruction::CreateParameter(0, Shape::Scalar(F32), "x"));
    HloInstruction* y = max->AddParameter(
        HloInstruction::CreateParameter(1, Shape::Scalar(F32), "y"));
    max->set_root_instruction(max->AddInstruction(HloInstruction::CreateBinary(
        Shape::Scalar(F32), HloOpcode::kMaximum, x, y)));
  }
  HloModule module("ir_api");
  HloComputation* max_ptr = module.AddEmbeddedComputation(std::move(max));
  auto entry = std::make_unique<HloComputation>("entry");
  HloInstruction* p =
      entry->AddParameter(HloInstruction::CreateParameter(0, vec, "p"));
  HloInstruction* c = entry->AddInstruction(HloInstruction::CreateConstant(
      Literal::CreateR1<float>(F32, {1.0f, -1.0f, 0.5f})));
  HloInstruction* mul = entry->AddInstruction(
      HloInstruction::CreateBinary(vec, HloOpcode::kMultiply, p, c));
  HloInstruction* init = entry->AddInstruction(
      HloInstruction::CreateConstant(Literal::CreateR0<float>(F32, -100.0f)));
  HloInstruction* red = entry->AddInstruction(HloInstruction::CreateReduce(
      Shape::Scalar(F32), {mul, init}, {0}, max_ptr));
  HloInstruction* cmp = entry->AddInstruction(HloInstruction::CreateCompare(
      Shape::Array(PRED, {3}), mul, p, ComparisonDirection::kEq));
  entry->set_root_instruction(
      entry->AddInstruction(HloInstruction::CreateTuple({red, cmp, mul})));
  module.AddEntryComputation(std::move(entry));

  absl::StatusOr<Literal> r =
      EvaluateModule(module, {Vec<float>(F32, {4, 2, -6})});
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectFloats(r->tuple_elements()[0], {4});
  EXPECT_EQ(Values<bool>(r->tuple_elements()[1]),
            (std::vector<bool>{true, false, false}));
  ExpectFloats(r->tuple_elements()[2], {4, -2, -3});
  // The same computation through EvaluateComputation.
  absl::StatusOr<Literal> direct = EvaluateComputation(
      *module.entry_computation(), {Vec<float>(F32, {1, 1, 1})});
  ASSERT_TRUE(direct.ok()) << direct.status();
  ExpectFloats(direct->tuple_elements()[0], {1});
}

}  // namespace
}  // namespace hloc

// while, conditional and call kernels against the evaluator: loops with
// tuple state (also swapped and unchanged elements, zero trips, constants
// in the body, a dot and a sort in the body, a nested loop), conditionals on
// an s32 index (in and out of range) and on a pred, and calls. None may
// fall back to the evaluator.
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace {

using testing_util::CheckAgainstEvaluator;
using testing_util::MakeOpInput;

TEST(WhileTest, CounterLoopWithArrayState) {
  const std::string text = R"(
HloModule counter
cond {
  s = (s32[], f32[100]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant($N)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[100]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[100] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  c = f32[100] constant({...})
  half = f32[] constant(0.5)
  h = f32[100] broadcast(half), dimensions={}
  m = f32[100] multiply(x, h)
  y = f32[100] add(m, c)
  ROOT t = (s32[], f32[100]) tuple(i1, y)
}
ENTRY main {
  x = f32[100] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[100]) tuple(zero, x)
  w = (s32[], f32[100]) while(init), condition=cond, body=body
  ROOT r = f32[100] get-tuple-element(w), index=1
}
)";
  std::string values;
  for (int i = 0; i < 100; ++i)
    values += (i ? ", " : "") + std::to_string(i % 7);
  for (const char* trips : {"10", "0", "1"}) {
    SCOPED_TRACE(trips);
    std::string t = absl::StrReplaceAll(text, {{"$N", trips}});
    t = absl::StrReplaceAll(t, {{"{...}", "{" + values + "}"}});
    EXPECT_TRUE(CheckAgainstEvaluator(t).empty());
  }
}

TEST(WhileTest, SwappedAndUnchangedStateElements) {
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule swap
cond {
  s = (s32[], f32[8], f32[8], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[8], f32[8], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = f32[8] get-tuple-element(s), index=1
  b = f32[8] get-tuple-element(s), index=2
  k = f32[3] get-tuple-element(s), index=3
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  a1 = f32[8] add(a, a)
  ROOT t = (s32[], f32[8], f32[8], f32[3]) tuple(i1, b, a1, k)
}
ENTRY main {
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  k = f32[3] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[8], f32[8], f32[3]) tuple(zero, a, b, k)
  ROOT w = (s32[], f32[8], f32[8], f32[3]) while(init), condition=cond, body=body
}
)")
                  .empty());
}

TEST(WhileTest, HeavyOpsAndNestedLoopInBody) {
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule nested
inner_cond {
  s = (s32[], f32[16,16]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(j, n), direction=LT
}
inner_body {
  s = (s32[], f32[16,16]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  m = f32[16,16] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j1 = s32[] add(j, one)
  d = f32[16,16] dot(m, m), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[16,16] tanh(d)
  ROOT r = (s32[], f32[16,16]) tuple(j1, t)
}
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
outer_cond {
  s = (s32[], f32[16,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
outer_body {
  s = (s32[], f32[16,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  m = f32[16,16] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  zero = s32[] constant(0)
  init = (s32[], f32[16,16]) tuple(zero, m)
  w = (s32[], f32[16,16]) while(init), condition=inner_cond, body=inner_body
  m1 = f32[16,16] get-tuple-element(w), index=1
  sorted = f32[16,16] sort(m1), dimensions={1}, to_apply=lt
  ROOT r = (s32[], f32[16,16]) tuple(i1, sorted)
}
ENTRY main {
  m = f32[16,16] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[16,16]) tuple(zero, m)
  w = (s32[], f32[16,16]) while(init), condition=outer_cond, body=outer_body
  ROOT r = f32[16,16] get-tuple-element(w), index=1
}
)")
                  .empty());
}

const char kConditional[] = R"(
HloModule conditional
b0 {
  x = f32[10] parameter(0)
  ROOT n = f32[10] negate(x)
}
b1 {
  p = (f32[10], s32[]) parameter(0)
  x = f32[10] get-tuple-element(p), index=0
  ROOT e = f32[10] exponential(x)
}
b2 {
  x = f32[10] parameter(0)
  ROOT c = f32[10] constant({1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
}
ENTRY main {
  i = s32[] parameter(0)
  x = f32[10] parameter(1)
  k = s32[] constant(7)
  t = (f32[10], s32[]) tuple(x, k)
  ROOT c = f32[10] conditional(i, x, t, x), branch_computations={b0, b1, b2}
}
)";

// The iteration limit (runtime/while_limit.h): a compiled loop of exactly
// N iterations finishes within a limit of N; a limit of N - 1 stops the
// run with an error naming the loop; the next run of the same executable
// without a limit is unaffected. (Endless and nested loops:
// tools/hlo_run_exit_codes_test.sh.)
TEST(WhileTest, IterationLimitStopsCompiledLoops) {
  const std::string text = R"(
HloModule limited
cond {
  s = s32[] parameter(0)
  n = s32[] constant(7)
  ROOT lt = pred[] compare(s, n), direction=LT
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY main {
  z = s32[] parameter(0)
  ROOT counted = s32[] while(z), condition=cond, body=body
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "limited.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(**module);
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<Literal> args;
  args.push_back(Literal::CreateR0<int32_t>(S32, 0));
  absl::StatusOr<Literal> r =
      (*executable)
          ->Run(args, DenormalMode::kFlush, /*max_while_iterations=*/7);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->data<int32_t>()[0], 7);
  r = (*executable)->Run(args, DenormalMode::kFlush, 6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(r.status().message(),
            "while loop counted did not finish within 6 iterations (the "
            "limit given; --max-while-iterations)");
  r = (*executable)->Run(args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->data<int32_t>()[0], 7);
}

TEST(ConditionalTest, IndexedBranchesInAndOutOfRange) {
  for (int32_t index : {0, 1, 2, 3, -1, 1000}) {
    SCOPED_TRACE(index);
    EXPECT_TRUE(CheckAgainstEvaluator(kConditional,
                                      {Literal::CreateR0<int32_t>(S32, index),
                                       MakeOpInput(Shape::Array(F32, {10}), 3)})
                    .empty());
  }
}

TEST(ConditionalTest, PredicateSelectsTrueOrFalse) {
  const char* text = R"(
HloModule pred_conditional
on_true {
  x = f32[4,5] parameter(0)
  ROOT s = f32[4,5] sine(x)
}
on_false {
  p = (f32[4,5], f32[4,5]) parameter(0)
  a = f32[4,5] get-tuple-element(p), index=0
  b = f32[4,5] get-tuple-element(p), index=1
  ROOT m = f32[4,5] multiply(a, b)
}
ENTRY main {
  c = pred[] parameter(0)
  x = f32[4,5] parameter(1)
  y = f32[4,5] parameter(2)
  t = (f32[4,5], f32[4,5]) tuple(x, y)
  ROOT r = f32[4,5] conditional(c, x, t), true_computation=on_true, false_computation=on_false
}
)";
  for (bool c : {true, false}) {
    EXPECT_TRUE(
        CheckAgainstEvaluator(text, {Literal::CreateR0<bool>(PRED, c),
                                     MakeOpInput(Shape::Array(F32, {4, 5}), 4),
                                     MakeOpInput(Shape::Array(F32, {4, 5}), 5)})
            .empty());
  }
}

TEST(CallTest, TupleResultAndParameterPassThrough) {
  EXPECT_TRUE(CheckAgainstEvaluator(R"(
HloModule call
callee {
  a = f32[6,7] parameter(0)
  b = s32[6] parameter(1)
  s = f32[6,7] add(a, a)
  ROOT t = (f32[6,7], s32[6], f32[6,7]) tuple(s, b, a)
}
ENTRY main {
  a = f32[6,7] parameter(0)
  b = s32[6] parameter(1)
  ROOT c = (f32[6,7], s32[6], f32[6,7]) call(a, b), to_apply=callee
}
)")
                  .empty());
}

}  // namespace
}  // namespace hloc

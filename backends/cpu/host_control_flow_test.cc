// while and conditional driven from the host (runtime/cpu_executor.h),
// what the CPU compiler emits where a loop body or a branch holds a
// library call (LAPACK here), which no generated kernel can make: against
// the evaluator, with nothing evaluated but what must be (a complex dot in
// the body is the only fallback, listed by its own name, not the loop's),
// the iteration limit, and a saved executable loaded back.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "passes/while_trip_count_annotator.h"
#include "runtime/executable.h"
#include "runtime/object_loader.h"

namespace hloc {
namespace {

using testing_util::CheckAgainstEvaluator;
using testing_util::MakeOpInput;

// A few Newton-like steps: each iteration factors a symmetric positive
// definite matrix that depends on the state (cholesky, a LAPACK call),
// solves with it (two triangular solves) and swaps two state elements.
const char kSolveLoop[] = R"(
HloModule solve_loop
cond {
  s = (s32[], f32[6,6], f32[6,2], f32[6,2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant($N)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[6,6], f32[6,2], f32[6,2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = f32[6,6] get-tuple-element(s), index=1
  x = f32[6,2] get-tuple-element(s), index=2
  y = f32[6,2] get-tuple-element(s), index=3
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  at = f32[6,6] transpose(a), dimensions={1,0}
  aat = f32[6,6] dot(a, at), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  six = f32[] constant(6)
  sixes = f32[6] broadcast(six), dimensions={}
  d = f32[6,6] broadcast(sixes), dimensions={0}
  iota = s32[6,6] iota(), iota_dimension=0
  iota1 = s32[6,6] iota(), iota_dimension=1
  eye = pred[6,6] compare(iota, iota1), direction=EQ
  zero = f32[] constant(0)
  zeros = f32[6,6] broadcast(zero), dimensions={}
  diag = f32[6,6] select(eye, d, zeros)
  spd = f32[6,6] add(aat, diag)
  l = f32[6,6] cholesky(spd), lower=true
  z = f32[6,2] triangular-solve(l, x), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  w = f32[6,2] triangular-solve(l, z), left_side=true, lower=true, transpose_a=TRANSPOSE
  ROOT t = (s32[], f32[6,6], f32[6,2], f32[6,2]) tuple(i1, a, y, w)
}
ENTRY main {
  a = f32[6,6] parameter(0)
  x = f32[6,2] parameter(1)
  y = f32[6,2] parameter(2)
  zero = s32[] constant(0)
  init = (s32[], f32[6,6], f32[6,2], f32[6,2]) tuple(zero, a, x, y)
  w = (s32[], f32[6,6], f32[6,2], f32[6,2]) while(init), condition=cond, body=body
  ROOT r = f32[6,2] get-tuple-element(w), index=3
}
)";

std::string SolveLoop(const std::string& trips) {
  std::string text = kSolveLoop;
  text.replace(text.find("$N"), 2, trips);
  return text;
}

// Compiles `text` with its loops' trip counts annotated, as the platform
// pipeline leaves them.
std::unique_ptr<CpuExecutable> Compile(const std::string& text,
                                       const CpuCompileOptions& options = {}) {
  auto module = ParseHloModule(text, "test");
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  absl::StatusOr<bool> annotated = WhileTripCountAnnotator().Run(module->get());
  EXPECT_TRUE(annotated.ok()) << annotated.status();
  auto executable = CompileForCpu(**module, options);
  EXPECT_TRUE(executable.ok()) << executable.status();
  return executable.ok() ? *std::move(executable) : nullptr;
}

bool HasStepOfKind(const std::vector<ExecutableStep>& steps,
                   ExecutableStep::Kind kind) {
  for (const ExecutableStep& step : steps) {
    if (step.kind == kind) return true;
  }
  return false;
}

TEST(HostControlFlowTest, LoopWithLibraryCallsMatchesTheEvaluator) {
  for (const char* trips : {"5", "0", "1"}) {
    SCOPED_TRACE(trips);
    // Strict: nothing of it may run in the evaluator.
    CpuCompileOptions strict;
    strict.allow_fallback = false;
    EXPECT_TRUE(CheckAgainstEvaluator(SolveLoop(trips), {}, strict).empty());
  }
  std::unique_ptr<CpuExecutable> executable = Compile(SolveLoop("3"));
  ASSERT_NE(executable, nullptr);
  const std::vector<ExecutableStep>& steps = executable->executable().steps;
  ASSERT_TRUE(HasStepOfKind(steps, ExecutableStep::Kind::kWhile));
  for (const ExecutableStep& step : steps) {
    if (step.kind != ExecutableStep::Kind::kWhile) continue;
    EXPECT_TRUE(HasStepOfKind(step.body, ExecutableStep::Kind::kLibraryCall));
    EXPECT_TRUE(HasStepOfKind(step.body, ExecutableStep::Kind::kKernel));
    // The swap of two state elements goes through a scratch slot.
    EXPECT_TRUE(HasStepOfKind(step.body, ExecutableStep::Kind::kCopy));
    // A counted loop: the runtime runs the body 3 times, no condition.
    EXPECT_EQ(step.trip_count, 3);
  }
}

// The same loop with its counter's start read from a parameter has no
// known count: the runtime runs the condition before each body run, to the
// same result.
TEST(HostControlFlowTest, UncountedLoopRunsItsCondition) {
  std::string text = SolveLoop("3");
  const std::string start = "  zero = s32[] constant(0)\n  init";
  text.replace(text.find(start), start.size(),
               "  zero = s32[] parameter(3)\n  init");
  std::vector<Literal> args;
  args.push_back(MakeOpInput(Shape::Array(F32, {6, 6}), 1));
  args.push_back(MakeOpInput(Shape::Array(F32, {6, 2}), 2));
  args.push_back(MakeOpInput(Shape::Array(F32, {6, 2}), 3));
  Literal zero(Shape::Array(S32, {}));
  zero.data<int32_t>()[0] = 0;
  std::unique_ptr<CpuExecutable> executable = Compile(text);
  ASSERT_NE(executable, nullptr) << text;
  int loops = 0;
  for (const ExecutableStep& step : executable->executable().steps) {
    if (step.kind == ExecutableStep::Kind::kWhile) {
      EXPECT_EQ(step.trip_count, -1);
      ++loops;
    }
  }
  EXPECT_EQ(loops, 1);
  std::unique_ptr<CpuExecutable> counted = Compile(SolveLoop("3"));
  ASSERT_NE(counted, nullptr);
  absl::StatusOr<Literal> want = counted->Run(args);
  ASSERT_TRUE(want.ok()) << want.status();
  args.push_back(std::move(zero));
  absl::StatusOr<Literal> got = executable->Run(args);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size_bytes(), want->size_bytes());
  EXPECT_EQ(std::memcmp(got->untyped_data(), want->untyped_data(),
                        want->size_bytes()),
            0);
}

// An all-reduce whose reducer is no sum, product, min or max (evaluated on
// the CPU) beside the library call: the loop is still driven from the
// host, and only the all-reduce is a fallback.
TEST(HostControlFlowTest, OnlyTheUnsupportedInstructionIsEvaluated) {
  const std::string text = R"(
HloModule evaluated_in_loop
sub {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] subtract(a, b)
}
cond {
  s = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = f32[4,4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  r = f32[4,4] all-reduce(a), replica_groups={}, to_apply=sub
  rt = f32[4,4] transpose(r), dimensions={1,0}
  aat = f32[4,4] dot(r, rt), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  four = f32[] constant(4)
  fours = f32[4,4] broadcast(four), dimensions={}
  spd = f32[4,4] add(aat, fours)
  l = f32[4,4] cholesky(spd), lower=true
  ROOT t = (s32[], f32[4,4]) tuple(i1, l)
}
ENTRY main {
  a = f32[4,4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4,4]) tuple(zero, a)
  ROOT w = (s32[], f32[4,4]) while(init), condition=cond, body=body
}
)";
  CpuCompileOptions quiet;
  quiet.log_fallbacks = false;
  std::vector<std::string> fallbacks = CheckAgainstEvaluator(text, {}, quiet);
  ASSERT_EQ(fallbacks.size(), 1u);
  EXPECT_EQ(fallbacks[0], "r");
}

TEST(HostControlFlowTest, ConditionalWithLibraryCallInABranch) {
  const std::string text = R"(
HloModule solve_or_not
b0 {
  p = (f32[5,5], f32[5,3]) parameter(0)
  a = f32[5,5] get-tuple-element(p), index=0
  b = f32[5,3] get-tuple-element(p), index=1
  ROOT x = f32[5,3] triangular-solve(a, b), left_side=true, lower=false, transpose_a=NO_TRANSPOSE
}
b1 {
  p = (f32[5,5], f32[5,3]) parameter(0)
  b = f32[5,3] get-tuple-element(p), index=1
  ROOT n = f32[5,3] negate(b)
}
b2 {
  p = (f32[5,5], f32[5,3]) parameter(0)
  ROOT b = f32[5,3] get-tuple-element(p), index=1
}
ENTRY main {
  i = s32[] parameter(0)
  a = f32[5,5] parameter(1)
  b = f32[5,3] parameter(2)
  five = f32[] constant(5)
  fives = f32[5,5] broadcast(five), dimensions={}
  a5 = f32[5,5] add(a, fives)
  t = (f32[5,5], f32[5,3]) tuple(a5, b)
  ROOT c = f32[5,3] conditional(i, t, t, t), branch_computations={b0, b1, b2}
}
)";
  CpuCompileOptions strict;
  strict.allow_fallback = false;
  for (int32_t index : {0, 1, 2, 3, -1}) {
    SCOPED_TRACE(index);
    EXPECT_TRUE(CheckAgainstEvaluator(
                    text,
                    {Literal::CreateR0<int32_t>(S32, index),
                     MakeOpInput(Shape::Array(F32, {5, 5}), 3),
                     MakeOpInput(Shape::Array(F32, {5, 3}), 4)},
                    strict)
                    .empty());
  }
}

// The limit stops a host-driven loop as it does a compiled one, with the
// same error; the next run without a limit is unaffected.
TEST(HostControlFlowTest, IterationLimitStopsTheLoop) {
  std::unique_ptr<CpuExecutable> executable = Compile(SolveLoop("4"));
  ASSERT_NE(executable, nullptr);
  std::vector<Literal> args;
  args.push_back(MakeOpInput(Shape::Array(F32, {6, 6}), 1));
  args.push_back(MakeOpInput(Shape::Array(F32, {6, 2}), 2));
  args.push_back(MakeOpInput(Shape::Array(F32, {6, 2}), 3));
  absl::StatusOr<Literal> r = executable->Run(args, DenormalMode::kFlush, 4);
  ASSERT_TRUE(r.ok()) << r.status();
  r = executable->Run(args, DenormalMode::kFlush, 3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  // (The compiler's copy of the module names the loop w.1.)
  EXPECT_EQ(r.status().message(),
            "while loop w.1 did not finish within 3 iterations (the limit "
            "given; --max-while-iterations)");
  EXPECT_TRUE(executable->Run(args).ok());
}

TEST(HostControlFlowTest, SavedExecutableRunsTheSame) {
  CpuCompileOptions options;
  options.keep_executable = true;
  std::unique_ptr<CpuExecutable> compiled = Compile(SolveLoop("3"), options);
  ASSERT_NE(compiled, nullptr);
  std::vector<Literal> args;
  args.push_back(MakeOpInput(Shape::Array(F32, {6, 6}), 1));
  args.push_back(MakeOpInput(Shape::Array(F32, {6, 2}), 2));
  args.push_back(MakeOpInput(Shape::Array(F32, {6, 2}), 3));
  absl::StatusOr<Literal> direct = compiled->Run(args);
  ASSERT_TRUE(direct.ok()) << direct.status();
  absl::StatusOr<std::string> bytes =
      SerializeExecutable(compiled->executable());
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<Executable> executable = DeserializeExecutable(*bytes);
  ASSERT_TRUE(executable.ok()) << executable.status();
  for (const ExecutableStep& step : executable->steps) {
    if (step.kind == ExecutableStep::Kind::kWhile) {
      EXPECT_EQ(step.trip_count, 3);
    }
  }
  auto loaded = LoadedCpuExecutable::Load(*std::move(executable));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  absl::StatusOr<Literal> again = (*loaded)->Run(args);
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->size_bytes(), direct->size_bytes());
  EXPECT_EQ(std::memcmp(again->untyped_data(), direct->untyped_data(),
                        direct->size_bytes()),
            0);
}

}  // namespace
}  // namespace hloc

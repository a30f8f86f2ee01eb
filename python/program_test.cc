#include "python/program.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/literal.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace {

constexpr char kAddMul[] = R"(
HloModule add_mul
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  a = f32[4] add(x, y)
  ROOT m = f32[4] multiply(a, y)
})";

std::unique_ptr<HloModule> Parse(const char* text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return *std::move(module);
}

std::unique_ptr<Program> CompileFor(const HloModule& module,
                                    const std::string& platform,
                                    bool saveable = false) {
  ProgramOptions options;
  options.platform = platform;
  options.saveable = saveable;
  absl::StatusOr<OptimizedModule> optimized = OptimizeModule(module, options);
  EXPECT_TRUE(optimized.ok()) << optimized.status();
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::Compile(*optimized);
  EXPECT_TRUE(program.ok()) << program.status();
  return *std::move(program);
}

TEST(ProgramTest, RunsOnViewsOfTheCallersMemory) {
  std::unique_ptr<HloModule> module = Parse(kAddMul);
  const float x[4] = {1, 2, 3, 4};
  const float y[4] = {2, 2, 2, 2};
  const Shape shape = Shape::Array(F32, {4});
  std::vector<Literal> args;
  args.push_back(Literal::CreateView(shape, x));
  args.push_back(Literal::CreateView(shape, y));
  for (const char* platform : {"interpreter", "cpu"}) {
    std::unique_ptr<Program> program = CompileFor(*module, platform);
    absl::StatusOr<Literal> result = program->Run(args);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->data<float>()[3], 12.0f) << platform;
  }
  // The views borrowed the caller's arrays: nothing freed them.
  EXPECT_EQ(x[3], 4.0f);
}

// Denormals are flushed on every host platform, as XLA's runtimes and
// hlo-run's interpreter do (runtime/denormals.h): hloc.jit(f,
// platform="interpreter") computed IEEE results (sqrt(-1e-40) = NaN,
// log(1e-39) = -89.8) where the cpu platform and XLA:CPU give -0 and -inf,
// and rsqrt(1e-45) was finite, not inf (found by the second unseen-program
// hunt's special values).
TEST(ProgramTest, InterpreterFlushesDenormalsAsTheCpuDoes) {
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule denormals
ENTRY e {
  x = f32[3] parameter(0)
  s = f32[3] sqrt(x)
  l = f32[3] log(x)
  ROOT t = (f32[3], f32[3]) tuple(s, l)
})");
  const float x[3] = {-1e-40f, 1e-39f, 4.0f};
  std::vector<Literal> args;
  args.push_back(Literal::CreateView(Shape::Array(F32, {3}), x));
  for (const char* platform : {"interpreter", "cpu"}) {
    std::unique_ptr<Program> program = CompileFor(*module, platform);
    absl::StatusOr<Literal> result = program->Run(args);
    ASSERT_TRUE(result.ok()) << result.status();
    absl::Span<const float> s = result->tuple_elements()[0].data<float>();
    absl::Span<const float> l = result->tuple_elements()[1].data<float>();
    EXPECT_EQ(s[0], 0.0f) << platform;
    EXPECT_TRUE(std::signbit(s[0])) << platform;
    EXPECT_EQ(s[1], 0.0f) << platform;
    EXPECT_EQ(s[2], 2.0f) << platform;
    EXPECT_EQ(l[1], -INFINITY) << platform;
  }
  // The caller's array is read, never flushed in place.
  EXPECT_EQ(x[0], -1e-40f);
}

TEST(ProgramTest, WrongShapeNamesTheArgument) {
  std::unique_ptr<Program> program = CompileFor(*Parse(kAddMul), "cpu");
  std::vector<Literal> args;
  args.emplace_back(Shape::Array(F32, {4}));
  args.emplace_back(Shape::Array(F32, {5}));
  absl::StatusOr<Literal> result = program->Run(args);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(std::string(result.status().message()),
            "argument 1 has shape f32[5]{0}, the parameter takes f32[4]{0}");
}

TEST(ProgramTest, SavedProgramLoadsAndRuns) {
  std::unique_ptr<Program> program =
      CompileFor(*Parse(kAddMul), "cpu", /*saveable=*/true);
  const std::string path =
      std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") +
      "/add_mul.hloexe";
  ASSERT_TRUE(program->Save(path).ok());
  absl::StatusOr<std::unique_ptr<Program>> loaded = Program::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<float>(F32, {1, 1, 1, 1}));
  args.push_back(Literal::CreateR1<float>(F32, {3, 3, 3, 3}));
  absl::StatusOr<Literal> result = (*loaded)->Run(args);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->data<float>()[0], 12.0f);
  std::remove(path.c_str());
}

TEST(ProgramTest, CudaSaysWhyItIsNotAvailable) {
  ProgramOptions options;
  options.platform = "cuda";
  absl::StatusOr<OptimizedModule> optimized =
      OptimizeModule(*Parse(kAddMul), options);
  ASSERT_TRUE(optimized.ok()) << optimized.status();
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::Compile(*optimized);
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(std::string(program.status().message())
                .rfind("the cuda platform is not available: ", 0),
            0u)
      << program.status();
}

// replica-id has no generated code: the cpu default runs it in the
// evaluator, strict compilation names it, and the choice is refused where
// it means nothing.
TEST(ProgramTest, FallbackChoice) {
  // An all-reduce whose to_apply is no sum, product, min or max has no
  // runtime step (the evaluator runs it; on one device it is a copy).
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule replica
sub {
  a = u32[] parameter(0)
  b = u32[] parameter(1)
  ROOT s = u32[] subtract(a, b)
}
ENTRY e {
  p = u32[4] parameter(0)
  r = u32[4] all-reduce(p), replica_groups={}, to_apply=sub
  ROOT a = u32[4] add(p, r)
})");
  ProgramOptions options;
  options.platform = "cpu";
  options.allow_fallback = false;
  absl::StatusOr<OptimizedModule> optimized = OptimizeModule(*module, options);
  ASSERT_TRUE(optimized.ok()) << optimized.status();
  absl::StatusOr<std::unique_ptr<Program>> program =
      Program::Compile(*optimized);
  ASSERT_FALSE(program.ok());
  EXPECT_TRUE(absl::IsUnimplemented(program.status())) << program.status();
  EXPECT_NE(std::string(program.status().message())
                .find("cpu strict mode (--no-fallback): 1 instruction would "
                      "need the reference evaluator:\n  r (all-reduce): "),
            std::string::npos)
      << program.status();

  // Its stages compile the same way.
  absl::StatusOr<std::string> executable =
      ModuleStage(*optimized, "executable");
  EXPECT_TRUE(absl::IsUnimplemented(executable.status()))
      << executable.status();

  std::unique_ptr<Program> allowed = CompileFor(*module, "cpu");
  ASSERT_NE(allowed, nullptr);
  const uint32_t p[4] = {1, 2, 3, 4};
  std::vector<Literal> args;
  args.push_back(Literal::CreateView(Shape::Array(U32, {4}), p));
  absl::StatusOr<Literal> result = allowed->Run(args);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->data<uint32_t>()[3], 8u);

  options.platform = "cuda";
  options.allow_fallback = true;
  EXPECT_EQ(OptimizeModule(*module, options).status().message(),
            "fallback: the cuda backend has no evaluator fallback (it is "
            "always strict)");
  options.platform = "interpreter";
  options.allow_fallback = false;
  EXPECT_EQ(OptimizeModule(*module, options).status().message(),
            "fallback: the interpreter platform compiles nothing");
}

TEST(ProgramTest, DropDebugCallbacks) {
  // jax.debug.print("{}", x); return x + 1, as JAX lowers it.
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule jit_f
ENTRY e {
  x = f32[4] parameter(0)
  debug_print.1 = () custom-call(x), custom_call_target="xla_ffi_python_cpu_callback", custom_call_has_side_effect=true, metadata={op_type="debug_print" op_name="jit(f)/debug_print" source_file="f.py" source_line=2}
  one = f32[] constant(1)
  ones = f32[4] broadcast(one), dimensions={}
  ROOT y = f32[4] add(x, ones)
})");
  const float x[4] = {1, 2, 3, 4};
  for (const char* platform : {"interpreter", "cpu"}) {
    ProgramOptions options;
    options.platform = platform;
    absl::StatusOr<OptimizedModule> refused = OptimizeModule(*module, options);
    EXPECT_TRUE(absl::IsUnimplemented(refused.status())) << platform;
    EXPECT_NE(std::string(refused.status().message())
                  .find("debug_print.1: jax.debug.print at f.py:2"),
              std::string::npos)
        << refused.status();
    options.drop_debug_callbacks = true;
    absl::StatusOr<OptimizedModule> optimized =
        OptimizeModule(*module, options);
    ASSERT_TRUE(optimized.ok()) << optimized.status();
    absl::StatusOr<std::unique_ptr<Program>> program =
        Program::Compile(*optimized);
    ASSERT_TRUE(program.ok()) << program.status();
    std::vector<Literal> args;
    args.push_back(Literal::CreateView(Shape::Array(F32, {4}), x));
    absl::StatusOr<Literal> result = (*program)->Run(args);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->data<float>()[3], 5.0f) << platform;
  }
}

TEST(ProgramTest, UnknownPlatformAndStage) {
  ProgramOptions options;
  options.platform = "tpu";
  EXPECT_FALSE(OptimizeModule(*Parse(kAddMul), options).ok());
  options.platform = "cpu";
  absl::StatusOr<OptimizedModule> optimized =
      OptimizeModule(*Parse(kAddMul), options);
  ASSERT_TRUE(optimized.ok());
  absl::StatusOr<std::string> stage = ModuleStage(*optimized, "ptx");
  ASSERT_FALSE(stage.ok());
  EXPECT_NE(std::string(stage.status().message()).find("unknown stage 'ptx'"),
            std::string::npos);
  absl::StatusOr<std::string> llvm = ModuleStage(*optimized, "llvm");
  ASSERT_TRUE(llvm.ok()) << llvm.status();
  EXPECT_NE(llvm->find("define"), std::string::npos);
}

}  // namespace
}  // namespace hloc

// AArch64 ahead-of-time code run under qemu: corpus cases after the CPU
// pipeline against XLA's outputs (out<i>.npy), a hand-written module whose
// result mixes a kernel output, a parameter, a constant and a column-major
// parameter, and the clear error for a module that needs the evaluator.
// Every test skips when aarch64-linux-gnu-gcc or qemu-aarch64 is missing.
#include "backends/cpu/aarch64_aot.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "passes/test_util.h"
#include "runtime/compare.h"
#include "runtime/npy.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

// Corpus cases with generated code for every instruction after the CPU
// pipeline: these must run. (The other cases must fail with the AOT error
// until their ops are generated; when they are, they run too.)
const char* const kMustRun[] = {
    "adam_step",        "chain5",        "clip_where",
    "col_sum",          "cross_entropy", "dynamic_update",
    "erf_log1p_pow",    "f16_mix",       "gelu_bias",
    "int_div_rem",      "iota_convert",  "layernorm",
    "logsumexp",        "maxpool",       "mse",
    "mul_add_relu",     "norm_div",      "permute3d",
    "relu_scale_shift", "reverse_pad",   "sin_cos",
    "softmax",          "sum_dims_0_2",  "transpose_add",
};

bool MustRun(const std::string& name) {
  for (const char* c : kMustRun) {
    if (name == c) return true;
  }
  return false;
}

#define SKIP_WITHOUT_TOOLS()                                   \
  do {                                                         \
    absl::StatusOr<Aarch64Tools> tools = FindAarch64Tools();   \
    if (!tools.ok()) GTEST_SKIP() << tools.status().message(); \
  } while (0)

void Leaves(const Literal& literal, std::vector<const Literal*>* out) {
  if (literal.shape().IsTuple()) {
    for (const Literal& e : literal.tuple_elements()) Leaves(e, out);
  } else {
    out->push_back(&literal);
  }
}

void ExpectMatches(const HloModule& module, const Literal& actual,
                   const std::vector<Literal>& expected,
                   const std::string& what) {
  std::vector<const Literal*> got;
  Leaves(actual, &got);
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    // The corpus outputs came from XLA:GPU, with TF32 dots.
    ToleranceOptions tf32;
    tf32.expected_used_tf32 = true;
    const Tolerance tolerance = DefaultToleranceFor(module, expected[i], tf32);
    const ComparisonResult c = CompareLiterals(*got[i], expected[i], tolerance);
    std::string mismatches;
    for (const ElementMismatch& m : c.first_mismatches) {
      absl::StrAppend(&mismatches, "\n  ", m.ToString());
    }
    EXPECT_TRUE(c.ok()) << what << " output " << i << ": " << c.shape_message
                        << c.mismatch_count << " of " << c.element_count
                        << " mismatch (" << tolerance.ToString() << ")"
                        << mismatches;
  }
}

class Aarch64CorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(Aarch64CorpusTest, MatchesXla) {
  SKIP_WITHOUT_TOOLS();
  const std::string name = GetParam();
  const auto start = std::chrono::steady_clock::now();
  std::string text;
  ASSERT_TRUE(ReadFileToString(CorpusFile(name, "module.hlo"), &text));
  auto module = ParseHloModule(text, CorpusFile(name, "module.hlo"));
  ASSERT_TRUE(module.ok()) << module.status();
  auto pipeline = MakePipeline("cpu", PipelineOptions{});
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto changed = pipeline->Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();

  // Compiled even where code is missing, to check the run's error.
  Aarch64AotOptions compile_options;
  compile_options.allow_fallback = true;
  compile_options.log_fallbacks = false;
  absl::StatusOr<Aarch64AotModule> compiled =
      CompileForAarch64(**module, compile_options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::vector<Literal> args;
  for (int64_t i = 0; i < (*module)->entry_computation()->num_parameters();
       ++i) {
    auto arg = ReadNpy(CorpusFile(name, absl::StrCat("in", i, ".npy")));
    ASSERT_TRUE(arg.ok()) << arg.status();
    args.push_back(*std::move(arg));
  }
  Aarch64RunStats stats;
  Aarch64RunOptions options;
  options.stats = &stats;
  absl::StatusOr<Literal> actual =
      RunAarch64UnderQemu(*compiled, args, options);
  if (!compiled->missing.empty()) {
    EXPECT_FALSE(MustRun(name))
        << name << " needs the evaluator for " << compiled->missing[0];
    ASSERT_FALSE(actual.ok());
    EXPECT_TRUE(absl::IsUnimplemented(actual.status()));
    EXPECT_NE(actual.status().message().find(
                  absl::StrCat("aarch64 AOT cannot run ", compiled->missing[0],
                               ": no generated code yet")),
              std::string::npos)
        << actual.status();
    std::printf("%s: not run: %s\n", name.c_str(),
                std::string(actual.status().message()).c_str());
    return;
  }
  ASSERT_TRUE(actual.ok()) << actual.status();
  std::vector<Literal> expected;
  for (int64_t i = 0;; ++i) {
    const std::string path = CorpusFile(name, absl::StrCat("out", i, ".npy"));
    std::string probe;
    if (!ReadFileToString(path, &probe)) break;
    auto literal = ReadNpy(path);
    ASSERT_TRUE(literal.ok()) << literal.status();
    expected.push_back(*std::move(literal));
  }
  ExpectMatches(**module, *actual, expected, name);
  std::printf("%s: %zu kernels, link %.0f ms, qemu %.0f ms, total %.0f ms\n",
              name.c_str(), compiled->executable.steps.size(), stats.link_ms,
              stats.qemu_ms,
              std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count());
}

INSTANTIATE_TEST_SUITE_P(Corpus, Aarch64CorpusTest,
                         ::testing::ValuesIn(CorpusCases()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(Aarch64AotTest, CorpusFound) {
  ASSERT_FALSE(CorpusCases().empty()) << "shared/corpus/jax not found";
  for (const char* name : kMustRun) {
    std::string text;
    EXPECT_TRUE(ReadFileToString(CorpusFile(name, "module.hlo"), &text))
        << name;
  }
}

// The result leaves come from a kernel, a parameter and a constant; one
// parameter is column-major (the driver gets it in its layout).
TEST(Aarch64AotTest, TupleResultOfKernelParameterAndConstant) {
  SKIP_WITHOUT_TOOLS();
  auto module = ParseHloModule(R"(
HloModule mixed

ENTRY main {
  p0 = f32[2,3]{0,1} parameter(0)
  p1 = s32[4] parameter(1)
  c = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  a = f32[2,3] add(p0, c)
  ROOT t = (f32[2,3], s32[4], f32[2,3]) tuple(a, p1, c)
}
)",
                               "mixed");
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  args.push_back(Literal(Shape::Array(F32, {2, 3})));
  args.push_back(Literal(Shape::Array(S32, {4})));
  for (int64_t i = 0; i < 6; ++i) args[0].data<float>()[i] = 0.5f * i;
  for (int64_t i = 0; i < 4; ++i) args[1].data<int32_t>()[i] = 7 - 3 * i;
  absl::StatusOr<Aarch64AotModule> compiled = CompileForAarch64(**module);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_TRUE(compiled->missing.empty());
  absl::StatusOr<Literal> actual = RunAarch64UnderQemu(*compiled, args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  std::vector<const Literal*> got;
  Leaves(*actual, &got);
  ASSERT_EQ(got.size(), 3u);
  const float want_a[] = {1, 2.5, 4, 5.5, 7, 8.5};
  const float want_c[] = {1, 2, 3, 4, 5, 6};
  for (int64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(got[0]->data<float>()[i], want_a[i]) << i;
    EXPECT_EQ(got[2]->data<float>()[i], want_c[i]) << i;
  }
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(got[1]->data<int32_t>()[i], 7 - 3 * i) << i;
  }
}

// The cpu pipeline leaves topk to the host's library call, which AArch64
// ahead of time does not have: it expands topk into a sort and a slice
// itself, strictly (no evaluator), with the evaluator's values and indices.
TEST(Aarch64AotTest, TopKCompilesAsASortAndMatchesTheEvaluator) {
  SKIP_WITHOUT_TOOLS();
  auto module = ParseHloModule(R"(
HloModule topk

ENTRY main {
  x = f32[3,100] parameter(0)
  ROOT t = (f32[3,5], s32[3,5]) topk(x), k=5, largest=false
}
)",
                               "topk");
  ASSERT_TRUE(module.ok()) << module.status();
  auto pipeline = MakePipeline("cpu", PipelineOptions{});
  ASSERT_TRUE(pipeline.ok());
  ASSERT_TRUE(pipeline->Run(module->get()).ok());
  std::vector<Literal> args;
  args.push_back(MakeTiedInput(Shape::Array(F32, {3, 100}), 5));
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<Aarch64AotModule> compiled = CompileForAarch64(**module);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_TRUE(compiled->missing.empty());
  absl::StatusOr<Literal> actual = RunAarch64UnderQemu(*compiled, args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  EXPECT_TRUE(*actual == *expected);
}

// No evaluator on the target: never a silent wrong answer. rng has no
// generated code (the host would run it in the evaluator).
constexpr char kNeedsEvaluator[] = R"(
HloModule needs_evaluator

ENTRY main {
  x = f32[4] parameter(0)
  e = f32[4] multiply(x, x)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[] rng(lo, hi), distribution=rng_uniform
  b = f32[4] broadcast(r), dimensions={}
  ROOT c = f32[4] add(e, b)
}
)";

// Strict by default: the compilation fails, naming the instruction and why.
TEST(Aarch64AotTest, InstructionWithoutCodeFailsStrictCompilation) {
  auto module = ParseHloModule(kNeedsEvaluator, "needs_evaluator");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Aarch64AotModule> compiled = CompileForAarch64(**module);
  ASSERT_FALSE(compiled.ok());
  EXPECT_TRUE(absl::IsUnimplemented(compiled.status())) << compiled.status();
  EXPECT_EQ(compiled.status().message(),
            "aarch64 AOT strict mode (--no-fallback): 1 instruction would "
            "need the reference evaluator:\n  r (rng): elemental "
            "emitter: no elemental code generation for this op (%r = f32[] "
            "rng(%lo, %hi))");
}

// allow_fallback: the kernels that exist still compile (for reading),
// without an entry, and running says why.
TEST(Aarch64AotTest, AllowedFallbackCompilesWithoutEntry) {
  auto module = ParseHloModule(kNeedsEvaluator, "needs_evaluator");
  ASSERT_TRUE(module.ok()) << module.status();
  Aarch64AotOptions options;
  options.keep_asm = true;
  options.allow_fallback = true;
  options.log_fallbacks = false;
  absl::StatusOr<Aarch64AotModule> compiled =
      CompileForAarch64(**module, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_EQ(compiled->missing.size(), 1u);
  EXPECT_NE(compiled->assembly.find("hloc.e:"), std::string::npos);
  EXPECT_EQ(compiled->assembly.find("hloc_aot_entry"), std::string::npos);
  std::vector<Literal> args;
  args.push_back(Literal(Shape::Array(F32, {4})));
  absl::StatusOr<Literal> result = RunAarch64UnderQemu(*compiled, args);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            "aarch64 AOT cannot run r (rng): no generated code yet");
}

// replica-id is a collective step, as on the host: the executable carries
// it (strict compilation passes), but the qemu driver runs no collectives.
TEST(Aarch64AotTest, CollectiveStepsCompileButDoNotRunUnderQemu) {
  auto module = ParseHloModule(R"(
HloModule replica
ENTRY main {
  x = u32[4] parameter(0)
  r = u32[] replica-id()
  b = u32[4] broadcast(r), dimensions={}
  ROOT c = u32[4] add(x, b)
}
)",
                               "replica");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Aarch64AotModule> compiled = CompileForAarch64(**module);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  std::vector<Literal> args;
  args.push_back(Literal(Shape::Array(U32, {4})));
  absl::StatusOr<Literal> result = RunAarch64UnderQemu(*compiled, args);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            "aarch64 AOT cannot run r (replica-id, a collective step): no "
            "generated code yet");
}

// A custom call the CPU backend does not implement is refused by target,
// whatever the fallback choice.
TEST(Aarch64AotTest, UnsupportedCustomCallIsRefused) {
  auto module = ParseHloModule(R"(
HloModule custom
ENTRY main {
  x = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(x), custom_call_target="foo"
}
)",
                               "custom");
  ASSERT_TRUE(module.ok()) << module.status();
  Aarch64AotOptions options;
  options.allow_fallback = true;
  absl::StatusOr<Aarch64AotModule> compiled =
      CompileForAarch64(**module, options);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().message(),
            "the aarch64 AOT backend cannot compile:\n  c (custom-call): "
            "custom_call_target=\"foo\" has no aarch64 AOT implementation");
}

TEST(Aarch64AotTest, ObjectIsAarch64Elf) {
  auto module = ParseHloModule(R"(
HloModule m
ENTRY main {
  x = f32[1024] parameter(0)
  ROOT y = f32[1024] multiply(x, x)
}
)",
                               "m");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Aarch64AotModule> compiled = CompileForAarch64(**module);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const std::string& object = compiled->executable.object_code;
  ASSERT_GT(object.size(), 20u);
  EXPECT_EQ(object[0], '\x7f');
  EXPECT_EQ(object.substr(1, 3), "ELF");
  // e_machine (little-endian u16 at 18) is EM_AARCH64 (183).
  EXPECT_EQ(static_cast<unsigned char>(object[18]), 183);
  EXPECT_EQ(object[19], 0);
  EXPECT_EQ(compiled->executable.target_triple, "aarch64-unknown-linux-gnu");
}

}  // namespace
}  // namespace hloc

// Compile -> save -> load -> run: every corpus module (as JAX wrote it and
// after the CPU pipeline) compiled with keep_executable, run directly,
// serialized, loaded by the runtime's object loader (no recompilation) and run
// again. The two runs execute the same machine code on the same buffer plan, so
// the results must be identical bit for bit. Also: a plan that is checked
// by the interference checker, and object code that does not link or a
// host that lacks the CPU features give errors.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/target_cpu.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "runtime/buffer_assignment.h"
#include "runtime/executable.h"
#include "runtime/npy.h"
#include "runtime/object_loader.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

void ExpectIdentical(const Literal& a, const Literal& b,
                     const std::string& what) {
  ASSERT_TRUE(a.shape().Compatible(b.shape())) << what;
  if (a.shape().IsTuple()) {
    for (size_t i = 0; i < a.tuple_elements().size(); ++i) {
      ExpectIdentical(a.tuple_elements()[i], b.tuple_elements()[i],
                      absl::StrCat(what, "{", i, "}"));
    }
    return;
  }
  ASSERT_EQ(a.size_bytes(), b.size_bytes()) << what;
  EXPECT_EQ(0, std::memcmp(a.untyped_data(), b.untyped_data(), a.size_bytes()))
      << what;
}

struct Compiled {
  std::unique_ptr<CpuExecutable> executable;
  std::vector<Literal> args;
};

Compiled CompileCase(const std::string& name, bool fused) {
  Compiled c;
  std::string text;
  EXPECT_TRUE(ReadFileToString(CorpusFile(name, "module.hlo"), &text));
  auto module = ParseHloModule(text, name);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return c;
  if (fused) {
    auto pipeline = MakePipeline("cpu", PipelineOptions{});
    EXPECT_TRUE(pipeline.ok());
    EXPECT_TRUE(pipeline->Run(module->get()).ok());
  }
  for (int64_t i = 0; i < (*module)->entry_computation()->num_parameters();
       ++i) {
    auto arg = ReadNpy(CorpusFile(name, absl::StrCat("in", i, ".npy")));
    EXPECT_TRUE(arg.ok()) << arg.status();
    if (arg.ok()) c.args.push_back(*std::move(arg));
  }
  CpuCompileOptions options;
  options.keep_executable = true;
  options.log_fallbacks = false;
  auto executable = CompileForCpu(**module, options);
  EXPECT_TRUE(executable.ok()) << executable.status();
  if (executable.ok()) c.executable = *std::move(executable);
  return c;
}

class RoundTripTest
    : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(RoundTripTest, LoadedRunMatchesDirectRun) {
  const auto& [name, fused] = GetParam();
  Compiled c = CompileCase(name, fused);
  ASSERT_NE(c.executable, nullptr);
  const CpuExecutable& compiled = *c.executable;
  absl::Status plan = VerifyBufferAssignment(compiled.buffer_assignment());
  EXPECT_TRUE(plan.ok()) << plan;
  auto direct = c.executable->Run(c.args);
  ASSERT_TRUE(direct.ok()) << direct.status();

  auto bytes = SerializeExecutable(compiled.executable());
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto executable = DeserializeExecutable(*bytes, name);
  ASSERT_TRUE(executable.ok()) << executable.status();
  auto loaded = LoadedCpuExecutable::Load(*std::move(executable));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  for (int run = 0; run < 2; ++run) {
    auto result = (*loaded)->Run(c.args);
    ASSERT_TRUE(result.ok()) << result.status();
    ExpectIdentical(*result, *direct, name);
  }
  EXPECT_EQ((*loaded)->fallback_runs(),
            2 * static_cast<int64_t>(compiled.fallback_instructions().size()));
  const BufferAssignment& a = compiled.buffer_assignment();
  std::printf(
      "%-16s %-5s %3lld kernels, %zu fallbacks, object %7zu bytes, file "
      "%7zu bytes, arena %8lld of %8lld bytes\n",
      name.c_str(), fused ? "fused" : "jax",
      static_cast<long long>(compiled.kernel_count()),
      compiled.fallback_instructions().size(), compiled.object_code().size(),
      bytes->size(), static_cast<long long>(a.arena_bytes()),
      static_cast<long long>(a.total_intermediate_bytes()));
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, RoundTripTest,
    ::testing::Combine(::testing::ValuesIn(CorpusCases()), ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<std::string, bool>>& info) {
      return std::get<0>(info.param) +
             (std::get<1>(info.param) ? "_fused" : "_jax");
    });

// A module whose arena really is reused: a chain of unfused kernels.
constexpr char kChain[] = R"(
HloModule chain
ENTRY e {
  p = f32[4096] parameter(0)
  a = f32[4096] negate(p)
  b = f32[4096] exponential(a)
  c = f32[4096] negate(b)
  d = f32[4096] sine(c)
  e = f32[4096] cosine(d)
  ROOT r = f32[4096] add(e, p)
}
)";

TEST(RoundTripTest, ReusedArenaGivesTheSameResults) {
  auto module = ParseHloModule(kChain);
  ASSERT_TRUE(module.ok());
  CpuCompileOptions options;
  options.keep_executable = true;
  auto executable = CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const BufferAssignment& a = (*executable)->buffer_assignment();
  EXPECT_EQ(a.arena_bytes(), 2 * 16384);
  EXPECT_EQ(a.total_intermediate_bytes(), 5 * 16384);
  Literal x(Shape::Array(F32, {4096}));
  for (int64_t i = 0; i < 4096; ++i) x.SetFromDouble(i, 0.001 * i - 2);
  std::vector<Literal> args;
  args.push_back(std::move(x));
  auto direct = (*executable)->Run(args);
  ASSERT_TRUE(direct.ok());
  auto reference = EvaluateModule(**module, args);
  ASSERT_TRUE(reference.ok());
  for (int64_t i = 0; i < 4096; ++i) {
    EXPECT_NEAR(direct->data<float>()[i], reference->data<float>()[i], 1e-5)
        << i;
  }
  auto loaded = LoadedCpuExecutable::Load((*executable)->executable());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto result = (*loaded)->Run(args);
  ASSERT_TRUE(result.ok());
  ExpectIdentical(*result, *direct, "chain");
}

// dynamic-update-slice writing into its dying operand's buffer, unfused
// and as a fusion's root: the plan says so, and the results stay right.
TEST(RoundTripTest, InPlaceDynamicUpdateSlice) {
  auto module = ParseHloModule(R"(
HloModule dus
fused {
  x = f32[64,32] parameter(0)
  v = f32[8,32] parameter(1)
  j = s32[] parameter(2)
  z = s32[] parameter(3)
  w = f32[8,32] sine(v)
  ROOT d = f32[64,32] dynamic-update-slice(x, w, j, z)
}
ENTRY e {
  p = f32[64,32] parameter(0)
  u = f32[8,32] parameter(1)
  i = s32[] parameter(2)
  zero = s32[] constant(0)
  a = f32[64,32] exponential(p)
  d = f32[64,32] dynamic-update-slice(a, u, i, zero)
  n = f32[64,32] negate(d)
  seven = s32[] constant(7)
  f = f32[64,32] fusion(n, u, seven, zero), kind=kLoop, calls=fused
  ROOT r = f32[64,32] add(f, p)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  CpuCompileOptions options;
  options.keep_executable = true;
  auto executable = CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const BufferAssignment& a = (*executable)->buffer_assignment();
  EXPECT_TRUE(VerifyBufferAssignment(a).ok());
  int in_place = 0;
  for (const BufferValue& v : a.values) in_place += v.in_place_of >= 0;
  EXPECT_EQ(in_place, 2) << a.ToString();
  EXPECT_EQ(a.arena_bytes(), 2 * 8192) << a.ToString();

  std::vector<Literal> args;
  Literal p(Shape::Array(F32, {64, 32}));
  for (int64_t k = 0; k < 64 * 32; ++k)
    p.SetFromDouble(k, 0.01 * (k % 97) - 0.5);
  Literal u(Shape::Array(F32, {8, 32}));
  for (int64_t k = 0; k < 8 * 32; ++k) u.SetFromDouble(k, 0.1 * (k % 13));
  args.push_back(std::move(p));
  args.push_back(std::move(u));
  for (int32_t start : {0, 20, 60, -3}) {
    args.resize(2);
    args.push_back(Literal::CreateR0<int32_t>(S32, start));
    auto direct = (*executable)->Run(args);
    ASSERT_TRUE(direct.ok()) << direct.status();
    auto reference = EvaluateModule(**module, args);
    ASSERT_TRUE(reference.ok()) << reference.status();
    for (int64_t k = 0; k < 64 * 32; ++k) {
      ASSERT_NEAR(direct->data<float>()[k], reference->data<float>()[k], 1e-5)
          << "start " << start << " element " << k;
    }
    auto loaded = LoadedCpuExecutable::Load((*executable)->executable());
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    auto result = (*loaded)->Run(args);
    ASSERT_TRUE(result.ok());
    ExpectIdentical(*result, *direct, "dus");
  }
}

TEST(RoundTripTest, BadObjectCodeOrHostGivesAnError) {
  auto module = ParseHloModule(kChain);
  ASSERT_TRUE(module.ok());
  CpuCompileOptions options;
  options.keep_executable = true;
  auto executable = CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok());
  const Executable& good = (*executable)->executable();

  Executable garbage = good;
  garbage.object_code = "not an object file";
  auto loaded = LoadedCpuExecutable::Load(garbage);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("object"), absl::string_view::npos)
      << loaded.status();

  Executable truncated = good;
  truncated.object_code.resize(truncated.object_code.size() / 2);
  EXPECT_FALSE(LoadedCpuExecutable::Load(truncated).ok());

  Executable renamed = good;
  renamed.steps[0].kernel_name = "hloc.no_such_kernel";
  loaded = LoadedCpuExecutable::Load(renamed);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("hloc.no_such_kernel"),
            absl::string_view::npos)
      << loaded.status();

  Executable newer_cpu = good;
  newer_cpu.cpu_features += ",+hloc-imaginary-feature";
  loaded = LoadedCpuExecutable::Load(newer_cpu);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("lacks hloc-imaginary-feature"),
            absl::string_view::npos)
      << loaded.status();

  Executable other_arch = good;
  other_arch.target_triple = "aarch64-unknown-linux-gnu";
  EXPECT_FALSE(LoadedCpuExecutable::Load(other_arch).ok());
}

// Compiled for a baseline CPU (hlo-opt --cpu=x86-64-v2), an executable
// loads and runs on this host, whatever it has beyond that, and gives the
// results the same kernels gave when they were compiled.
TEST(RoundTripTest, CompiledForABaselineCpuLoadsAndRunsHere) {
  auto module = ParseHloModule(kChain);
  ASSERT_TRUE(module.ok());
  CpuCompileOptions options;
  options.keep_executable = true;
  options.jit.cpu = "x86-64-v2";
  auto executable = CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const Executable& saved = (*executable)->executable();
  EXPECT_EQ(saved.cpu_name, "x86-64-v2");
  EXPECT_NE(saved.cpu_features.find("-avx,"), std::string::npos)
      << saved.cpu_features;
  std::vector<Literal> args;
  Literal x(Shape::Array(F32, {4096}));
  for (int64_t i = 0; i < 4096; ++i) x.SetFromDouble(i, 0.001 * i - 2);
  args.push_back(std::move(x));
  absl::StatusOr<Literal> direct = (*executable)->Run(args);
  ASSERT_TRUE(direct.ok()) << direct.status();

  absl::StatusOr<std::string> bytes = SerializeExecutable(saved);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<Executable> read = DeserializeExecutable(*bytes);
  ASSERT_TRUE(read.ok()) << read.status();
  auto loaded = LoadedCpuExecutable::Load(*std::move(read));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  absl::StatusOr<Literal> result = (*loaded)->Run(args);
  ASSERT_TRUE(result.ok()) << result.status();
  ExpectIdentical(*direct, *result, "x86-64-v2");
}

// Compiled for a CPU with a feature this host lacks, an executable is
// refused with an error that names the CPU and the missing features. The
// CPU is the first of a few that has one, so the test holds on AVX2 hosts
// (x86-64-v4: AVX-512) and on AVX-512 ones (Sapphire Rapids: AMX,
// AVX512-FP16) alike.
TEST(RoundTripTest, CompiledForACpuWithFeaturesThisHostLacksIsRefused) {
  absl::StatusOr<TargetCpu> host = HostCpu();
  ASSERT_TRUE(host.ok()) << host.status();
  std::string newer, missing;
  for (const char* name : {"x86-64-v4", "sapphirerapids", "graniterapids"}) {
    absl::StatusOr<TargetCpu> cpu = ResolveTargetCpu(name);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    for (absl::string_view f : absl::StrSplit(cpu->features, ',')) {
      if (f[0] == '+' && !host->Has(f.substr(1))) {
        newer = name;
        missing = std::string(f.substr(1));
        break;
      }
    }
    if (!newer.empty()) break;
  }
  ASSERT_FALSE(newer.empty())
      << "this host (" << host->name << ") has every feature of the CPUs "
      << "tried; add a newer one";
  auto module = ParseHloModule(kChain);
  ASSERT_TRUE(module.ok());
  CpuCompileOptions options;
  options.keep_executable = true;
  options.jit.cpu = newer;
  auto executable = CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  auto loaded = LoadedCpuExecutable::Load((*executable)->executable());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string message(loaded.status().message());
  EXPECT_NE(message.find("compiled for " + newer), std::string::npos)
      << message;
  EXPECT_NE(message.find("lacks"), std::string::npos) << message;
  EXPECT_NE(message.find(missing), std::string::npos) << message;
}

}  // namespace
}  // namespace hloc

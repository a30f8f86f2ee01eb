// Every module of the shared JAX corpus (module.hlo) and of the JAX live
// test's GPU cases (tests/jax/gpu_cases/*/module.pb, ordinary JAX programs
// as JAX lowers them) compiles in strict mode -- nothing left to the
// reference evaluator -- after the CPU pipeline, for the x86 host (JIT) and
// for AArch64 (ahead of time; compilation only, no qemu needed). The ones
// that legitimately cannot are listed below with the reason their
// compilation must give; the list is checked exactly both ways, so a module
// that starts compiling makes this test say to remove it.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "backends/cpu/aarch64_aot.h"
#include "backends/cpu/cpu_compiler.h"
#include "gtest/gtest.h"
#include "hlo/proto/proto_import.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

// "MODULE/TARGET" (MODULE as ModuleName gives it, TARGET x86 or aarch64)
// -> a substring of the Unimplemented message of its strict compilation.
const std::map<std::string, std::string>& ExpectedFailures() {
  // None at present (jnp.cumsum / cumprod as the scan op compile through
  // backends/cpu/scan_emitter.h since issue 16); the map stays so that a
  // new case that legitimately cannot compile is listed with its reason.
  static const auto* failures = new std::map<std::string, std::string>{};
  return *failures;
}

// The live test's GPU cases, from the working directory (Bazel's runfiles
// tree or the checkout's root).
constexpr char kGpuCases[] = "tests/jax/gpu_cases";

// "corpus/NAME" for each corpus case, "gpu_cases/NAME" for each GPU case.
std::vector<std::string> ModuleNames() {
  std::vector<std::string> names;
  for (const std::string& name : CorpusCases()) {
    names.push_back("corpus/" + name);
  }
  std::error_code error;
  std::vector<std::string> gpu_cases;
  for (const auto& entry :
       std::filesystem::directory_iterator(kGpuCases, error)) {
    if (std::filesystem::exists(entry.path() / "module.pb")) {
      gpu_cases.push_back("gpu_cases/" + entry.path().filename().string());
    }
  }
  std::sort(gpu_cases.begin(), gpu_cases.end());
  names.insert(names.end(), gpu_cases.begin(), gpu_cases.end());
  return names;
}

absl::StatusOr<std::unique_ptr<HloModule>> Load(const std::string& name) {
  const bool corpus = name.rfind("corpus/", 0) == 0;
  const std::string path =
      corpus ? CorpusFile(name.substr(7), "module.hlo")
             : std::string(kGpuCases) + "/" + name.substr(10) + "/module.pb";
  std::string bytes;
  if (!ReadFileToString(path, &bytes)) {
    return absl::NotFoundError("cannot read " + path);
  }
  return corpus ? ParseHloModule(bytes, path)
                : ParseHloModuleProtoBytes(bytes, path);
}

absl::StatusOr<std::unique_ptr<HloModule>> LoadOptimized(
    const std::string& name) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = Load(name);
  if (!module.ok()) return module.status();
  absl::StatusOr<HloPassPipeline> pipeline =
      MakePipeline("cpu", PipelineOptions{});
  if (!pipeline.ok()) return pipeline.status();
  absl::StatusOr<bool> changed = pipeline->Run(module->get());
  if (!changed.ok()) return changed.status();
  return module;
}

absl::Status CompileStrict(const HloModule& module, const std::string& target) {
  if (target == "x86") {
    CpuCompileOptions options;
    options.allow_fallback = false;
    return CompileForCpu(module, options).status();
  }
  Aarch64AotOptions options;
  options.allow_fallback = false;
  return CompileForAarch64(module, options).status();
}

class StrictCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StrictCorpusTest, CompilesWithNoFallback) {
  const std::string name = GetParam();
  absl::StatusOr<std::unique_ptr<HloModule>> module = LoadOptimized(name);
  ASSERT_TRUE(module.ok()) << module.status();
  for (const std::string target : {"x86", "aarch64"}) {
    const std::string key = name + "/" + target;
    absl::Status status = CompileStrict(**module, target);
    auto expected = ExpectedFailures().find(key);
    if (expected == ExpectedFailures().end()) {
      EXPECT_TRUE(status.ok()) << key << ": " << status;
      continue;
    }
    EXPECT_FALSE(status.ok())
        << key << " now compiles in strict mode: remove it from "
        << "ExpectedFailures()";
    EXPECT_TRUE(absl::IsUnimplemented(status)) << key << ": " << status;
    EXPECT_NE(status.message().find(expected->second), std::string::npos)
        << key << " fails for another reason than '" << expected->second
        << "': " << status;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modules, StrictCorpusTest, ::testing::ValuesIn(ModuleNames()),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param;
      std::replace_if(
          name.begin(), name.end(),
          [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
          '_');
      return name;
    });

// Both module sets are there, and the list names only modules and targets
// that exist.
TEST(StrictCorpusTest, ExpectedFailuresNameRealModules) {
  const std::vector<std::string> names = ModuleNames();
  ASSERT_GE(CorpusCases().size(), 30u) << "corpus not found";
  ASSERT_GE(names.size() - CorpusCases().size(), 50u)
      << kGpuCases << " not found from " << std::filesystem::current_path();
  for (const auto& [key, reason] : ExpectedFailures()) {
    const size_t slash = key.rfind('/');
    ASSERT_NE(slash, std::string::npos) << key;
    const std::string target = key.substr(slash + 1);
    EXPECT_TRUE(target == "x86" || target == "aarch64") << key;
    EXPECT_NE(std::find(names.begin(), names.end(), key.substr(0, slash)),
              names.end())
        << key << " names no module";
    EXPECT_FALSE(reason.empty()) << key;
  }
}

}  // namespace
}  // namespace hloc

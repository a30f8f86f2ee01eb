// compile-bench is a benchmark, not a timed test: this checks that it runs
// on a few modules (one rep) and prints a row per module with every phase,
// and that bad flags and unreadable modules are clear errors.
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tools/compile_bench_lib.h"

namespace hloc {
namespace {

TEST(CompileBenchTest, PrintsRowsForEveryPlatform) {
  std::ostringstream out, err;
  const int rc = CompileBenchMain(
      {"--reps=1", "--only=chain5/module,iota_convert,f64_math"}, out, err);
  ASSERT_EQ(rc, kCompileBenchOk) << err.str();
  const std::string text = out.str();
  for (const char* expected :
       {"== cuda: HLO text -> PTX", "== cpu: HLO text -> x86 object code",
        "total ms", "passes", "emit", "ptx", "object", "chain5/module.hlo",
        "iota_convert/xla_gpu_opt.hlo", "f64_math.hlo", "cuda: ", "cpu: ",
        "median", "max"}) {
    EXPECT_TRUE(absl::StrContains(text, expected)) << expected << "\n" << text;
  }
}

TEST(CompileBenchTest, TimesEachPhase) {
  const std::string text = R"(
HloModule m
ENTRY e {
  p = f32[64] parameter(0)
  ROOT t = f32[64] tanh(p)
})";
  for (const char* platform : {"cpu", "cuda"}) {
    absl::StatusOr<CompilePhases> phases = TimeCompile(text, "m", platform);
    if (!phases.ok() && absl::StrContains(phases.status().message(),
                                          "libdevice not found")) {
      continue;  // No CUDA toolkit here: the cuda row would say so.
    }
    ASSERT_TRUE(phases.ok()) << platform << ": " << phases.status();
    EXPECT_GT(phases->parse_s, 0) << platform;
    EXPECT_GT(phases->emit_s, 0) << platform;
    EXPECT_GT(phases->optimize_s, 0) << platform;
    EXPECT_GT(phases->codegen_s, 0) << platform;
    EXPECT_GE(phases->total_s, phases->parse_s + phases->passes_s +
                                   phases->emit_s + phases->optimize_s +
                                   phases->codegen_s)
        << platform;
  }
  EXPECT_FALSE(TimeCompile(text, "m", "tpu").ok());
  absl::StatusOr<CompilePhases> bad = TimeCompile("HloModule", "bad", "cpu");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "bad"))
      << bad.status();
}

TEST(CompileBenchTest, BadFlagsAndFilesAreErrors) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--reps=0"},
                                             {"--reps=x"},
                                             {"--platform=tpu"},
                                             {"--only="},
                                             {"--no-defaults"},
                                             {"--bogus"}}) {
    std::ostringstream out, err;
    EXPECT_EQ(CompileBenchMain(args, out, err), kCompileBenchBadFlags)
        << args[0];
    EXPECT_TRUE(absl::StrContains(err.str(), "compile-bench: error:"))
        << args[0];
  }
  std::ostringstream out, err;
  EXPECT_EQ(CompileBenchMain({"--no-defaults", "/nonexistent/m.hlo"}, out, err),
            kCompileBenchFailed);
  EXPECT_TRUE(absl::StrContains(err.str(), "/nonexistent/m.hlo")) << err.str();
  std::ostringstream help, help_err;
  EXPECT_EQ(CompileBenchMain({"--help"}, help, help_err), kCompileBenchOk);
  EXPECT_TRUE(absl::StrContains(help.str(), "--platform"));
}

}  // namespace
}  // namespace hloc

// hlo-bench is a benchmark, not a timed test: these tests run it on tiny
// sizes with one rep so that every path (our kernels, Run, the copy,
// OpenBLAS if present, XLA:CPU through the helper if JAX is present, the
// compile table) is built and exercised, and check its flags and the JSON
// it reads from the helper.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "hlo/verifier.h"
#include "tools/hlo_bench_lib.h"
#include "tools/hlo_bench_xla_client.h"

namespace hloc {
namespace {

TEST(HloBenchTest, ParsesFlatJson) {
  absl::StatusOr<JsonObject> object = ParseFlatJsonObject(
      R"({"kind": "run", "best_s": 1.5e-3, "reps": 10, "ok": true,)"
      R"( "why": "a \"b\"\n\u00e9", "none": null})");
  ASSERT_TRUE(object.ok()) << object.status();
  EXPECT_EQ((*object)["kind"], "run");
  EXPECT_EQ((*object)["best_s"], "1.5e-3");
  EXPECT_EQ((*object)["reps"], "10");
  EXPECT_EQ((*object)["ok"], "true");
  EXPECT_EQ((*object)["why"], "a \"b\"\n\xc3\xa9");
  EXPECT_EQ((*object)["none"], "null");
  EXPECT_TRUE(ParseFlatJsonObject("{}").ok());
}

TEST(HloBenchTest, RejectsBadJson) {
  for (const char* text :
       {"", "[]", "{\"a\": }", "{\"a\": 1", "{\"a\": 1} x", "{\"a\": [1]}",
        "{\"a\": \"unterminated}", "{a: 1}"}) {
    EXPECT_FALSE(ParseFlatJsonObject(text).ok()) << text;
  }
}

TEST(HloBenchTest, ModulesParseAndVerify) {
  for (const char* name : {"chain5", "softmax", "layernorm"}) {
    absl::StatusOr<std::string> text = MemoryBoundModuleText(name, 8, 16);
    ASSERT_TRUE(text.ok()) << text.status();
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(*text, name);
    ASSERT_TRUE(module.ok()) << module.status();
    EXPECT_TRUE(VerifyModule(**module).ok()) << name;
  }
  absl::StatusOr<std::unique_ptr<HloModule>> dot =
      ParseHloModule(DotModuleText(4, 5, 6), "dot");
  ASSERT_TRUE(dot.ok()) << dot.status();
  EXPECT_TRUE(VerifyModule(**dot).ok());
  EXPECT_FALSE(MemoryBoundModuleText("nope", 8, 8).ok());
  for (const char* name : {"cumsum", "topk", "argmax", "fft", "cholesky"}) {
    absl::StatusOr<std::string> text = OpModuleText(name, 64);
    ASSERT_TRUE(text.ok()) << text.status();
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(*text, name);
    ASSERT_TRUE(module.ok()) << module.status();
    EXPECT_TRUE(VerifyModule(**module).ok()) << name;
  }
  EXPECT_FALSE(OpModuleText("nope", 64).ok());
}

TEST(HloBenchTest, BadFlagsExitTwo) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--reps=0"},
                                             {"--reps=x"},
                                             {"--threads=-1"},
                                             {"--budget=0"},
                                             {"--only="},
                                             {"--bogus"},
                                             {"--plot="},
                                             {"stray"}}) {
    std::ostringstream out, err;
    EXPECT_EQ(HloBenchMain(args, out, err), kHloBenchBadFlags) << args[0];
    EXPECT_TRUE(absl::StrContains(err.str(), "hlo-bench: error:")) << args[0];
  }
  std::ostringstream out, err;
  EXPECT_EQ(HloBenchMain({"--help"}, out, err), kHloBenchOk);
  EXPECT_TRUE(absl::StrContains(out.str(), "--no-xla"));
}

// The whole benchmark on tiny sizes; XLA:CPU runs too where python3 has
// JAX (and says n/a otherwise).
TEST(HloBenchTest, TinyRun) {
  std::ostringstream out, err;
  const int code = HloBenchMain(
      {"--size=64", "--dot-size=32", "--reps=1", "--compile-reps=1",
       "--threads=2",
       "--only=chain5,softmax,layernorm,dot,cumsum,topk,argmax,fft,cholesky"},
      out, err);
  const std::string text = out.str();
  EXPECT_EQ(code, kHloBenchOk) << text << err.str();
  for (const char* expected : {"== Memory-bound",
                               "chain5 64x64",
                               "softmax 64x64",
                               "layernorm 64x64",
                               "copy (OpenMP memcpy, 2 thr)",
                               "hloc kernels",
                               "hloc Run",
                               "== Dot",
                               "dot 32x32x32",
                               "OpenBLAS sgemm",
                               "== Operations",
                               "cumsum 64x16",
                               "topk 32x512",
                               "argmax 32x32",
                               "fft 64x16",
                               "cholesky 8x2",
                               "== Compile time",
                               "dot_bias_relu",
                               "MEDIAN over cases",
                               "load average at end"}) {
    EXPECT_TRUE(absl::StrContains(text, expected)) << expected << "\n" << text;
  }
  EXPECT_FALSE(absl::StrContains(text, "MISMATCH")) << text;
  EXPECT_FALSE(absl::StrContains(text, "; evaluator: ")) << text;
  std::cout << text;  // For the test log.
}

// Without XLA its bars are n/a; --plot draws the others.
TEST(HloBenchTest, MissingPythonIsNotAvailable) {
  std::ostringstream out, err;
  const std::string plot =
      std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR")
                                             : "/tmp") +
      "/hlo_bench_plot.svg";
  const int code = HloBenchMain(
      {"--size=32", "--reps=1", "--compile-reps=1", "--only=chain5",
       "--python=/nonexistent/python3", "--plot=" + plot},
      out, err);
  EXPECT_EQ(code, kHloBenchOk) << out.str() << err.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "XLA:CPU: n/a (cannot start"))
      << out.str();
  std::ifstream in(plot);
  std::stringstream svg;
  svg << in.rdbuf();
  for (const char* series : {"copy bound", "hloc kernels", "hloc Run"}) {
    EXPECT_TRUE(absl::StrContains(
        svg.str(), absl::StrCat("data-group=\"chain5 32x32\" data-series=\"",
                                series, "\"")))
        << series << "\n"
        << svg.str();
  }
  EXPECT_FALSE(absl::StrContains(svg.str(), "data-series=\"XLA:CPU\""));
  EXPECT_TRUE(absl::StrContains(svg.str(), ">n/a</text>"));
}

}  // namespace
}  // namespace hloc

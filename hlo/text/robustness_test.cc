// The parser on hostile input: every prefix of real modules, random
// mutations, pathological nesting and sizes, and a 10 MB module (linear
// time). Whatever parses must also print and parse back to the same text.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "hlo/text/test_util.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

// Parses `text`; if that succeeds, the printed module must parse back and
// print identically. Returns whether `text` parsed.
bool CheckParsesOrFailsCleanly(const std::string& text) {
  auto module = ParseHloModule(text, "fuzz.hlo");
  if (!module.ok()) {
    const std::string message(module.status().message());
    EXPECT_EQ(message.rfind("fuzz.hlo:", 0), 0u) << message;
    return false;
  }
  const std::string printed = PrintModule(**module);
  auto again = ParseHloModule(printed, "printed.hlo");
  EXPECT_TRUE(again.ok()) << again.status() << "\nfrom:\n"
                          << text << "\nprinted:\n"
                          << printed;
  if (again.ok()) {
    EXPECT_EQ(PrintModule(**again), printed) << "from:\n" << text;
    EXPECT_EQ(DiffModules(**module, **again), "") << "from:\n" << text;
  }
  return true;
}

std::string ReadCorpus(const std::string& case_name, const std::string& file) {
  std::string text;
  EXPECT_TRUE(ReadFileToString(CorpusFile(case_name, file), &text))
      << CorpusFile(case_name, file);
  return text;
}

TEST(RobustnessTest, EveryPrefixOfCorpusModules) {
  ASSERT_FALSE(CorpusDir().empty());
  for (const auto& [case_name, file] :
       {std::pair<std::string, std::string>{"cross_entropy", "xla_gpu_opt.hlo"},
        {"sort_rows", "module.hlo"}}) {
    const std::string text = ReadCorpus(case_name, file);
    ASSERT_FALSE(text.empty());
    for (size_t n = 0; n < text.size(); ++n) {
      CheckParsesOrFailsCleanly(text.substr(0, n));
      if (HasFailure()) {
        ADD_FAILURE() << case_name << " prefix of " << n << " bytes";
        return;
      }
    }
    EXPECT_TRUE(CheckParsesOrFailsCleanly(text)) << case_name;
  }
}

TEST(RobustnessTest, RandomMutationsOfCorpusModules) {
  ASSERT_FALSE(CorpusDir().empty());
  const std::string sources[] = {ReadCorpus("conv_stride2", "xla_gpu_opt.hlo"),
                                 ReadCorpus("scatter_add", "module.hlo"),
                                 ReadCorpus("sort_rows", "xla_gpu_opt.hlo"),
                                 kCanonicalModule};
  static constexpr char kAlphabet[] =
      "{}()[],=:%\"-<>*#?/\\ \n\t0123456789.xeETSLMabcf_";
  // HLOC_FUZZ_ITERATIONS / HLOC_FUZZ_SEED run a longer or different
  // campaign locally; the default is quick and deterministic.
  const char* iterations_env = std::getenv("HLOC_FUZZ_ITERATIONS");
  const char* seed_env = std::getenv("HLOC_FUZZ_SEED");
  const int iterations = iterations_env ? std::atoi(iterations_env) : 3000;
  std::mt19937 rng(seed_env ? std::atoi(seed_env) : 20240611);
  int parsed = 0;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    std::string text = sources[iteration % 4];
    const int edits = 1 + rng() % 4;
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t pos = rng() % text.size();
      const size_t len = 1 + rng() % 16;
      switch (rng() % 5) {
        case 0:
          text[pos] = kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
          break;
        case 1:
          text[pos] = static_cast<char>(rng() % 256);
          break;
        case 2:
          text.erase(pos, len);
          break;
        case 3:
          text.insert(pos, text.substr(rng() % text.size(), len));
          break;
        case 4:
          text.insert(pos, 1, kAlphabet[rng() % (sizeof(kAlphabet) - 1)]);
          break;
      }
    }
    parsed += CheckParsesOrFailsCleanly(text);
    if (HasFailure()) {
      ADD_FAILURE() << "iteration " << iteration;
      return;
    }
  }
  // Some mutations (inside strings or comments, say) keep the module valid.
  EXPECT_GT(parsed, 0);
  std::cout << parsed << " of " << iterations << " mutants parsed\n";
}

TEST(RobustnessTest, PathologicalInputsFailCleanly) {
  const std::string deep(100000, '(');
  const std::string braces(100000, '{');
  std::string rank300 = "f32[";
  std::string nested;
  for (int i = 0; i < 300; ++i) {
    rank300 += i ? ",1" : "1";
    nested += "{";
  }
  rank300 += "]";
  nested += "1" + std::string(300, '}');
  static constexpr char kNul[] =
      "ENTRY e { ROOT x = f32[] parameter(0) }\0junk";
  const std::string long_name =
      "ENTRY " + std::string(100000, 'n') + " { ROOT x = f32[] parameter(0) }";
  const std::string cases[] = {
      "",
      "   \n\t ",
      "// just a comment",
      "/* unterminated",
      "HloModule",
      "HloModule m,",
      "HloModule m, entry_computation_layout=",
      "ENTRY",
      "ENTRY e {",
      "ENTRY e { ROOT",
      "ENTRY e { ROOT x = f32[] parameter(0), metadata={op_name=\"unterminated",
      "ENTRY e { ROOT x = " + deep,
      "ENTRY e { ROOT x = f32[] parameter(0), foo=" + braces,
      "ENTRY e { ROOT x = f32[] parameter(0), foo=" + deep,
      "ENTRY e { ROOT c = " + rank300 + " constant(" + nested + ") }",
      "ENTRY e { ROOT c = f32[99999999999,99999999999] constant({}) }",
      "ENTRY e { ROOT c = f32[4611686018427387904] parameter(0) }",
      "ENTRY e { ROOT c = s32[] constant(99999999999999999999999) }",
      "ENTRY e { ROOT p = f32[] parameter(-1) }",
      "ENTRY e { ROOT p = f32[] parameter(18446744073709551616) }",
      "ENTRY e { ROOT g = f32[] get-tuple-element(p), "
      "index=99999999999999999999 }",
      "ENTRY e { ROOT c = f32[2]{0:T(99999999999999999999)} parameter(0) }",
      std::string(kNul, sizeof(kNul) - 1),
      long_name,
      "FileNames\n1 \"a\"\n3 \"c\"\nENTRY e { ROOT x = f32[] parameter(0) }",
  };
  for (const std::string& text : cases) {
    SCOPED_TRACE(text.substr(0, 80));
    auto module = ParseHloModule(text, "fuzz.hlo");
    // The long name is valid; everything else is an error with a location.
    if (text == long_name) {
      EXPECT_TRUE(module.ok()) << module.status();
    } else {
      ASSERT_FALSE(module.ok());
      EXPECT_EQ(std::string(module.status().message()).rfind("fuzz.hlo:", 0),
                0u)
          << module.status();
    }
  }
}

// Parsing time is linear in the text: a module 8x as large takes well under
// 8x^2 as long (allowing generous noise), and 10 MB parse in seconds.
TEST(RobustnessTest, ParsingIsLinear) {
  auto make_module = [](int n) {
    std::string text =
        "HloModule big, entry_computation_layout={(f32[128,512]{1,0}, "
        "f32[128,512]{1,0})->f32[128,512]{1,0}}\n\nENTRY %main {\n"
        "  %a.0 = f32[128,512]{1,0} parameter(0)\n"
        "  %a.1 = f32[128,512]{1,0} parameter(1)\n";
    for (int i = 2; i < n; ++i) {
      absl::StrAppend(&text, i + 1 == n ? "  ROOT " : "  ", "%a.", i,
                      " = f32[128,512]{1,0} add(%a.", i - 1, ", %a.", i - 2,
                      "), metadata={op_name=\"jit(f)/add\" source_file=\"x.py\""
                      " source_line=",
                      i, "}\n");
    }
    return text + "}\n";
  };
  auto seconds_to_parse = [](const std::string& text) {
    auto start = std::chrono::steady_clock::now();
    auto module = ParseHloModule(text);
    EXPECT_TRUE(module.ok()) << module.status();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  const std::string small = make_module(10000);
  const std::string large = make_module(90000);
  ASSERT_GT(large.size(), 10000000u);
  const double t_small = seconds_to_parse(small);
  const double t_large = seconds_to_parse(large);
  EXPECT_LT(t_large, 24 * std::max(t_small, 0.01))
      << "small " << t_small << "s, large " << t_large << "s";
}

}  // namespace
}  // namespace hloc

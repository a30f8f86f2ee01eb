// Every module of the shared JAX corpus (module.hlo as JAX prints it,
// xla_gpu_opt.hlo after XLA's GPU pipeline) parses, prints, and re-parses to
// the same module; printing is stable.
#include "tests/corpus.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "hlo/text/test_util.h"

namespace hloc {
namespace {

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  for (const std::string& c : CorpusCases()) {
    files.push_back(CorpusFile(c, "module.hlo"));
    files.push_back(CorpusFile(c, "xla_gpu_opt.hlo"));
  }
  return files;
}

TEST(CorpusTest, CorpusIsFound) {
  ASSERT_FALSE(CorpusDir().empty())
      << "shared/corpus/jax not found next to the checkout (set "
         "HLOC_CORPUS_DIR to override)";
  EXPECT_EQ(CorpusCases().size(), 30u);
}

TEST(CorpusTest, EveryModuleRoundTrips) {
  int checked = 0;
  for (const std::string& path : CorpusFiles()) {
    SCOPED_TRACE(path);
    std::string text;
    ASSERT_TRUE(ReadFileToString(path, &text));
    auto first = ParseHloModule(text, path);
    ASSERT_TRUE(first.ok()) << first.status();
    // Names are kept exactly as written.
    for (const HloComputation* c : (*first)->computations()) {
      EXPECT_NE(text.find(c->name()), std::string::npos) << c->name();
      for (const HloInstruction* i : c->instructions()) {
        const bool found =
            text.find(" " + i->name() + " = ") != std::string::npos ||
            text.find("%" + i->name() + " = ") != std::string::npos;
        EXPECT_TRUE(found) << i->name();
      }
    }
    const std::string printed = PrintModule(**first);
    auto second = ParseHloModule(printed, "printed");
    ASSERT_TRUE(second.ok()) << second.status() << "\n" << printed;
    EXPECT_EQ(DiffModules(**first, **second), "");
    EXPECT_EQ(PrintModule(**second), printed);
    ++checked;
  }
  EXPECT_EQ(checked, 60);
}

// The JAX-style spelling (bare names, no signatures, no metadata) is just a
// set of printer options; it too round-trips.
TEST(CorpusTest, BareNameStyleRoundTrips) {
  PrintOptions bare;
  bare.print_percent = false;
  bare.print_program_shape = false;
  for (const std::string& path : CorpusFiles()) {
    SCOPED_TRACE(path);
    std::string text;
    ASSERT_TRUE(ReadFileToString(path, &text));
    auto first = ParseHloModule(text, path);
    ASSERT_TRUE(first.ok()) << first.status();
    const std::string printed = PrintModule(**first, bare);
    auto second = ParseHloModule(printed, "printed");
    ASSERT_TRUE(second.ok()) << second.status();
    EXPECT_EQ(DiffModules(**first, **second), "");
    EXPECT_EQ(PrintModule(**second, bare), printed);
  }
}

}  // namespace
}  // namespace hloc

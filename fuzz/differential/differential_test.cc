// The differential fuzzer in the normal suite: a fixed range of generated
// modules (so the test is the same on every run), then every module kept
// in fuzz/differential/regressions (disagreements once found, and fixed),
// each checked against the evaluator with differential_check.h.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/differential/differential_check.h"
#include "fuzz/differential/module_generator.h"
#include "gtest/gtest.h"

namespace hloc {
namespace fuzz {
namespace {

// Enough to reach every op and type several times (the generator's mix is
// checked by the fuzz runs in CI, which go much further).
constexpr uint64_t kModules = 150;

TEST(DifferentialTest, GeneratedModulesAgree) {
  for (uint64_t seed = 1; seed <= kModules; ++seed) {
    RandomSource source(seed);
    const std::string text = GenerateModule(source);
    absl::Status status = CheckModule(text, seed);
    EXPECT_TRUE(status.ok()) << "seed " << seed << ": " << status.message();
  }
}

TEST(DifferentialTest, ExactTargetCasesDropFloatDividesAndAskForHighest) {
  const std::string divide = R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT q = f32[4] divide(a, b)
})";
  EXPECT_FALSE(ForExactTarget(divide).has_value());
  const std::string int_divide = R"(HloModule m
ENTRY e {
  a = s32[4] parameter(0)
  b = s32[4] parameter(1)
  ROOT q = s32[4] divide(a, b)
})";
  EXPECT_TRUE(ForExactTarget(int_divide).has_value());
  const std::string dot = R"(HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,4] parameter(1)
  ROOT d = f32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  std::optional<std::string> highest = ForExactTarget(dot);
  ASSERT_TRUE(highest.has_value());
  EXPECT_NE(highest->find("dot(a, b), lhs_contracting_dims={1}, "
                          "rhs_contracting_dims={0}, "
                          "operand_precision={highest,highest}"),
            std::string::npos)
      << *highest;
  // Still a valid module that computes what the original does.
  EXPECT_TRUE(CheckModule(*highest, 1).ok()) << CheckModule(*highest, 1);
}

TEST(DifferentialTest, RegressionsAgree) {
  const std::filesystem::path dir = "fuzz/differential/regressions";
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(dir)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      files.push_back(entry.path());
    }
  }
  for (const auto& path : files) {
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)),
                           std::istreambuf_iterator<char>());
    // Saved modules were found with input seed = module seed; the file name
    // is diff-<seed>.hlo.
    uint64_t seed = 0;
    const std::string stem = path.stem().string();
    if (stem.rfind("diff-", 0) == 0) seed = std::stoull(stem.substr(5));
    absl::Status status = CheckModule(text, seed);
    EXPECT_TRUE(status.ok()) << path << ": " << status.message();
  }
}

}  // namespace
}  // namespace fuzz
}  // namespace hloc

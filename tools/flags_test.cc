#include "tools/flags.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hloc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::vector<FlagSpec> kSpecs = {
    {"dir", true, "a directory"},
    {"verbose", false, "talk more"},
    {"color", false, "color the output"},
    {"no-color", false, "do not color the output"},
};

absl::StatusOr<ParsedFlags> Parse(std::vector<std::string> args) {
  std::vector<char*> argv = {const_cast<char*>("tool")};
  for (std::string& arg : args) argv.push_back(arg.data());
  return ParseFlags(static_cast<int>(argv.size()), argv.data(), kSpecs);
}

TEST(FlagsTest, BothValueFormsAndSwitches) {
  absl::StatusOr<ParsedFlags> p = Parse({"a.hlo", "--dir=x", "-", "--verbose"});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->Get("dir"), "x");
  EXPECT_TRUE(p->Has("verbose"));
  EXPECT_THAT(p->positional, ElementsAre("a.hlo", "-"));

  p = Parse({"--dir", "y", "--verbose=false"});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->Get("dir"), "y");
  EXPECT_FALSE(p->Has("verbose"));
  EXPECT_EQ(p->Get("missing", "fallback"), "fallback");
}

TEST(FlagsTest, Errors) {
  EXPECT_THAT(Parse({"--nope"}).status().message(),
              HasSubstr("unknown flag '--nope'"));
  EXPECT_THAT(Parse({"--dir"}).status().message(),
              HasSubstr("flag --dir needs a value"));
  EXPECT_THAT(Parse({"--verbose=maybe"}).status().message(),
              HasSubstr("is a switch"));
}

TEST(FlagsTest, SwitchPair) {
  auto choice = [](std::vector<std::string> args) {
    absl::StatusOr<ParsedFlags> p = Parse(std::move(args));
    EXPECT_TRUE(p.ok()) << p.status();
    return SwitchPair(*p, "color", "no-color");
  };
  EXPECT_EQ(*choice({}), std::nullopt);
  EXPECT_EQ(*choice({"--color"}), std::optional<bool>(true));
  EXPECT_EQ(*choice({"--no-color"}), std::optional<bool>(false));
  EXPECT_EQ(choice({"--color", "--no-color"}).status().message(),
            "give --color or --no-color, not both");
}

TEST(FlagsTest, PositiveIntFlag) {
  int64_t value = 7;
  absl::StatusOr<ParsedFlags> p = Parse({});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(PositiveIntFlag(*p, "dir", &value, 10).ok());
  EXPECT_EQ(value, 7);  // not given: left as it was
  p = Parse({"--dir=10"});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(PositiveIntFlag(*p, "dir", &value, 10).ok());
  EXPECT_EQ(value, 10);
  p = Parse({"--dir=11"});
  ASSERT_TRUE(p.ok());
  EXPECT_THAT(std::string(PositiveIntFlag(*p, "dir", &value, 10).message()),
              HasSubstr("flag --dir: '11' is not an integer in [1, 10]"));
  p = Parse({"--dir=0"});
  ASSERT_TRUE(p.ok());
  EXPECT_THAT(std::string(PositiveIntFlag(*p, "dir", &value).message()),
              HasSubstr("flag --dir: '0' is not a positive integer"));
  p = Parse({"--dir=x"});
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(PositiveIntFlag(*p, "dir", &value).ok());
  EXPECT_EQ(value, 10);
}

TEST(FlagsTest, Help) {
  const std::string help = FlagHelp("tool FILE", kSpecs);
  EXPECT_THAT(help, HasSubstr("usage: tool FILE\n"));
  EXPECT_THAT(help, HasSubstr("--dir=VALUE"));
  EXPECT_THAT(help, HasSubstr("--verbose"));
}

}  // namespace
}  // namespace hloc

// The pass registry and the pass-list syntax.
#include "passes/registry.h"

#include "gtest/gtest.h"

namespace hloc {
namespace {

TEST(RegistryTest, EveryListedPassCanBeCreatedUnderItsName) {
  std::vector<std::string> names = ListPasses();
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    absl::StatusOr<std::unique_ptr<HloPass>> pass = CreatePass(name);
    ASSERT_TRUE(pass.ok()) << name << ": " << pass.status();
    EXPECT_EQ((*pass)->name(), name);
    EXPECT_NE(DescribePasses().find(name), std::string::npos);
  }
}

TEST(RegistryTest, UnknownPassListsTheKnownOnes) {
  absl::StatusOr<std::unique_ptr<HloPass>> pass = CreatePass("dead-code");
  ASSERT_FALSE(pass.ok());
  EXPECT_EQ(pass.status().code(), absl::StatusCode::kInvalidArgument);
  std::string message(pass.status().message());
  EXPECT_NE(message.find("unknown pass 'dead-code'"), std::string::npos);
  for (const std::string& name : ListPasses()) {
    EXPECT_NE(message.find(name), std::string::npos) << message;
  }
}

TEST(RegistryTest, PassListsRoundTrip) {
  for (const char* list :
       {"dce", "cse,dce",
        "call-inliner,fixed-point(algebraic-simplifier,cse),dce",
        "fixed-point(fixed-point(dce),cse)"}) {
    absl::StatusOr<HloPassPipeline> pipeline = PipelineFromPassList(list);
    ASSERT_TRUE(pipeline.ok()) << list << ": " << pipeline.status();
    EXPECT_EQ(pipeline->ToString(), list);
  }
  absl::StatusOr<HloPassPipeline> spaced =
      PipelineFromPassList(" cse , fixed-point( dce ) ");
  ASSERT_TRUE(spaced.ok()) << spaced.status();
  EXPECT_EQ(spaced->ToString(), "cse,fixed-point(dce)");
}

TEST(RegistryTest, BadPassListsAreErrors) {
  struct Case {
    const char* list;
    const char* message;
  };
  for (const Case& c : {
           Case{"", "column 1: expected a pass name"},
           Case{"cse,", "column 5: expected a pass name"},
           Case{"cse dce", "column 5: expected ',' or the end"},
           Case{"fixed-point(cse", "expected ')' to close fixed-point("},
           Case{"fixed-point cse", "expected '(' after fixed-point"},
           Case{"cse)", "expected ',' or the end"},
           Case{"cse,nope", "unknown pass 'nope'"},
       }) {
    absl::StatusOr<HloPassPipeline> pipeline = PipelineFromPassList(c.list);
    ASSERT_FALSE(pipeline.ok()) << c.list;
    EXPECT_NE(pipeline.status().message().find(c.message), std::string::npos)
        << c.list << ": " << pipeline.status();
  }
}

}  // namespace
}  // namespace hloc

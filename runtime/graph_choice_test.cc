#include "runtime/graph_choice.h"

#include <vector>

#include "gtest/gtest.h"

namespace hloc {
namespace {

using Variant = GraphChoice::Variant;

// Records every trial's time, checking they alternate starting with the
// branches and that only the last decides.
GraphChoice Timed(const std::vector<double>& milliseconds) {
  EXPECT_EQ(milliseconds.size(), 2 * GraphChoice::kTrials);
  GraphChoice choice;
  for (size_t i = 0; i < milliseconds.size(); ++i) {
    EXPECT_FALSE(choice.decided()) << "trial " << i;
    EXPECT_EQ(choice.NextTrial(),
              i % 2 == 0 ? Variant::kBranched : Variant::kChain)
        << "trial " << i;
    choice.Record(milliseconds[i]);
  }
  EXPECT_TRUE(choice.decided());
  return choice;
}

TEST(GraphChoiceTest, KeepsTheBranchesWhenTheirBestIsFaster) {
  // Branched: 0.9 (first launch, uploading), 0.5, 0.52; chain: 0.8, 0.7,
  // 0.75.
  const GraphChoice choice = Timed({0.9, 0.8, 0.5, 0.7, 0.52, 0.75});
  EXPECT_EQ(choice.variant(), Variant::kBranched);
  EXPECT_DOUBLE_EQ(choice.best_branched(), 0.5);
  EXPECT_DOUBLE_EQ(choice.best_chain(), 0.7);
}

TEST(GraphChoiceTest, KeepsTheChainWhenItIsFaster) {
  const GraphChoice choice = Timed({0.3, 0.25, 0.33, 0.24, 0.31, 0.26});
  EXPECT_EQ(choice.variant(), Variant::kChain);
  EXPECT_DOUBLE_EQ(choice.best_branched(), 0.3);
  EXPECT_DOUBLE_EQ(choice.best_chain(), 0.24);
}

TEST(GraphChoiceTest, ATieWithinTheMarginKeepsTheChain) {
  // 1% faster with branches: inside kMargin.
  EXPECT_EQ(Timed({0.99, 1.0, 0.99, 1.0, 0.99, 1.0}).variant(),
            Variant::kChain);
  // 3% faster: past it.
  EXPECT_EQ(Timed({0.97, 1.0, 0.97, 1.0, 0.97, 1.0}).variant(),
            Variant::kBranched);
}

TEST(GraphChoiceTest, OneSlowLaunchDoesNotDecide) {
  // The chain's first launch was delayed by the host; its best counts.
  EXPECT_EQ(Timed({0.5, 5.0, 0.5, 0.4, 0.5, 0.41}).variant(), Variant::kChain);
  // A zero (a timer's granularity) is a time like any other.
  EXPECT_EQ(Timed({0.01, 0.0, 0.01, 0.01, 0.01, 0.01}).variant(),
            Variant::kChain);
}

TEST(GraphChoiceTest, FixedChoicesAreNotTimed) {
  GraphChoice branched;
  branched.Fix(Variant::kBranched);
  EXPECT_TRUE(branched.decided());
  EXPECT_EQ(branched.variant(), Variant::kBranched);
  EXPECT_DOUBLE_EQ(branched.best_branched(), 0);
  GraphChoice chain;
  chain.Fix(Variant::kChain);
  EXPECT_EQ(chain.variant(), Variant::kChain);
}

}  // namespace
}  // namespace hloc

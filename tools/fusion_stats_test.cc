// The fusion measure: for every corpus case, our cuda pipeline leaves no more
// kernels than XLA:GPU did (tools/fusion_stats_lib.h).
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/corpus.h"
#include "tools/fusion_stats_lib.h"

namespace hloc {
namespace {

TEST(FusionStats, NoMoreKernelsThanXlaGpu) {
  const std::string corpus = CorpusDir();
  ASSERT_FALSE(corpus.empty()) << "corpus not found";
  std::vector<std::string> cases = ListCases(corpus);
  ASSERT_GE(cases.size(), 30u);
  std::vector<CaseKernelStats> all;
  for (const std::string& dir : cases) {
    absl::StatusOr<CaseKernelStats> stats = CompareCase(dir, "cuda");
    ASSERT_TRUE(stats.ok()) << dir << ": " << stats.status();
    EXPECT_LE(stats->ours, stats->xla)
        << stats->name
        << "\n  ours: " << absl::StrJoin(stats->our_kernels, ", ")
        << "\n  XLA:  " << absl::StrJoin(stats->xla_kernels, ", ");
    all.push_back(std::move(*stats));
  }
  std::cout << FormatStatsTable(all, /*verbose=*/false);
}

TEST(FusionStats, TableFormat) {
  CaseKernelStats a{"softmax", 1, 1, {}, {}};
  CaseKernelStats b{"worse", 3, 2, {}, {}};
  std::string table = FormatStatsTable({a, b}, false);
  EXPECT_NE(table.find("softmax                1     1  ok"), std::string::npos)
      << table;
  EXPECT_NE(table.find("worse                  3     2  MORE"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("1/2 ok"), std::string::npos) << table;
}

}  // namespace
}  // namespace hloc

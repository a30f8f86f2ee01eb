// HloPassPipeline: order, fixed points and their cap, the verifier between
// passes, dumps and statistics.
#include "passes/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

constexpr absl::string_view kModule = R"(
HloModule pipeline_test

ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(x)
}
)";

// Logs its name when run; reports a change while `changes_left` > 0.
class FakePass : public HloPass {
 public:
  FakePass(std::string name, std::vector<std::string>* log,
           int changes_left = 0)
      : name_(std::move(name)), log_(log), changes_left_(changes_left) {}
  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule*) override {
    log_->push_back(name_);
    Count("fake-counter", 2);
    if (changes_left_ == 0) return false;
    --changes_left_;
    return true;
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
  int changes_left_;
};

// Gives the root a wrong element type, which the verifier must catch.
class BreakingPass : public HloPass {
 public:
  absl::string_view name() const override { return "breaker"; }
  absl::StatusOr<bool> Run(HloModule* module) override {
    module->entry_computation()
        ->root_instruction()
        ->mutable_shape()
        ->set_element_type(S32);
    return true;
  }
};

class FailingPass : public HloPass {
 public:
  absl::string_view name() const override { return "failer"; }
  absl::StatusOr<bool> Run(HloModule*) override {
    return absl::InvalidArgumentError("no good");
  }
};

TEST(PipelineTest, RunsPassesInOrder) {
  auto module = ParseAndVerify(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<FakePass>("a", &log);
  pipeline.AddPass<FakePass>("b", &log, 1);
  pipeline.AddPass<FakePass>("c", &log);
  absl::StatusOr<bool> changed = pipeline.Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(log, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(pipeline.ToString(), "a,b,c");
}

TEST(PipelineTest, FixedPointRunsUntilNothingChanges) {
  auto module = ParseAndVerify(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<FakePass>("first", &log);
  HloPassPipeline* loop = pipeline.AddFixedPoint("loop");
  loop->AddPass<FakePass>("x", &log, 2);
  loop->AddPass<FakePass>("y", &log);
  pipeline.AddPass<FakePass>("last", &log);
  ASSERT_TRUE(pipeline.Run(module->get()).ok());
  // Two iterations change something, the third changes nothing.
  EXPECT_EQ(log, (std::vector<std::string>{"first", "x", "y", "x", "y", "x",
                                           "y", "last"}));
  EXPECT_EQ(pipeline.ToString(), "first,fixed-point(x,y),last");
  EXPECT_EQ(loop->statistics().at("iterations"), 3);
}

TEST(PipelineTest, FixedPointStopsAtTheCap) {
  auto module = ParseAndVerify(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  HloPassPipeline* loop = pipeline.AddFixedPoint("loop", 4);
  loop->AddPass<FakePass>("forever", &log, 1000);
  absl::StatusOr<bool> changed = pipeline.Run(module->get());
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(*changed);
  EXPECT_EQ(log.size(), 4u);
  EXPECT_EQ(loop->statistics().at("iteration-cap-reached"), 1);
}

TEST(PipelineTest, VerifierNamesThePassThatBrokeTheModule) {
  auto module = ParseAndVerify(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<FakePass>("fine", &log);
  pipeline.AddPass<BreakingPass>();
  pipeline.AddPass<FakePass>("never", &log);
  PipelineOptions options;
  options.verify = true;
  pipeline.set_options(options);
  absl::StatusOr<bool> changed = pipeline.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("after pass 'breaker'"),
            std::string::npos)
      << changed.status();
  EXPECT_EQ(log, std::vector<std::string>{"fine"});
}

TEST(PipelineTest, PassErrorsNameThePass) {
  auto module = ParseAndVerify(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  HloPassPipeline pipeline("p");
  pipeline.AddFixedPoint("loop")->AddPass<FailingPass>();
  absl::StatusOr<bool> changed = pipeline.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(changed.status().message(), "pass 'failer' failed: no good");
}

TEST(PipelineTest, DumpsTheModuleAfterEveryPass) {
  auto module = ParseAndVerify(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/pipeline_dump";
  std::filesystem::remove_all(dir);
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<FakePass>("a", &log, 1);
  pipeline.AddFixedPoint("loop")->AddPass<FakePass>("b", &log, 1);
  PipelineOptions options;
  options.dump_dir = dir;
  pipeline.set_options(options);
  ASSERT_TRUE(pipeline.Run(module->get()).ok());
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"0000.input.hlo", "0001.a.hlo",
                                             "0002.b.hlo", "0003.b.hlo"}));
  std::ifstream file(dir + "/0001.a.hlo");
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(text.str(), ModuleText(**module));
}

// Every file of `dir`, sorted.
std::vector<std::string> DumpFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string FreshDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(PipelineTest, DumpsTheInvalidModuleNamedForThePass) {
  auto module = ParseAndVerify(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string dir = FreshDir("pipeline_invalid_dump");
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<FakePass>("fine", &log);
  pipeline.AddPass<BreakingPass>();
  PipelineOptions options;
  options.verify = true;
  options.dump_dir = dir;
  pipeline.set_options(options);
  absl::StatusOr<bool> changed = pipeline.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("(the invalid module: " + dir +
                                            "/0002.breaker.invalid.hlo)"),
            std::string::npos)
      << changed.status();
  EXPECT_EQ(DumpFiles(dir),
            (std::vector<std::string>{"0000.input.hlo", "0001.fine.hlo",
                                      "0002.breaker.invalid.hlo"}));
  // The file holds the module as the breaking pass left it (root s32).
  std::ifstream file(dir + "/0002.breaker.invalid.hlo");
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(text.str(), ModuleText(**module));
  EXPECT_NE(text.str().find("s32[4]"), std::string::npos) << text.str();
}

TEST(PipelineTest, DumpsOnlyChangingPassesWhenAsked) {
  auto module = ParseAndVerify(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string dir = FreshDir("pipeline_changed_dump");
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<FakePass>("same", &log);
  pipeline.AddPass<FakePass>("changes", &log, 1);
  PipelineOptions options;
  options.dump_dir = dir;
  options.dump_unchanged = false;
  pipeline.set_options(options);
  ASSERT_TRUE(pipeline.Run(module->get()).ok());
  EXPECT_EQ(DumpFiles(dir),
            (std::vector<std::string>{"0000.input.hlo", "0001.changes.hlo"}));
}

TEST(PipelineTest, DisabledPassesAreSkippedWhereverTheyOccur) {
  auto module = ParseAndVerify(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<FakePass>("a", &log);
  HloPassPipeline* loop = pipeline.AddFixedPoint("loop");
  loop->AddPass<FakePass>("a", &log);
  loop->AddPass<FakePass>("b", &log);
  HloPassPipeline* inner = pipeline.AddFixedPoint("inner");
  inner->AddPass<FakePass>("c", &log);
  pipeline.AddPass<FakePass>("d", &log);
  PipelineOptions options;
  options.disabled_passes = {"a", "inner"};
  pipeline.set_options(options);
  ASSERT_TRUE(pipeline.Run(module->get()).ok());
  EXPECT_EQ(log, (std::vector<std::string>{"b", "d"}));
}

TEST(PipelineTest, DisablingAnUnknownPassNamesTheKnownOnes) {
  auto module = ParseAndVerify(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<FakePass>("b", &log);
  pipeline.AddFixedPoint("loop")->AddPass<FakePass>("a", &log);
  PipelineOptions options;
  options.disabled_passes = {"a", "nope", "zzz"};
  pipeline.set_options(options);
  EXPECT_EQ(pipeline.PassNames(), (std::vector<std::string>{"a", "b", "loop"}));
  absl::StatusOr<bool> changed = pipeline.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(changed.status().message(),
            "unknown passes 'nope', 'zzz' to disable: pipeline p has a, b, "
            "loop");
  EXPECT_TRUE(log.empty());
}

TEST(PipelineTest, StatisticsReportSumsRuns) {
  auto module = ParseAndVerify(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddFixedPoint("loop")->AddPass<FakePass>("a", &log, 2);
  ASSERT_TRUE(pipeline.Run(module->get()).ok());
  std::string report = pipeline.StatisticsReport();
  EXPECT_NE(report.find("       3 a - runs\n"), std::string::npos) << report;
  EXPECT_NE(report.find("       2 a - changed\n"), std::string::npos) << report;
  EXPECT_NE(report.find("       6 a - fake-counter\n"), std::string::npos)
      << report;
  EXPECT_NE(report.find("       3 loop - iterations\n"), std::string::npos)
      << report;
}

// Sleeps `ms` milliseconds when run: a pass with a known minimum time.
class SleepingPass : public HloPass {
 public:
  SleepingPass(std::string name, int ms) : name_(std::move(name)), ms_(ms) {}
  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(HloModule*) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
    return false;
  }

 private:
  std::string name_;
  int ms_;
};

TEST(PipelineTest, PassTimesSumByNameAtAnyDepth) {
  auto module = ParseAndVerify(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<std::string> log;
  HloPassPipeline pipeline("p");
  pipeline.AddPass<SleepingPass>("slow", 20);
  HloPassPipeline* loop = pipeline.AddFixedPoint("loop");
  loop->AddPass<FakePass>("a", &log, 2);
  loop->AddPass<SleepingPass>("slow", 5);
  PipelineOptions options;
  options.verify = true;
  pipeline.set_options(options);
  ASSERT_TRUE(pipeline.Run(module->get()).ok());
  std::vector<PassTime> times = pipeline.PassTimes();
  // In pipeline order: the fixed point itself is no row, its passes are.
  ASSERT_EQ(times.size(), 3u);
  EXPECT_EQ(times[0].name, "slow");
  EXPECT_EQ(times[0].runs, 4);  // Once, then once in each of 3 iterations.
  EXPECT_GE(times[0].seconds, 0.035);
  EXPECT_EQ(times[1].name, "a");
  EXPECT_EQ(times[1].runs, 3);
  EXPECT_EQ(times[2].name, "(verify and dump between passes)");
  EXPECT_EQ(times[2].runs, 7);
  EXPECT_GT(times[2].seconds, 0);
}

TEST(PipelineTest, FormatPassTimesSortsSlowestFirst) {
  const std::string table = FormatPassTimes(
      {{"dce", 2, 0.25}, {"cse", 1, 0.5}, {"llvm-opt", 1, 1.25}}, 2.0);
  EXPECT_NE(table.find("hloc execution timing report"), std::string::npos);
  EXPECT_NE(table.find("  Total: 2.0000 s\n"), std::string::npos) << table;
  const size_t llvm = table.find("     1.2500   62.5%      1  llvm-opt\n");
  const size_t cse = table.find("     0.5000   25.0%      1  cse\n");
  const size_t dce = table.find("     0.2500   12.5%      2  dce\n");
  ASSERT_NE(llvm, std::string::npos) << table;
  ASSERT_NE(cse, std::string::npos) << table;
  ASSERT_NE(dce, std::string::npos) << table;
  EXPECT_LT(llvm, cse);
  EXPECT_LT(cse, dce);
}

}  // namespace
}  // namespace hloc

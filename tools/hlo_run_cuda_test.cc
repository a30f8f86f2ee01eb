// hlo-run --platform=cuda (the library hlo-run and hlo-run-gpu share): a
// saved cuda executable (hand-written PTX) matches the interpreter on its
// own module when there is a GPU; bad input gets a clear error and exit
// code 2 or 3 with or without one, never a crash.
#include "tools/hlo_run_cuda.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/executable.h"
#include "runtime/testing/cuda_test_executables.h"
#include "tools/hlo_run_core.h"

namespace hloc {
namespace {

namespace fs = std::filesystem;

struct RunResult {
  int code;
  std::string out;
  std::string err;
};

// The cuda platform prints its timings and step tables to std::cerr (the
// run hook has no stream), so the run's stderr is that and `err` together.
RunResult HloRunGpu(const std::vector<std::string>& args) {
  std::ostringstream out, err, cerr;
  const HloRunPlatforms platforms = {InterpreterPlatform(),
                                     CudaHloRunPlatform(nullptr)};
  std::streambuf* saved = std::cerr.rdbuf(cerr.rdbuf());
  const int code = HloRunMain(args, platforms, out, err);
  std::cerr.rdbuf(saved);
  std::cerr << cerr.str();
  return {code, out.str(), err.str() + cerr.str()};
}

std::string TempDir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// The while/conditional executable saved to a file.
std::string SavedExecutableFile(const std::string& name,
                                const Executable& executable) {
  const std::string path = TempDir(name) + "/m.hloexe";
  EXPECT_TRUE(WriteExecutableFile(path, executable).ok());
  return path;
}

bool NoGpu(const RunResult& run) {
  return run.code == kHloRunFailed &&
         run.err.find("no CUDA d") != std::string::npos;
}

TEST(HloRunCudaTest, SavedExecutableMatchesTheInterpreter) {
  const std::string exe =
      SavedExecutableFile("while", testing::WhileConditionalExecutable());
  // The interpreter runs the executable's module: the expected outputs.
  const std::string expected = TempDir("expected");
  const std::string module = TempDir("module") + "/m.hlo";
  std::ofstream(module) << testing::WhileConditionalExecutable().hlo_module;
  RunResult reference = HloRunGpu(
      {module, "--random-inputs=7", absl::StrCat("--output=", expected)});
  ASSERT_EQ(reference.code, kHloRunMatch) << reference.err;

  RunResult run = HloRunGpu({exe, "--platform=cuda", "--random-inputs=7",
                             absl::StrCat("--expect=", expected), "--profile"});
  if (NoGpu(run)) {
    std::printf("no CUDA device, skipping: %s", run.err.c_str());
    GTEST_SKIP();
  }
  EXPECT_EQ(run.code, kHloRunMatch) << run.out << run.err;
  EXPECT_NE(run.out.find("all outputs match"), std::string::npos) << run.out;
  std::printf("%s%s", run.out.c_str(), run.err.c_str());
}

TEST(HloRunCudaTest, IterationsTimeStepsOrWholeRuns) {
  const std::string exe =
      SavedExecutableFile("timed", testing::WhileConditionalExecutable());
  RunResult steps = HloRunGpu({exe, "--platform=cuda", "--random-inputs=3",
                               "--iterations=2", "--profile"});
  if (NoGpu(steps)) {
    std::printf("no CUDA device, skipping: %s", steps.err.c_str());
    GTEST_SKIP();
  }
  EXPECT_EQ(steps.code, kHloRunMatch) << steps.err;
  EXPECT_NE(steps.err.find("median device time"), std::string::npos);
  EXPECT_NE(steps.err.find("steps of the last timed run"), std::string::npos);
  RunResult whole = HloRunGpu({exe, "--platform=cuda", "--random-inputs=3",
                               "--iterations=2", "--time-run"});
  EXPECT_EQ(whole.code, kHloRunMatch) << whole.err;
  EXPECT_NE(whole.err.find("median run time"), std::string::npos) << whole.err;
}

TEST(HloRunCudaTest, BadInputGetsAClearError) {
  const std::string dir = TempDir("bad");
  const std::string corrupt = dir + "/corrupt.hloexe";
  {
    const std::string good =
        SavedExecutableFile("good", testing::WhileConditionalExecutable());
    std::ifstream in(good, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    bytes[bytes.size() / 2] ^= 0x55;
    std::ofstream(corrupt, std::ios::binary) << bytes;
  }
  const std::string truncated = dir + "/truncated.hloexe";
  std::ofstream(truncated, std::ios::binary) << "hlocexe";
  Executable cpu = testing::WhileConditionalExecutable();
  cpu.platform = "cpu";
  cpu.device_code.clear();
  cpu.steps.clear();
  const std::string cpu_exe = SavedExecutableFile("cpu", cpu);
  const std::string module = dir + "/m.hlo";
  std::ofstream(module) << testing::WhileConditionalExecutable().hlo_module;

  struct Case {
    std::vector<std::string> args;
    int code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{corrupt, "--platform=cuda", "--random-inputs=1"},
       kHloRunBadInput,
       "corrupt.hloexe"},
      {{truncated, "--platform=cuda", "--random-inputs=1"},
       kHloRunBadInput,
       "truncated.hloexe"},
      {{cpu_exe, "--platform=cuda", "--random-inputs=1"},
       kHloRunBadInput,
       "is for platform 'cpu', not cuda"},
      {{corrupt, "--random-inputs=1"},
       kHloRunBadInput,
       "--platform=interpreter cannot run a saved executable"},
      {{module, "--platform=cuda", "--random-inputs=1"},
       kHloRunFailed,
       "the cuda compiler is not built into this binary"},
      {{module, "--platform=cpu", "--random-inputs=1"},
       kHloRunBadInput,
       "unknown platform 'cpu' (available: interpreter, cuda)"},
  };
  for (const Case& c : cases) {
    RunResult run = HloRunGpu(c.args);
    EXPECT_EQ(run.code, c.code) << c.message << "\n" << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("hlo-run: error: "), std::string::npos) << run.err;
  }
}

// Without a GPU a good executable fails to run (3) saying why; with one,
// device code for another GPU is refused the same way.
TEST(HloRunCudaTest, NoGpuOrWrongArchIsAPlatformFailure) {
  Executable wrong = testing::WhileConditionalExecutable();
  wrong.device_code = {{"cubin", "sm_10",
                        std::string("\x7f"
                                    "ELF",
                                    4)}};
  const std::string exe = SavedExecutableFile("wrong_arch", wrong);
  RunResult run = HloRunGpu({exe, "--platform=cuda", "--random-inputs=1"});
  EXPECT_EQ(run.code, kHloRunFailed) << run.err;
  if (NoGpu(run)) {
    std::printf("no CUDA device here: %s", run.err.c_str());
    return;
  }
  EXPECT_NE(run.err.find("no device code this GPU can load"), std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace hloc

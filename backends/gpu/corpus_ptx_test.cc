// Every module of the shared JAX corpus (module.hlo as JAX wrote it and
// xla_gpu_opt.hlo, XLA's own optimized module) goes through the cuda
// pipeline and compiles to PTX that ptxas accepts for sm_90 and sm_80 (the
// compiler runs ptxas itself to make the cubin). Modules with instructions
// the backend cannot compile yet are listed in kKnownUnsupported with the
// reason; the test fails if that list is wrong either way. Without ptxas
// the test says so and skips.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/nvptx_target.h"
#include "backends/gpu/ptxas.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "tests/corpus.h"

namespace hloc {
namespace {

// "case/file" -> a substring of the Unimplemented message.
const std::map<std::string, std::string>& KnownUnsupported() {
  static const auto* known = new std::map<std::string, std::string>{
      // None: XLA:GPU's __cudnn$convForward calls are convolutions again
      // (passes/cudnn_convolution_calls.h). A module that stops compiling
      // is listed here with the reason.
  };
  return *known;
}

struct Case {
  std::string name;
  std::string file;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name << "/" << c.file;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const std::string& name : CorpusCases()) {
    for (const char* file : {"module.hlo", "xla_gpu_opt.hlo"}) {
      cases.push_back({name, file});
    }
  }
  return cases;
}

class CorpusPtxTest : public ::testing::TestWithParam<Case> {};

TEST_P(CorpusPtxTest, PtxasAccepts) {
  const Case& c = GetParam();
  if (FindPtxas(FindCudaPath("")).empty()) {
    GTEST_SKIP() << "ptxas not found (CUDA toolkit at " << FindCudaPath("")
                 << "): PTX is not checked";
  }
  std::string text;
  std::string path = CorpusFile(c.name, c.file);
  if (!ReadFileToString(path, &text)) GTEST_SKIP() << "no " << path;
  auto module = ParseHloModule(text, path);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string key = c.name + "/" + c.file;
  auto pipeline = MakePipeline("cuda", PipelineOptions{});
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  absl::StatusOr<bool> ran = pipeline->Run(module->get());
  ASSERT_TRUE(ran.ok()) << ran.status();
  auto known = KnownUnsupported().find(key);
  for (const char* arch : {"sm_90", "sm_80"}) {
    GpuCompileOptions options;
    options.arch = arch;
    absl::StatusOr<Executable> executable = CompileForGpu(**module, options);
    if (known != KnownUnsupported().end()) {
      ASSERT_FALSE(executable.ok())
          << key << " compiles now: remove it from KnownUnsupported";
      EXPECT_TRUE(absl::IsUnimplemented(executable.status()))
          << executable.status();
      EXPECT_NE(executable.status().message().find(known->second),
                std::string::npos)
          << executable.status();
      continue;
    }
    ASSERT_TRUE(executable.ok())
        << key << " " << arch << ": " << executable.status();
    ASSERT_EQ(executable->device_code.size(), 2u) << "PTX and a cubin";
    EXPECT_EQ(executable->device_code[0].format, "ptx");
    EXPECT_EQ(executable->device_code[1].format, "cubin");
    EXPECT_FALSE(executable->device_code[1].code.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusPtxTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name =
                               info.param.name + "_" + info.param.file;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace hloc

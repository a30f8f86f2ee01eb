// hlo-run end to end on the shared JAX corpus: every case, from HLO text and
// from the serialized proto, reproduces XLA:GPU's outputs on the reference
// interpreter within the default tolerances (exit 0; --expect-tf32, since
// XLA:GPU ran the f32 dots in TF32); a perturbed expectation is a mismatch
// (exit 1), a wrong input bad input (exit 2), and an op the interpreter
// cannot run a run failure (exit 3).
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/npy.h"
#include "tests/corpus.h"
#include "tools/hlo_run_lib.h"

namespace hloc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct RunResult {
  int code;
  std::string out;
  std::string err;
};

RunResult HloRun(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = HloRunMain(args, out, err);
  return {code, out.str(), err.str()};
}

std::string CaseDir(const std::string& name) {
  return (fs::path(CorpusDir()) / name).string();
}

// A writable copy of a corpus case.
std::string CopyCase(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(tmp ? tmp : "/tmp") / ("hlo_run_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(CaseDir(name))) {
    fs::copy_file(entry.path(), dir / entry.path().filename());
    fs::permissions(dir / entry.path().filename(), fs::perms::owner_write,
                    fs::perm_options::add);
  }
  return dir.string();
}

TEST(HloRunCorpusTest, CorpusIsFound) {
  ASSERT_FALSE(CorpusDir().empty())
      << "shared/corpus/jax not found (set HLOC_CORPUS_DIR)";
  EXPECT_GE(CorpusCases().size(), 30u);
}

TEST(HloRunCorpusTest, EveryCaseMatchesXla) {
  for (const std::string& name : CorpusCases()) {
    for (const char* file : {"module.hlo", "module.pb"}) {
      SCOPED_TRACE(name + "/" + file);
      const std::string dir = CaseDir(name);
      RunResult run = HloRun({CorpusFile(name, file), "--inputs", dir,
                              "--expect", dir, "--expect-tf32"});
      EXPECT_EQ(run.code, kHloRunMatch) << run.out << run.err;
      EXPECT_THAT(run.out, HasSubstr("all outputs match"));
    }
  }
}

TEST(HloRunCorpusTest, SoftmaxMismatch) {
  const std::string dir = CopyCase("softmax");
  const std::string out0 = dir + "/out0.npy";
  absl::StatusOr<Literal> expected = ReadNpy(out0);
  ASSERT_TRUE(expected.ok()) << expected.status();
  // Softmax values are about 1e-3: +10% is 1e-4, beyond atol=1e-5.
  expected->data<float>()[1001] *= 1.1f;
  ASSERT_TRUE(WriteNpy(out0, *expected).ok());
  RunResult run =
      HloRun({dir + "/module.hlo", "--inputs", dir, "--expect", dir});
  EXPECT_EQ(run.code, kHloRunMismatch) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("1/128000"));
  EXPECT_THAT(run.out, HasSubstr("out0[1,1]: got"));
  // A tolerance that covers the change accepts it.
  run = HloRun(
      {dir + "/module.hlo", "--inputs", dir, "--expect", dir, "--rtol=0.2"});
  EXPECT_EQ(run.code, kHloRunMatch) << run.out << run.err;
}

TEST(HloRunCorpusTest, Tf32AllowanceOnlyWithTheFlag) {
  // XLA:GPU ran batched_matmul's default-precision f32 dot in TF32: the
  // interpreter's full-precision outputs match only when hlo-run is told.
  const std::string dir = CaseDir("batched_matmul");
  const std::string module = CorpusFile("batched_matmul", "module.hlo");
  RunResult run = HloRun({module, "--inputs", dir, "--expect", dir});
  EXPECT_EQ(run.code, kHloRunMismatch) << run.out << run.err;
  run = HloRun({module, "--inputs", dir, "--expect", dir, "--expect-tf32"});
  EXPECT_EQ(run.code, kHloRunMatch) << run.out << run.err;
}

// Expected outputs of batched_matmul (f32[4,32,16] = in0[4,32,48] @
// in1[4,48,16]) with one real error each must fail, TF32 allowance or not.
TEST(HloRunCorpusTest, RealErrorsFailDespiteTheTf32Allowance) {
  const std::string dir = CopyCase("batched_matmul");
  absl::StatusOr<Literal> a = ReadNpy(dir + "/in0.npy");
  absl::StatusOr<Literal> b = ReadNpy(dir + "/in1.npy");
  absl::StatusOr<Literal> c = ReadNpy(dir + "/out0.npy");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  auto a_at = [&](int64_t i, int64_t k) {
    return a->data<float>()[i * 48 + k];
  };
  auto b_at = [&](int64_t k, int64_t j) {
    return b->data<float>()[k * 16 + j];
  };
  // The largest term of c[0,0,0] = sum_k a[0,0,k] * b[0,k,0].
  int64_t largest = 0;
  for (int64_t k = 1; k < 48; ++k) {
    if (std::fabs(a_at(0, k) * b_at(k, 0)) >
        std::fabs(a_at(0, largest) * b_at(largest, 0))) {
      largest = k;
    }
  }
  // The element of largest magnitude, for the 10% error.
  int64_t peak = 0;
  for (int64_t i = 1; i < c->element_count(); ++i) {
    if (std::fabs(c->data<float>()[i]) > std::fabs(c->data<float>()[peak])) {
      peak = i;
    }
  }
  struct Error {
    const char* what;
    std::function<void(float*)> apply;
    const char* mismatches;
  };
  const std::vector<Error> errors = {
      {"wrong index (c[0,0,0] and c[0,0,1] swapped)",
       [](float* v) { std::swap(v[0], v[1]); }, "2/2048"},
      {"dropped term (c[0,0,0] without its largest product)",
       [&](float* v) { v[0] -= a_at(0, largest) * b_at(largest, 0); },
       "1/2048"},
      {"one element off by 10%", [&](float* v) { v[peak] *= 1.1f; }, "1/2048"},
  };
  for (const Error& error : errors) {
    SCOPED_TRACE(error.what);
    Literal wrong = *c;
    error.apply(wrong.data<float>().data());
    ASSERT_TRUE(WriteNpy(dir + "/out0.npy", wrong).ok());
    RunResult run = HloRun({dir + "/module.hlo", "--inputs", dir, "--expect",
                            dir, "--expect-tf32"});
    EXPECT_EQ(run.code, kHloRunMismatch) << run.out << run.err;
    EXPECT_THAT(run.out, HasSubstr(error.mismatches)) << run.out;
  }
}

TEST(HloRunCorpusTest, SoftmaxBadInputs) {
  const std::string dir = CopyCase("softmax");
  fs::copy_file(CorpusFile("chain5", "in0.npy"), dir + "/in0.npy",
                fs::copy_options::overwrite_existing);
  RunResult run =
      HloRun({dir + "/module.hlo", "--inputs", dir, "--expect", dir});
  EXPECT_EQ(run.code, kHloRunBadInput) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("parameter 0 ("));
  EXPECT_THAT(run.err, HasSubstr("in0.npy holds f32["));

  fs::remove(dir + "/in0.npy");
  run = HloRun({dir + "/module.hlo", "--inputs", dir});
  EXPECT_EQ(run.code, kHloRunBadInput);
  EXPECT_THAT(run.err, HasSubstr("in0.npy: cannot open"));
}

TEST(HloRunCorpusTest, UnsupportedOpIsARunFailure) {
  // XLA:GPU rewrote this convolution into a cuDNN custom-call, which the
  // interpreter does not run by design.
  const std::string dir = CaseDir("conv_stride2");
  RunResult run = HloRun({CorpusFile("conv_stride2", "xla_gpu_opt.hlo"),
                          "--inputs", dir, "--expect", dir});
  EXPECT_EQ(run.code, kHloRunFailed) << run.out << run.err;
  EXPECT_THAT(run.err, HasSubstr("interpreter failed to run"));
  EXPECT_THAT(run.err, HasSubstr("custom-call"));
}

TEST(HloRunCorpusTest, RandomInputsRunEveryCase) {
  for (const std::string& name : CorpusCases()) {
    SCOPED_TRACE(name);
    RunResult run =
        HloRun({CorpusFile(name, "module.hlo"), "--random-inputs=7"});
    EXPECT_EQ(run.code, kHloRunMatch) << run.err;
  }
}

}  // namespace
}  // namespace hloc

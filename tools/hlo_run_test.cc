#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "runtime/npy.h"
#include "tools/hlo_run_lib.h"

namespace hloc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

const char kCase[] = "tools/testdata/add_mul";
const char kModule[] = "tools/testdata/add_mul/module.hlo";

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

// A fresh directory under the test's temporary directory.
std::string TempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  fs::path dir = fs::path(tmp ? tmp : "/tmp") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// Copies the add_mul case into a scratch directory to be edited.
std::string CopyCase(const std::string& name) {
  const std::string dir = TempDir(name);
  for (const auto& entry : fs::directory_iterator(kCase)) {
    fs::copy_file(entry.path(), fs::path(dir) / entry.path().filename());
  }
  return dir;
}

TEST(HloRunTest, MatchesExpectedOutputs) {
  RunResult run =
      HloRun({kModule, absl::StrCat("--inputs=", kCase), "--expect", kCase});
  EXPECT_EQ(run.code, kHloRunMatch) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("out0    f32[2,3]"));
  // It has a reduce: accumulating, atol at least 1e-5 x max |out0| (8.4375).
  EXPECT_THAT(run.out, HasSubstr("rtol=0.0001 atol=8.4375e-05"));
  EXPECT_THAT(run.out, HasSubstr("out2    pred[2,3]"));
  EXPECT_THAT(run.out, HasSubstr("exact"));
  EXPECT_THAT(run.out, HasSubstr("all outputs match"));
  EXPECT_EQ(run.err, "");
}

TEST(HloRunTest, ReportsMismatches) {
  const std::string dir = CopyCase("mismatch");
  const std::string out1 = dir + "/out1.npy";
  absl::StatusOr<Literal> s = ReadNpy(out1);
  ASSERT_TRUE(s.ok()) << s.status();
  s->data<float>()[2] += 1e-3f;  // relative error ~1e-4 .. 1e-3
  ASSERT_TRUE(WriteNpy(out1, *s).ok());
  const std::string out2 = dir + "/out2.npy";
  absl::StatusOr<Literal> gt = ReadNpy(out2);
  ASSERT_TRUE(gt.ok());
  gt->data<bool>()[4] = !gt->data<bool>()[4];
  ASSERT_TRUE(WriteNpy(out2, *gt).ok());

  RunResult run = HloRun({kModule, "--inputs", dir, "--expect", dir});
  EXPECT_EQ(run.code, kHloRunMismatch) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr("1/3"));
  EXPECT_THAT(run.out, HasSubstr("out1[2]: got"));
  EXPECT_THAT(run.out, HasSubstr("out2[1,1]: got"));
  EXPECT_THAT(run.out, HasSubstr("MISMATCH"));

  // A looser float tolerance accepts out1; out2 (pred) stays exact.
  run = HloRun({kModule, "--inputs", dir, "--expect", dir, "--rtol=1e-2"});
  EXPECT_EQ(run.code, kHloRunMismatch);
  EXPECT_THAT(run.out, HasSubstr("rtol=0.01 atol=7.25e-05"));
  EXPECT_THAT(run.out, Not(HasSubstr("out1[2]")));
  EXPECT_THAT(run.out, HasSubstr("out2[1,1]"));

  gt->data<bool>()[4] = !gt->data<bool>()[4];
  ASSERT_TRUE(WriteNpy(out2, *gt).ok());
  run = HloRun({kModule, "--inputs", dir, "--expect", dir, "--rtol=1e-2"});
  EXPECT_EQ(run.code, kHloRunMatch) << run.out;
  run = HloRun(
      {kModule, "--inputs", dir, "--expect", dir, "--rtol=0", "--atol=1e-2"});
  EXPECT_EQ(run.code, kHloRunMatch) << run.out;
}

TEST(HloRunTest, ShapeMismatchOfAnExpectedOutput) {
  const std::string dir = CopyCase("shape_mismatch");
  ASSERT_TRUE(
      WriteNpy(dir + "/out1.npy",
               Literal::CreateR1<double>(F64, std::vector<double>{1, 2, 3}))
          .ok());
  RunResult run = HloRun({kModule, "--inputs", dir, "--expect", dir});
  EXPECT_EQ(run.code, kHloRunMismatch);
  EXPECT_THAT(run.out, HasSubstr("SHAPE MISMATCH"));
  EXPECT_THAT(run.out, HasSubstr("out1: got f32[3], expected f64[3]"));
}

TEST(HloRunTest, WritesOutputs) {
  const std::string out = TempDir("outputs") + "/sub";
  RunResult run = HloRun({kModule, "--inputs", kCase, "--output", out});
  EXPECT_EQ(run.code, kHloRunMatch) << run.err;
  EXPECT_THAT(run.out, HasSubstr("out1 f32[3] {"));
  EXPECT_THAT(run.out, HasSubstr("out2 pred[2,3] { { "));
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<Literal> got = ReadNpy(absl::StrCat(out, "/out", i, ".npy"));
    ASSERT_TRUE(got.ok()) << got.status();
  }
  // Feeding the written outputs back as expectations matches.
  run = HloRun({kModule, "--inputs", kCase, "--expect", out});
  EXPECT_EQ(run.code, kHloRunMatch) << run.out;
}

// A 2-replica all-reduce: per-device and shared inputs, per-device outputs
// and tables, and the count checks.
TEST(HloRunTest, ReplicasReadWriteAndComparePerDevice) {
  const std::string dir = TempDir("replicas");
  {
    std::ofstream module(dir + "/m.hlo");
    module << R"(HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (p: f32[2], q: f32[2]) -> f32[2] {
  %p = f32[2] parameter(0)
  %q = f32[2] parameter(1)
  %m = f32[2] multiply(%p, %q)
  ROOT %r = f32[2] all-reduce(%m), replica_groups={}, to_apply=%add
})";
  }
  auto vec = [](float a, float b) {
    Literal l(Shape::Array(F32, {2}));
    l.data<float>()[0] = a;
    l.data<float>()[1] = b;
    return l;
  };
  // p differs per device, q is shared.
  ASSERT_TRUE(WriteNpy(dir + "/in0.r0.npy", vec(1, 2)).ok());
  ASSERT_TRUE(WriteNpy(dir + "/in0.r1.npy", vec(3, 4)).ok());
  ASSERT_TRUE(WriteNpy(dir + "/in1.npy", vec(10, 100)).ok());
  const std::string out = dir + "/got";
  RunResult run = HloRun(
      {dir + "/m.hlo", "--replicas=2", "--inputs", dir, "--output", out});
  ASSERT_EQ(run.code, kHloRunMatch) << run.err;
  EXPECT_THAT(run.out, HasSubstr("device 1 (replica 1, partition 0):"));
  for (int k = 0; k < 2; ++k) {
    absl::StatusOr<Literal> got =
        ReadNpy(absl::StrCat(out, "/out0.r", k, ".npy"));
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->data<float>()[0], 40);
    EXPECT_EQ(got->data<float>()[1], 600);
  }
  // Device 1's expected output is wrong: a mismatch in its table only.
  ASSERT_TRUE(WriteNpy(dir + "/out0.r0.npy", vec(40, 600)).ok());
  ASSERT_TRUE(WriteNpy(dir + "/out0.r1.npy", vec(40, 601)).ok());
  run = HloRun(
      {dir + "/m.hlo", "--replicas=2", "--inputs", dir, "--expect", dir});
  EXPECT_EQ(run.code, kHloRunMismatch) << run.err;
  EXPECT_THAT(run.out, HasSubstr("out0.r1[1]: got 600, expected 601"));
  // Per-device files for 2 devices, a run of 3; a module of 2 replicas.
  run = HloRun({dir + "/m.hlo", "--replicas=3", "--inputs", dir});
  EXPECT_EQ(run.code, kHloRunBadInput);
  EXPECT_THAT(run.err, HasSubstr("in0.r2.npy"));
  {
    std::ofstream module(dir + "/two.hlo");
    module << "HloModule two, replica_count=2\n"
              "ENTRY %e (p: f32[2]) -> f32[2] {\n"
              "  ROOT %p = f32[2] parameter(0)\n}\n";
  }
  run = HloRun({dir + "/two.hlo", "--replicas=4", "--random-inputs=1"});
  EXPECT_EQ(run.code, kHloRunBadInput);
  EXPECT_THAT(run.err, HasSubstr("runs on 2 devices (replica_count=2"));
  // The cpu runs the devices on threads of its own, with the same results.
  run = HloRun({dir + "/m.hlo", "--replicas=2", "--inputs", dir, "--expect",
                dir, "--platform=cpu"});
  EXPECT_EQ(run.code, kHloRunMismatch) << run.err;
  EXPECT_THAT(run.out, HasSubstr("out0.r1[1]: got 600, expected 601"));
  EXPECT_THAT(run.out, HasSubstr("device 1 (replica 1, partition 0):"));
  run = HloRun(
      {dir + "/m.hlo", "--replicas=2", "--inputs", dir, "--platform=rocm"});
  EXPECT_EQ(run.code, kHloRunBadInput);
  EXPECT_THAT(run.err, HasSubstr("use --platform=interpreter or cpu"));
}

TEST(HloRunTest, RandomInputsAreDeterministic) {
  const std::string a = TempDir("random_a");
  const std::string b = TempDir("random_b");
  const std::string c = TempDir("random_c");
  ASSERT_EQ(HloRun({kModule, "--random-inputs=1", "--output", a}).code, 0);
  ASSERT_EQ(HloRun({kModule, "--random-inputs=1", "--output", b}).code, 0);
  ASSERT_EQ(HloRun({kModule, "--random-inputs=2", "--output", c}).code, 0);
  for (int i = 0; i < 2; ++i) {
    const std::string name = absl::StrCat("/out", i, ".npy");
    absl::StatusOr<Literal> la = ReadNpy(a + name);
    absl::StatusOr<Literal> lb = ReadNpy(b + name);
    absl::StatusOr<Literal> lc = ReadNpy(c + name);
    ASSERT_TRUE(la.ok() && lb.ok() && lc.ok());
    EXPECT_TRUE(*la == *lb);
    EXPECT_FALSE(*la == *lc);
  }
}

TEST(HloRunTest, RandomValuesPerType) {
  const PrimitiveType types[] = {PRED, S8,   S32, S64, U8,  U16,
                                 F16,  BF16, F32, F64, C64, C128};
  HloModule module("types");
  auto entry = std::make_unique<HloComputation>("entry");
  std::vector<HloInstruction*> parameters;
  for (PrimitiveType type : types) {
    parameters.push_back(entry->AddParameter(HloInstruction::CreateParameter(
        parameters.size(), Shape::Array(type, {1000}),
        absl::StrCat("p", parameters.size()))));
  }
  entry->AddInstruction(HloInstruction::CreateTuple(parameters));
  module.AddEntryComputation(std::move(entry));

  absl::StatusOr<std::vector<Literal>> inputs = RandomInputs(module, 3);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  ASSERT_EQ(inputs->size(), std::size(types));
  for (const Literal& input : *inputs) {
    const PrimitiveType type = input.element_type();
    SCOPED_TRACE(PrimitiveTypeName(type));
    ASSERT_EQ(input.shape(), Shape::Array(type, {1000}));
    double lo = 1e9, hi = -1e9;
    for (int64_t i = 0; i < 1000; ++i) {
      const complex128 v = input.GetAsComplex(i);
      // Non-complex values have imaginary part 0, inside every range.
      lo = std::min({lo, v.real(), v.imag()});
      hi = std::max({hi, v.real(), v.imag()});
    }
    if (type == PRED) {
      EXPECT_EQ(lo, 0);
      EXPECT_EQ(hi, 1);
    } else if (IsSignedIntegralType(type)) {
      EXPECT_EQ(lo, -8);
      EXPECT_EQ(hi, 8);
    } else if (IsUnsignedIntegralType(type)) {
      EXPECT_EQ(lo, 0);
      EXPECT_EQ(hi, 15);
    } else {
      EXPECT_GE(lo, -1);
      EXPECT_LT(lo, -0.9);
      EXPECT_LE(hi, 1);
      EXPECT_GT(hi, 0.9);
    }
  }
  // Same seed, same values; parameters differ from each other.
  absl::StatusOr<std::vector<Literal>> again = RandomInputs(module, 3);
  ASSERT_TRUE(again.ok());
  for (size_t i = 0; i < inputs->size(); ++i) {
    EXPECT_TRUE((*inputs)[i] == (*again)[i]);
  }
  EXPECT_NE((*inputs)[8].data<float>()[0], (*inputs)[9].data<double>()[0]);
}

TEST(HloRunTest, BadInputs) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string empty = TempDir("empty");
  const std::string extra = CopyCase("extra_input");
  fs::copy_file(fs::path(extra) / "in0.npy", fs::path(extra) / "in2.npy");
  const std::string wrong_shape = CopyCase("wrong_shape");
  ASSERT_TRUE(
      WriteNpy(wrong_shape + "/in1.npy", Literal(Shape::Array(F32, {3, 2})))
          .ok());
  const std::string wrong_type = CopyCase("wrong_type");
  ASSERT_TRUE(
      WriteNpy(wrong_type + "/in0.npy", Literal(Shape::Array(S32, {2, 3})))
          .ok());
  const std::string bad_npy = CopyCase("bad_npy");
  std::ofstream(bad_npy + "/in0.npy") << "not numpy";
  const std::string extra_out = CopyCase("extra_output");
  fs::copy_file(fs::path(extra_out) / "out0.npy",
                fs::path(extra_out) / "out3.npy");
  const std::string missing_out = CopyCase("missing_output");
  fs::remove(fs::path(missing_out) / "out2.npy");
  const std::string bad_module = TempDir("bad_module") + "/m.hlo";
  std::ofstream(bad_module) << "HloModule m\n\nENTRY e {\n  ROOT x = f32[] "
                               "bogus-op()\n}\n";

  const std::string unverified = TempDir("unverified") + "/m.hlo";
  std::ofstream(unverified) << "HloModule m\n\nENTRY e {\n  p = f32[3] "
                               "parameter(0)\n  ROOT a = f32[2] add(p, p)\n}\n";

  const std::vector<Case> cases = {
      {{}, "no module file given"},
      {{kModule, "--frobnicate"}, "unknown flag '--frobnicate'"},
      {{kModule, "--inputs"}, "flag --inputs needs a value"},
      {{kModule, "--rtol=x"}, "flag --rtol: 'x' is not a non-negative number"},
      {{kModule, "--atol=-1"},
       "flag --atol: '-1' is not a non-negative number"},
      {{kModule, "--random-inputs=abc"}, "not a non-negative integer"},
      {{kModule, "--inputs", kCase, "--random-inputs=1"}, "not both"},
      {{kModule, "other.hlo"}, "expected one module file, got 2"},
      {{kModule}, "the entry computation has 2 parameters; give --inputs"},
      {{kModule, "--platform=tpu", "--inputs", kCase},
       "unknown platform 'tpu' (available: interpreter, cpu, cuda, rocm)"},
      {{"/nonexistent/m.hlo", "--random-inputs=1"},
       "/nonexistent/m.hlo: cannot open"},
      {{"tools/testdata/add_mul/in0.npy"}, "cannot tell the format"},
      {{kModule, "--format=json"}, "unknown module format 'json'"},
      {{bad_module}, "m.hlo:"},
      {{unverified, "--random-inputs=1"},
       "m.hlo: the module does not verify: "},
      {{kModule, "--inputs", "/nonexistent"},
       "--inputs: /nonexistent is not a directory"},
      {{kModule, "--inputs", empty},
       "parameter 0 (x: f32[2,3]): " + empty + "/in0.npy: cannot open"},
      {{kModule, "--inputs", extra}, "in2.npy exists, but the entry"},
      {{kModule, "--inputs", wrong_shape},
       "parameter 1 (y: f32[2,3]): " + wrong_shape + "/in1.npy holds f32[3,2]"},
      {{kModule, "--inputs", wrong_type}, "holds s32[2,3]"},
      {{kModule, "--inputs", bad_npy}, "parameter 0 (x: f32[2,3]): "},
      {{kModule, "--inputs", kCase, "--expect", empty},
       "expected output 0: " + empty + "/out0.npy: cannot open"},
      {{kModule, "--inputs", kCase, "--expect", extra_out},
       "out3.npy exists, but the module has 3 outputs"},
      {{kModule, "--inputs", kCase, "--expect", missing_out},
       "expected output 2: "},
      {{kModule, "--inputs", kCase, "--output", kModule},
       "cannot create directory"},
      {{kModule, "--inputs", kCase, "--denormals=zero"},
       "flag --denormals: 'zero' is not flush or keep"},
      {{kModule, "--inputs", kCase, "--allow-excess-precision=yes"},
       "flag --allow-excess-precision: 'yes' is not true or false"},
  };
  for (const Case& c : cases) {
    RunResult run = HloRun(c.args);
    EXPECT_EQ(run.code, kHloRunBadInput) << c.message << "\n" << run.err;
    EXPECT_THAT(run.err, HasSubstr(c.message));
    EXPECT_THAT(run.err, HasSubstr("hlo-run: error: "));
  }
}

// XLA's runtimes flush f32 denormals: for x = [-1e-40, 1e-39], XLA:CPU's
// sqrt(x) is [-0, 0] and log(x) is [-inf, -inf] (IEEE: [NaN, 3.2e-20] and
// [NaN, -89.8]). hlo-run does the same on every platform unless
// --denormals=keep.
TEST(HloRunTest, DenormalsFlushedAsXlaDoes) {
  const std::string dir = TempDir("denormals");
  std::ofstream(dir + "/m.hlo")
      << "HloModule m\n\nENTRY e {\n  x = f32[2] parameter(0)\n"
         "  s = f32[2] sqrt(x)\n  l = f32[2] log(x)\n"
         "  ROOT t = (f32[2], f32[2]) tuple(s, l)\n}\n";
  const float inf = std::numeric_limits<float>::infinity();
  ASSERT_TRUE(
      WriteNpy(dir + "/in0.npy", Literal::CreateR1<float>(
                                     F32, std::vector<float>{-1e-40f, 1e-39f}))
          .ok());
  ASSERT_TRUE(
      WriteNpy(dir + "/out0.npy",
               Literal::CreateR1<float>(F32, std::vector<float>{-0.0f, 0.0f}))
          .ok());
  ASSERT_TRUE(
      WriteNpy(dir + "/out1.npy",
               Literal::CreateR1<float>(F32, std::vector<float>{-inf, -inf}))
          .ok());
  for (const char* platform : {"--platform=interpreter", "--platform=cpu"}) {
    SCOPED_TRACE(platform);
    RunResult run =
        HloRun({dir + "/m.hlo", platform, "--inputs", dir, "--expect", dir});
    EXPECT_EQ(run.code, kHloRunMatch) << run.out << run.err;
    run = HloRun({dir + "/m.hlo", platform, "--inputs", dir, "--expect", dir,
                  "--denormals=keep"});
    EXPECT_EQ(run.code, kHloRunMismatch) << run.out << run.err;
    EXPECT_THAT(run.out, HasSubstr("out0[0]: got nan, expected -0"));
    EXPECT_THAT(run.out, HasSubstr("out1[1]: got -89.8"));
  }
}

// A bitcast moves the bits exactly: XLA:CPU's bitcast-convert of a denormal
// f32 input is its bits, so the evaluator leaves an argument that only
// bitcasts read unflushed, and one that arithmetic also reads reaches its
// bitcasts unflushed and the arithmetic flushed.
TEST(HloRunTest, DenormalInputsBitcastExactly) {
  const std::string dir = TempDir("denormal_bitcast");
  std::ofstream(dir + "/m.hlo")
      << "HloModule m\n\nENTRY e {\n  x = f32[2] parameter(0)\n"
         "  y = f32[2] parameter(1)\n"
         "  b = u32[2] bitcast-convert(x)\n"
         "  c = u8[2,4] bitcast-convert(x)\n"
         "  n = f32[2] negate(y)\n  d = u32[2] bitcast-convert(y)\n"
         "  ROOT t = (u32[2], u8[2,4], f32[2], u32[2]) tuple(b, c, n, d)\n}\n";
  const std::vector<float> x = {1e-40f, -1e-40f};
  ASSERT_TRUE(
      WriteNpy(dir + "/in0.npy", Literal::CreateR1<float>(F32, x)).ok());
  ASSERT_TRUE(
      WriteNpy(dir + "/in1.npy", Literal::CreateR1<float>(F32, x)).ok());
  // 1e-40f is 0x000116C2.
  ASSERT_TRUE(
      WriteNpy(dir + "/out0.npy",
               Literal::CreateR1<uint32_t>(
                   U32, std::vector<uint32_t>{0x000116C2u, 0x800116C2u}))
          .ok());
  Literal bytes = Literal::CreateR1<uint8_t>(
      U8, std::vector<uint8_t>{0xC2, 0x16, 0x01, 0x00, 0xC2, 0x16, 0x01, 0x80});
  ASSERT_TRUE(WriteNpy(dir + "/out1.npy", bytes.Reshape({2, 4}).value()).ok());
  ASSERT_TRUE(
      WriteNpy(dir + "/out2.npy",
               Literal::CreateR1<float>(F32, std::vector<float>{-0.0f, 0.0f}))
          .ok());
  ASSERT_TRUE(
      WriteNpy(dir + "/out3.npy",
               Literal::CreateR1<uint32_t>(
                   U32, std::vector<uint32_t>{0x000116C2u, 0x800116C2u}))
          .ok());
  const RunResult run = HloRun({dir + "/m.hlo", "--platform=interpreter",
                                "--inputs", dir, "--expect", dir});
  EXPECT_EQ(run.code, kHloRunMatch) << run.out << run.err;
}

TEST(HloRunTest, Help) {
  RunResult run = HloRun({"--help"});
  EXPECT_EQ(run.code, 0);
  EXPECT_THAT(run.out, HasSubstr("usage: hlo-run MODULE.{hlo,pb,hloexe}"));
  EXPECT_THAT(run.out, HasSubstr("--random-inputs=VALUE  SEED: "));
}

}  // namespace
}  // namespace hloc

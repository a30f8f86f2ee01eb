// Scan kernels against the evaluator, bit for bit: the kernel folds every
// row in the evaluator's sequential order, so even float sums (and bf16,
// rounded after every step) must match exactly. Rows of 1, 7, 64, 1023 and
// 4097 elements along the last axis and axis 0 of 2D and 3D arrays,
// forward and reverse; sum, product, max, min in f32, f64, s32 and bf16;
// and, or on predicates and integers; f16 and other integer widths; other
// layouts; several inputs and carries. Everything compiles strictly
// (nothing may run in the evaluator), and every case runs once more with
// the OpenMP split forced on, so the split of rows and column blocks over
// threads is checked even on small arrays. Last, the cumulative ops as JAX
// lowers them (prefix reduce-windows) go through the CPU pipeline.
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"

namespace hloc {
namespace {

using testing_util::CompareLeaves;
using testing_util::MakeOpInput;

// Compares every leaf byte for byte, naming the first differing element.
void ExpectBitIdentical(const Literal& expected, const Literal& actual,
                        const std::string& what) {
  if (expected.shape().IsTuple()) {
    ASSERT_TRUE(actual.shape().IsTuple()) << what;
    ASSERT_EQ(expected.tuple_elements().size(), actual.tuple_elements().size())
        << what;
    for (size_t i = 0; i < expected.tuple_elements().size(); ++i) {
      ExpectBitIdentical(expected.tuple_elements()[i],
                         actual.tuple_elements()[i],
                         absl::StrCat(what, "{", i, "}"));
    }
    return;
  }
  ASSERT_EQ(expected.size_bytes(), actual.size_bytes()) << what;
  if (std::memcmp(expected.untyped_data(), actual.untyped_data(),
                  expected.size_bytes()) == 0) {
    return;
  }
  const int64_t width = expected.size_bytes() / expected.element_count();
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    if (std::memcmp(expected.untyped_data() + i * width,
                    actual.untyped_data() + i * width, width) != 0) {
      ADD_FAILURE() << what << ": element " << i << " is "
                    << actual.GetAsDouble(i) << ", the evaluator's "
                    << expected.GetAsDouble(i);
      return;
    }
  }
}

// Compiles `text` strictly (serially and with every loop forced parallel),
// runs it on generated inputs and compares with the evaluator bit for bit.
void CheckBitExact(const std::string& text, const std::string& what) {
  SCOPED_TRACE(what);
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "test");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<Literal> args;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    args.push_back(
        MakeOpInput(entry->parameter_instruction(i)->shape(), 7 + 13 * i));
  }
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  for (bool parallel : {false, true}) {
    CpuCompileOptions options;
    options.allow_fallback = false;
    options.codegen.parallel = parallel;
    options.codegen.min_parallel_elements = 0;
    absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
        CompileForCpu(**module, options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    absl::StatusOr<Literal> actual =
        (*executable)->Run(args, DenormalMode::kKeep);
    ASSERT_TRUE(actual.ok()) << actual.status();
    ExpectBitIdentical(*expected, *actual,
                       absl::StrCat(what, parallel ? " (parallel)" : ""));
  }
}

// A cumulative scan: body { x, c -> s = op(c, x); (s, s) }, the carry an
// input (so inits are arbitrary values, not just the op's identity).
std::string ScanModule(const std::string& type,
                       const std::vector<int64_t>& dims,
                       const std::string& layout, int64_t dim, bool reverse,
                       const std::string& op) {
  std::vector<int64_t> slice = dims;
  slice.erase(slice.begin() + dim);
  const std::string shape =
      absl::StrCat(type, "[", absl::StrJoin(dims, ","), "]", layout);
  const std::string carry =
      absl::StrCat(type, "[", absl::StrJoin(slice, ","), "]");
  return absl::StrReplaceAll(
      R"(
HloModule scan
body {
  x = $CARRY parameter(0)
  c = $CARRY parameter(1)
  s = $CARRY $OP(c, x)
  ROOT t = ($CARRY, $CARRY) tuple(s, s)
}
ENTRY main {
  x = $SHAPE parameter(0)
  init = $CARRY parameter(1)
  ROOT s = ($SHAPE, $CARRY) scan(x, init), dimensions={$DIM}, num_carries=1, $REVERSEis_associative=true, to_apply=body
}
)",
      {{"$SHAPE", shape},
       {"$CARRY", carry},
       {"$OP", op},
       {"$DIM", std::to_string(dim)},
       {"$REVERSE", reverse ? "is_reverse=true, " : ""}});
}

struct Case {
  std::vector<int64_t> dims;
  int64_t dim;
};

// The scanned extent n placed along the last axis and axis 0 of 2D and 3D
// arrays (the others small, so long rows stay quick in the evaluator).
std::vector<Case> CasesOfLength(int64_t n) {
  return {{{3, n}, 1}, {{n, 5}, 0}, {{2, 3, n}, 2}, {{n, 3, 4}, 0}};
}

std::string Describe(const std::string& type, const Case& c, bool reverse,
                     const std::string& op) {
  return absl::StrCat(op, " ", type, "[", absl::StrJoin(c.dims, ","), "] dim ",
                      c.dim, reverse ? " reverse" : "");
}

TEST(ScanTest, SumsAlongEveryRowLength) {
  for (int64_t n : {1, 7, 64, 1023, 4097}) {
    for (const Case& c : CasesOfLength(n)) {
      for (const char* type : {"f32", "f64", "s32", "bf16"}) {
        for (bool reverse : {false, true}) {
          CheckBitExact(ScanModule(type, c.dims, "", c.dim, reverse, "add"),
                        Describe(type, c, reverse, "add"));
        }
      }
    }
  }
}

TEST(ScanTest, EveryCombinerAndType) {
  for (const char* op : {"add", "multiply", "maximum", "minimum"}) {
    for (const char* type : {"f32", "f64", "s32", "bf16"}) {
      for (const Case& c :
           {Case{{4, 64}, 1}, Case{{64, 3, 5}, 0}, Case{{3, 33, 4}, 1}}) {
        for (bool reverse : {false, true}) {
          CheckBitExact(ScanModule(type, c.dims, "", c.dim, reverse, op),
                        Describe(type, c, reverse, op));
        }
      }
    }
  }
}

// The logical cumulative ops (jnp.cumulative any/all as and/or scans) on
// predicates and integers, and the other widths the evaluator computes:
// f16 (rounded per step like bf16), narrow and wide integers (wrapping).
TEST(ScanTest, LogicalCombinersAndOtherTypes) {
  for (const char* op : {"and", "or"}) {
    for (const char* type : {"pred", "u8", "s64"}) {
      for (const Case& c : {Case{{5, 70}, 1}, Case{{70, 2, 9}, 0}}) {
        CheckBitExact(ScanModule(type, c.dims, "", c.dim, false, op),
                      Describe(type, c, false, op));
      }
    }
  }
  for (const char* op : {"add", "multiply", "maximum"}) {
    for (const char* type : {"f16", "s8", "u32", "s64", "u64"}) {
      for (const Case& c : {Case{{5, 300}, 1}, Case{{300, 2, 9}, 0}}) {
        for (bool reverse : {false, true}) {
          CheckBitExact(ScanModule(type, c.dims, "", c.dim, reverse, op),
                        Describe(type, c, reverse, op));
        }
      }
    }
  }
}

// Column-major arrays: a scan along dimension 1 is then along the major
// axis (column blocks), along dimension 0 along the minor one (rows); a
// block count that does not divide the inner extent leaves a short block.
TEST(ScanTest, OtherLayouts) {
  for (int64_t dim : {0, 1}) {
    for (bool reverse : {false, true}) {
      CheckBitExact(ScanModule("f32", {300, 40}, "{0,1}", dim, reverse, "add"),
                    absl::StrCat("f32[300,40]{0,1} dim ", dim));
      CheckBitExact(
          ScanModule("s32", {5, 600, 7}, "{1,0,2}", dim, reverse, "maximum"),
          absl::StrCat("s32[5,600,7]{1,0,2} dim ", dim));
    }
  }
  CheckBitExact(ScanModule("f32", {3, 0}, "", 1, false, "add"), "empty rows");
  CheckBitExact(ScanModule("f32", {0, 3}, "", 1, false, "add"), "no rows");
}

// Two inputs and two carries of different types, outputs that are not the
// carries: a running sum, a running max, and the sum scaled by the input.
TEST(ScanTest, SeveralInputsAndCarries) {
  const std::string text = R"(
HloModule variadic
body {
  x = f32[$SLICE] parameter(0)
  i = s32[$SLICE] parameter(1)
  sum = f32[$SLICE] parameter(2)
  top = s32[$SLICE] parameter(3)
  s = f32[$SLICE] add(sum, x)
  m = s32[$SLICE] maximum(top, i)
  half = f32[] constant(0.5)
  h = f32[$SLICE] broadcast(half), dimensions={}
  y = f32[$SLICE] multiply(s, h)
  ROOT t = (f32[$SLICE], s32[$SLICE], f32[$SLICE], s32[$SLICE]) tuple(y, m, s, m)
}
ENTRY main {
  x = f32[$SHAPE] parameter(0)
  i = s32[$SHAPE] parameter(1)
  z = f32[$SLICE] parameter(2)
  lo = s32[$SLICE] parameter(3)
  ROOT r = (f32[$SHAPE], s32[$SHAPE], f32[$SLICE], s32[$SLICE]) scan(x, i, z, lo), dimensions={$DIM}, num_carries=2, $REVERSEto_apply=body
}
)";
  for (const auto& [shape, slice, dim] :
       {std::make_tuple("6,700", "6", 1), std::make_tuple("700,6", "6", 0),
        std::make_tuple("3,900,4", "3,4", 1)}) {
    for (bool reverse : {false, true}) {
      CheckBitExact(
          absl::StrReplaceAll(
              text, {{"$SHAPE", shape},
                     {"$SLICE", slice},
                     {"$DIM", std::to_string(dim)},
                     {"$REVERSE", reverse ? "is_reverse=true, " : ""}}),
          absl::StrCat("variadic [", shape, "] dim ", dim));
    }
  }
}

// jnp.cumsum / cumprod / cummax as JAX 0.10 lowers them: the CPU pipeline
// makes scans of them and compiles strictly. Forward scans fold in the
// reduce-window's own order (bit-exact); the reverse cumsum folds from the
// other end, so its floats get the usual accumulation tolerance.
TEST(ScanTest, CumulativeOpsThroughThePipeline) {
  const std::string text = R"(
HloModule cumulative
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mul {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] multiply(a, b)
}
max {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] maximum(a, b)
}
ENTRY main {
  x = f32[64,1024] parameter(0)
  i = s32[64,1024] parameter(1)
  zero = f32[] constant(0)
  one = f32[] constant(1)
  lowest = s32[] constant(-2147483648)
  cumsum = f32[64,1024] reduce-window(x, zero), window={size=1x1024 pad=0_0x1023_0}, to_apply=add
  cumprod = f32[64,1024] reduce-window(x, one), window={size=64x1 pad=63_0x0_0}, to_apply=mul
  cummax = s32[64,1024] reduce-window(i, lowest), window={size=1x1024 pad=0_0x1023_0}, to_apply=max
  revsum = f32[64,1024] reduce-window(x, zero), window={size=1x1024 pad=0_0x0_1023}, to_apply=add
  ROOT t = (f32[64,1024], f32[64,1024], s32[64,1024], f32[64,1024]) tuple(cumsum, cumprod, cummax, revsum)
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "test");
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  for (int64_t k = 0; k < 2; ++k) {
    args.push_back(MakeOpInput(
        (*module)->entry_computation()->parameter_instruction(k)->shape(),
        3 + k));
  }
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<Literal> actual = testing_util::RunOptimizedStrict(text, args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  for (int k = 0; k < 3; ++k) {
    ExpectBitIdentical(expected->tuple_elements()[k],
                       actual->tuple_elements()[k], absl::StrCat("output ", k));
  }
  CompareLeaves(expected->tuple_elements()[3], actual->tuple_elements()[3],
                "reverse cumsum");
}

}  // namespace
}  // namespace hloc

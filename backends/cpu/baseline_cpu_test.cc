// Kernels compiled for a baseline x86-64 CPU (x86-64-v2: SSE4.2, no AVX, no
// AVX-512, no AVX512-BF16, no F16C) and run on this host, whatever it has:
// every conversion between every supported element type and the
// elementwise ops on every element type, against the evaluator. Without
// F16C and AVX512-BF16, LLVM converts f16 and bf16 through compiler-rt
// builtins (__extendhfsf2, __truncsfhf2, __truncsfbf2) that the program
// must provide (runtime/kernel_symbols.h); this checks that nothing the
// code generator emits depends on the CPU the suite happens to run on.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/target_cpu.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "runtime/compare.h"

namespace hloc {
namespace {

constexpr char kBaselineCpu[] = "x86-64-v2";
// Already off on x86-64-v2; named so the intent survives a change of CPU.
constexpr char kBaselineFeatures[] = "-avx512f,-avx512bf16,-f16c";

const std::vector<PrimitiveType>& AllTypes() {
  static const auto* types = new std::vector<PrimitiveType>{
      PRED, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64};
  return *types;
}

std::string Name(PrimitiveType t) { return std::string(PrimitiveTypeName(t)); }

// Not a multiple of any vector width: vector loops and their remainders.
constexpr int64_t kElements = 101;

// Edge values first (the type's extremes, NaN, infinities, signed zeros,
// denormals, values just beyond each integer type's range and f16's), then
// pseudo-random ones: floats mostly small, some of any magnitude; integers
// over the whole range, half of them small (shift amounts, divisors).
Literal MakeInput(const Shape& shape, uint32_t seed) {
  Literal literal(shape);
  const PrimitiveType t = shape.element_type();
  std::mt19937_64 rng(seed);
  std::vector<double> floats = {0.0,
                                -0.0,
                                1.0,
                                -1.0,
                                0.5,
                                -2.5,
                                2.5,
                                3.5,
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN(),
                                65504.0,
                                65520.0,
                                -70000.0,
                                6e-8,
                                1e-40,
                                -1e-310,
                                127.5,
                                128.0,
                                -129.0,
                                255.5,
                                256.0,
                                32768.0,
                                -32769.0,
                                65536.0,
                                2147483648.0,
                                -2147483649.0,
                                4294967296.0,
                                9.3e18,
                                -9.3e18,
                                1.9e19,
                                3.4e38,
                                1e300};
  std::vector<int64_t> ints = {0,    1,   -1,  2,     -2,     7,     127,  128,
                               -129, 255, 256, 32767, -32768, 65535, 65536};
  if (t != PRED && !IsFloatingPointType(t)) {
    const int bits = BitWidth(t);
    const bool is_signed = IsSignedIntegralType(t);
    const int64_t max = bits == 64
                            ? std::numeric_limits<int64_t>::max()
                            : (int64_t{1} << (is_signed ? bits - 1 : bits)) - 1;
    ints.push_back(max);
    ints.push_back(max - 1);
    if (is_signed) {
      ints.push_back(-max - 1);
      ints.push_back(-max);
    }
  }
  for (int64_t i = 0; i < shape.ElementCount(); ++i) {
    const uint64_t r = rng();
    if (t == PRED) {
      literal.SetFromInt64(i, r & 1);
    } else if (IsFloatingPointType(t)) {
      double v;
      if (i < static_cast<int64_t>(floats.size())) {
        v = floats[i];
      } else if (r % 4 == 0) {
        v = std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng),
                       static_cast<int>(rng() % 140) - 70);
      } else {
        v = std::uniform_real_distribution<double>(-4, 4)(rng);
      }
      literal.SetFromDouble(i, v);
    } else if (i < static_cast<int64_t>(ints.size())) {
      literal.SetFromInt64(i, ints[i]);
    } else {
      literal.SetFromInt64(i, r % 2 == 0 ? static_cast<int64_t>(rng())
                                         : static_cast<int64_t>(rng() % 70));
    }
  }
  return literal;
}

struct Ops {
  std::vector<std::string> unary;   // same result type
  std::vector<std::string> binary;  // same result type
};

// The elementwise ops XLA defines on element type `t`.
Ops OpsOn(PrimitiveType t) {
  if (t == PRED) return {{"not"}, {"and", "or", "xor"}};
  if (IsFloatingPointType(t)) {
    return {{"abs",
             "negate",
             "sign",
             "ceil",
             "floor",
             "round-nearest-afz",
             "round-nearest-even",
             "sqrt",
             "rsqrt",
             "cbrt",
             "exponential",
             "exponential-minus-one",
             "log",
             "log-plus-one",
             "sine",
             "cosine",
             "tan",
             "tanh",
             "erf",
             "logistic"},
            {"add", "subtract", "multiply", "divide", "remainder", "maximum",
             "minimum", "power", "atan2"}};
  }
  Ops ops{{"not", "popcnt", "count-leading-zeros"},
          {"add", "subtract", "multiply", "divide", "remainder", "maximum",
           "minimum", "and", "or", "xor", "shift-left",
           "shift-right-arithmetic", "shift-right-logical"}};
  if (IsSignedIntegralType(t)) {
    ops.unary.insert(ops.unary.end(), {"abs", "negate", "sign"});
  }
  return ops;
}

// A module whose entry computes `results` (instruction lines naming
// parameters x and y of type `t`) and returns them as a tuple.
std::string Module(const std::string& name, PrimitiveType t,
                   const std::vector<std::string>& lines,
                   const std::vector<std::string>& shapes) {
  std::vector<std::string> roots;
  for (size_t i = 0; i < lines.size(); ++i)
    roots.push_back(absl::StrCat("r", i));
  std::string text = absl::StrCat("HloModule ", name, "\nENTRY main {\n");
  const std::string shape = absl::StrCat(Name(t), "[", kElements, "]");
  absl::StrAppend(&text, "  x = ", shape, " parameter(0)\n  y = ", shape,
                  " parameter(1)\n  p = pred[", kElements, "] parameter(2)\n");
  for (size_t i = 0; i < lines.size(); ++i) {
    absl::StrAppend(&text, "  r", i, " = ", shapes[i], " ", lines[i], "\n");
  }
  absl::StrAppend(&text, "  ROOT t = (", absl::StrJoin(shapes, ", "),
                  ") tuple(", absl::StrJoin(roots, ", "), ")\n}\n");
  return text;
}

CpuCompileOptions BaselineOptions() {
  CpuCompileOptions options;
  options.jit.cpu = kBaselineCpu;
  options.jit.cpu_features = kBaselineFeatures;
  options.jit.keep_asm = true;
  return options;
}

// Compiles `text` for the baseline CPU, runs it here and in the evaluator,
// and compares each output with `tolerance(its type)`. Returns the
// assembly.
template <typename ToleranceFn>
std::string CheckOnBaseline(const std::string& text, ToleranceFn tolerance) {
  auto module = ParseHloModule(text, "test");
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << text;
  if (!module.ok()) return "";
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<Literal> args;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    args.push_back(
        MakeInput(entry->parameter_instruction(i)->shape(), 11 + 31 * i));
  }
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  EXPECT_TRUE(expected.ok()) << expected.status() << "\n" << text;
  auto executable = CompileForCpu(**module, BaselineOptions());
  EXPECT_TRUE(executable.ok()) << executable.status() << "\n" << text;
  if (!expected.ok() || !executable.ok()) return "";
  EXPECT_EQ((*executable)->cpu_name(), kBaselineCpu);
  EXPECT_TRUE((*executable)->fallback_instructions().empty())
      << absl::StrJoin((*executable)->fallback_instructions(), ", ");
  // The inputs hold denormals and the evaluator is IEEE: keep them.
  absl::StatusOr<Literal> actual =
      (*executable)->Run(args, DenormalMode::kKeep);
  EXPECT_TRUE(actual.ok()) << actual.status();
  if (!actual.ok()) return "";
  for (size_t i = 0; i < expected->tuple_elements().size(); ++i) {
    const Literal& e = expected->tuple_elements()[i];
    const Literal& a = actual->tuple_elements()[i];
    const Tolerance tol = tolerance(e.element_type());
    ComparisonResult c = CompareLiterals(a, e, tol);
    std::string mismatches;
    for (const ElementMismatch& m : c.first_mismatches) {
      absl::StrAppend(&mismatches, "\n  ", m.ToString());
    }
    EXPECT_TRUE(c.ok())
        << (*module)->name() << " output " << i << " ("
        << entry->root_instruction()->operand(i)->ToShortString()
        << "): " << c.shape_message << c.mismatch_count << " of "
        << c.element_count << " differ (" << tol.ToString() << ")"
        << mismatches;
  }
  return (*executable)->assembly();
}

TEST(BaselineCpuTest, TheBaselineLacksWideVectorsAndConversionInstructions) {
  absl::StatusOr<TargetCpu> cpu =
      ResolveTargetCpu(kBaselineCpu, kBaselineFeatures);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ(cpu->name, kBaselineCpu);
  EXPECT_TRUE(cpu->Has("sse4.2")) << cpu->features;
  for (const char* feature : {"avx", "avx2", "avx512f", "avx512bf16", "f16c"}) {
    EXPECT_FALSE(cpu->Has(feature)) << feature << " in " << cpu->features;
  }
}

// Conversions are exact: both sides round to nearest even, saturate
// float -> integer (NaN -> 0) and wrap integer -> integer.
TEST(BaselineCpuTest, EveryConversionBetweenEveryType) {
  for (PrimitiveType from : AllTypes()) {
    std::vector<std::string> lines, shapes;
    for (PrimitiveType to : AllTypes()) {
      lines.push_back("convert(x)");
      shapes.push_back(absl::StrCat(Name(to), "[", kElements, "]"));
    }
    const std::string asm_text =
        CheckOnBaseline(Module("convert_" + Name(from), from, lines, shapes),
                        [](PrimitiveType) {
                          return Tolerance{0, 0};
                        });
    // The f16 conversions go through the builtins the program provides:
    // this host's F16C instructions are not used.
    if (from == F16) {
      EXPECT_NE(asm_text.find("__extendhfsf2"), std::string::npos);
    }
    if (from == F32) {
      EXPECT_NE(asm_text.find("__truncsfhf2"), std::string::npos);
    }
    EXPECT_EQ(asm_text.find("vcvtph2ps"), std::string::npos);
    EXPECT_EQ(asm_text.find("vcvtps2ph"), std::string::npos);
  }
}

TEST(BaselineCpuTest, ElementwiseOpsOnEveryType) {
  for (PrimitiveType t : AllTypes()) {
    const std::string shape = absl::StrCat(Name(t), "[", kElements, "]");
    const std::string pred = absl::StrCat("pred[", kElements, "]");
    std::vector<std::string> lines, shapes;
    const Ops ops = OpsOn(t);
    for (const std::string& op : ops.unary) {
      lines.push_back(op + "(x)");
      shapes.push_back(shape);
    }
    for (const std::string& op : ops.binary) {
      lines.push_back(op + "(x, y)");
      shapes.push_back(shape);
    }
    for (const char* dir : {"EQ", "NE", "LT", "GE"}) {
      lines.push_back(absl::StrCat("compare(x, y), direction=", dir));
      shapes.push_back(pred);
    }
    lines.push_back("select(p, x, y)");
    shapes.push_back(shape);
    if (t != PRED) {
      lines.push_back("clamp(y, x, y)");
      shapes.push_back(shape);
    }
    if (IsFloatingPointType(t)) {
      lines.push_back("is-finite(x)");
      shapes.push_back(pred);
    }
    CheckOnBaseline(Module("elementwise_" + Name(t), t, lines, shapes),
                    [](PrimitiveType type) {
                      return DefaultTolerance(type, /*accumulating=*/false);
                    });
  }
}

}  // namespace
}  // namespace hloc

// Complex numbers (c64, c128) on the CPU backend: every elementwise op XLA
// defines on them, conversions, layout ops, constants, sums and dots, each
// compiled (no evaluator fallback) and checked against the evaluator.
#include <complex>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"

namespace hloc {
namespace {

using testing_util::CheckAgainstEvaluator;

// Parts uniform in [-2, 2]; real types as MakeOpInput makes them.
Literal Input(const Shape& shape, uint32_t seed) {
  if (!IsComplexType(shape.element_type())) {
    return testing_util::MakeOpInput(shape, seed);
  }
  Literal literal(shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> part(-2.0, 2.0);
  for (int64_t i = 0; i < shape.ElementCount(); ++i) {
    const double re = part(rng), im = part(rng);
    if (shape.element_type() == C64) {
      literal.data<complex64>()[i] = complex64(re, im);
    } else {
      literal.data<complex128>()[i] = complex128(re, im);
    }
  }
  return literal;
}

// Compiles `text` (with $C for the complex type and $R for its component
// type), runs it on inputs from Input() and expects no fallback.
void Check(const std::string& text, PrimitiveType complex_type) {
  const bool wide = complex_type == C128;
  const std::string hlo = absl::StrReplaceAll(
      text, {{"$C", wide ? "c128" : "c64"}, {"$R", wide ? "f64" : "f32"}});
  SCOPED_TRACE(hlo);
  auto module = ParseHloModule(hlo, "test");
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  const HloComputation* entry = (*module)->entry_computation();
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    args.push_back(Input(entry->parameter_instruction(i)->shape(), 11 + i));
  }
  std::vector<std::string> fallbacks = CheckAgainstEvaluator(hlo, args);
  EXPECT_TRUE(fallbacks.empty())
      << "runs in the evaluator: " << absl::StrJoin(fallbacks, ", ");
}

class ComplexTest : public ::testing::TestWithParam<PrimitiveType> {};

TEST_P(ComplexTest, Arithmetic) {
  Check(R"(
HloModule m
fused {
  x = $C[7,5] parameter(0)
  y = $C[7,5] parameter(1)
  add = $C[7,5] add(x, y)
  sub = $C[7,5] subtract(add, y)
  mul = $C[7,5] multiply(sub, y)
  div = $C[7,5] divide(mul, x)
  ROOT neg = $C[7,5] negate(div)
}
ENTRY e {
  x = $C[7,5] parameter(0)
  y = $C[7,5] parameter(1)
  ROOT f = $C[7,5] fusion(x, y), kind=kLoop, calls=fused
}
)",
        GetParam());
}

TEST_P(ComplexTest, UnaryFunctions) {
  for (const char* op : {"abs", "sign", "exponential", "log", "sqrt", "rsqrt",
                         "sine", "cosine", "tanh", "tan",
                         "exponential-minus-one", "log-plus-one", "negate"}) {
    const std::string result =
        std::string(op) == "abs" ? "$R[33]" : "$C[33]";
    Check(absl::StrCat(R"(
HloModule m
ENTRY e {
  x = $C[33] parameter(0)
  ROOT r = )",
                       result, " ", op, "(x)\n}\n"),
          GetParam());
  }
}

TEST_P(ComplexTest, PartsConversionsAndCompare) {
  Check(R"(
HloModule m
ENTRY e {
  x = $C[4,6] parameter(0)
  y = $C[4,6] parameter(1)
  re = $R[4,6] real(x)
  im = $R[4,6] imag(y)
  z = $C[4,6] complex(re, im)
  eq = pred[4,6] compare(x, z), direction=EQ
  ne = pred[4,6] compare(y, z), direction=NE
  s = $C[4,6] select(ne, x, y)
  n = s32[4,6] convert(re)
  from_int = $C[4,6] convert(n)
  wide = c128[4,6] convert(s)
  narrow = c64[4,6] convert(wide)
  imag_of_real = $R[4,6] imag(re)
  ROOT t = ($R[4,6], pred[4,6], pred[4,6], $C[4,6], c64[4,6], $R[4,6]) tuple(re, eq, ne, from_int, narrow, imag_of_real)
}
)",
        GetParam());
}

TEST_P(ComplexTest, ConstantsAndLayoutOps) {
  Check(R"(
HloModule m
ENTRY e {
  x = $C[3,4] parameter(0)
  c = $C[] constant((1.5, -2))
  v = $C[4] constant({(1, 2), (3, -4), (0, 0.5), (-1, 0)})
  bc = $C[3,4] broadcast(c), dimensions={}
  bv = $C[3,4] broadcast(v), dimensions={1}
  sum = $C[3,4] add(x, bc)
  prod = $C[3,4] multiply(sum, bv)
  t = $C[4,3] transpose(prod), dimensions={1,0}
  r = $C[12] reshape(t)
  s = $C[5] slice(r), slice={[2:12:2]}
  ROOT cat = $C[17] concatenate(s, r), dimensions={0}
}
)",
        GetParam());
}

TEST_P(ComplexTest, Sums) {
  Check(R"(
HloModule m
add {
  a = $C[] parameter(0)
  b = $C[] parameter(1)
  ROOT s = $C[] add(a, b)
}
ENTRY e {
  x = $C[37,19] parameter(0)
  zero = $C[] constant((0, 0))
  rows = $C[37] reduce(x, zero), dimensions={1}, to_apply=add
  cols = $C[19] reduce(x, zero), dimensions={0}, to_apply=add
  all = $C[] reduce(x, zero), dimensions={0,1}, to_apply=add
  ROOT t = ($C[37], $C[19], $C[]) tuple(rows, cols, all)
}
)",
        GetParam());
}

TEST_P(ComplexTest, Dots) {
  Check(R"(
HloModule m
ENTRY e {
  a = $C[9,13] parameter(0)
  b = $C[13,6] parameter(1)
  c = $C[2,5,13] parameter(2)
  mm = $C[9,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bmm = $C[2,5,5] dot(c, c), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
  ROOT t = ($C[9,6], $C[2,5,5]) tuple(mm, bmm)
}
)",
        GetParam());
}

INSTANTIATE_TEST_SUITE_P(Types, ComplexTest, ::testing::Values(C64, C128),
                         [](const ::testing::TestParamInfo<PrimitiveType>& i) {
                           return std::string(PrimitiveTypeName(i.param));
                         });

}  // namespace
}  // namespace hloc

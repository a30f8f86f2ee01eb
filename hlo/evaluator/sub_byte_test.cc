// The evaluator on sub-byte integers: conversions as XLA:CPU computes them
// (from floats saturating, from integers wrapping), arithmetic wrapping to
// the type's bits, and the operations that read bits (shifts, clz,
// popcnt) seeing only the type's.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/test_util.h"
#include "hlo/sub_byte_int.h"

namespace hloc {
namespace {

using eval_test::MustRun;
using eval_test::Vec;

std::vector<int> AsInts(const Literal& literal) {
  std::vector<int> out;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    out.push_back(static_cast<int>(literal.GetAsInt64(i)));
  }
  return out;
}

// XLA:CPU's results (jax.jit(lambda x: x.astype(t).astype(jnp.int32))).
TEST(SubByteTest, FloatsSaturateAsXla) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {
      nan,    -nan,  inf,   -inf,  0.0f,  -0.0f,  0.4f,    -0.4f, 0.99f,
      -0.99f, 1.5f,  -1.5f, 2.5f,  -2.5f, 3.9f,   -3.9f,   7.0f,  -8.0f,
      7.9f,   -8.9f, 15.0f, 15.9f, 16.0f, 100.0f, -100.0f, 1e30f, -1e30f};
  const std::vector<std::pair<std::string, std::vector<int>>> expected = {
      {"s4", {0, 0,  7, -8, 0, 0,  0, 0, 0, 0, 1,  -1, 2, -2,
              3, -3, 7, -8, 7, -8, 7, 7, 7, 7, -8, 7,  -8}},
      {"u4", {0, 0, 15, 0, 0, 0, 0,  0,  0,  0,  1, 0,  2, 0,
              3, 0, 7,  0, 7, 0, 15, 15, 15, 15, 0, 15, 0}},
      {"s2", {0, 0,  1, -2, 0, 0,  0, 0, 0, 0, 1,  -1, 1, -2,
              1, -2, 1, -2, 1, -2, 1, 1, 1, 1, -2, 1,  -2}},
      {"u2", {0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0,
              3, 0, 3, 0, 3, 0, 3, 3, 3, 3, 0, 3, 0}},
  };
  for (const auto& [type, values] : expected) {
    for (const char* from : {"f32", "bf16", "f16"}) {
      const std::string hlo = absl::StrCat(
          "HloModule m\nENTRY e {\n  x = f32[27] parameter(0)\n"
          "  w = ",
          from, "[27] convert(x)\n  q = ", type,
          "[27] convert(w)\n  ROOT r = s32[27] convert(q)\n}\n");
      EXPECT_EQ(AsInts(MustRun(hlo, {Vec<float>(F32, x)})), values)
          << type << " from " << from;
    }
  }
}

// Every s4 (and u4) pair through every binary op: the result is the op on
// the values in 64 bits, wrapped to 4 bits; shifts of 4 or more (read as
// unsigned) give 0, or the sign for an arithmetic right shift.
TEST(SubByteTest, BinaryOpsWrapToFourBits) {
  std::vector<int8_t> a, b;
  for (int i = -8; i < 8; ++i) {
    for (int j = -8; j < 8; ++j) {
      a.push_back(static_cast<int8_t>(i));
      b.push_back(static_cast<int8_t>(j));
    }
  }
  const std::string hlo = R"(
HloModule m
ENTRY e {
  a = s4[256] parameter(0)
  b = s4[256] parameter(1)
  add = s4[256] add(a, b)
  mul = s4[256] multiply(a, b)
  div = s4[256] divide(a, b)
  shl = s4[256] shift-left(a, b)
  srl = s4[256] shift-right-logical(a, b)
  sra = s4[256] shift-right-arithmetic(a, b)
  ua = u4[256] convert(a)
  ub = u4[256] convert(b)
  usra = u4[256] shift-right-arithmetic(ua, ub)
  umul = u4[256] multiply(ua, ub)
  ROOT t = (s4[256], s4[256], s4[256], s4[256], s4[256], s4[256], u4[256], u4[256]) tuple(add, mul, div, shl, srl, sra, usra, umul)
}
)";
  Literal r = MustRun(hlo, {Vec<int8_t>(S4, a), Vec<int8_t>(S4, b)});
  ASSERT_EQ(r.tuple_elements().size(), 8u);
  auto wrap = [](int64_t v) {
    return static_cast<int>(WrapToBits(v, 4, true));
  };
  for (int k = 0; k < 256; ++k) {
    const int x = a[k], y = b[k];
    const unsigned ux = x & 15, uy = y & 15;
    const int div = y == 0 ? -1 : (x == -8 && y == -1 ? -8 : x / y);
    const int expected[8] = {
        wrap(x + y),
        wrap(x * y),
        div,
        uy >= 4 ? 0 : wrap(static_cast<int>(ux << uy)),
        uy >= 4 ? 0 : static_cast<int>(wrap(ux >> uy)),
        uy >= 4 ? (x < 0 ? -1 : 0) : x >> uy,
        static_cast<int>((uy >= 4 ? (x < 0 ? -1 : 0) : x >> uy) & 15),
        static_cast<int>((ux * uy) & 15)};
    for (int o = 0; o < 8; ++o) {
      EXPECT_EQ(r.tuple_elements()[o].GetAsInt64(k), expected[o])
          << "output " << o << " of " << x << ", " << y;
    }
  }
}

TEST(SubByteTest, UnaryOpsSeeTheTypesBits) {
  std::vector<int8_t> a;
  for (int i = -8; i < 8; ++i) a.push_back(static_cast<int8_t>(i));
  const std::string hlo = R"(
HloModule m
ENTRY e {
  a = s4[16] parameter(0)
  neg = s4[16] negate(a)
  abs = s4[16] abs(a)
  clz = s4[16] count-leading-zeros(a)
  pop = s4[16] popcnt(a)
  u = u4[16] convert(a)
  not = u4[16] not(u)
  uclz = u4[16] count-leading-zeros(u)
  ROOT t = (s4[16], s4[16], s4[16], s4[16], u4[16], u4[16]) tuple(neg, abs, clz, pop, not, uclz)
}
)";
  Literal r = MustRun(hlo, {Vec<int8_t>(S4, a)});
  EXPECT_EQ(AsInts(r.tuple_elements()[0]),
            (std::vector<int>{-8, 7, 6, 5, 4, 3, 2, 1, 0, -1, -2, -3, -4, -5,
                              -6, -7}));
  EXPECT_EQ(
      AsInts(r.tuple_elements()[1]),
      (std::vector<int>{-8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(AsInts(r.tuple_elements()[2]),
            (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0, 4, 3, 2, 2, 1, 1, 1, 1}));
  EXPECT_EQ(AsInts(r.tuple_elements()[3]),
            (std::vector<int>{1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3}));
  EXPECT_EQ(
      AsInts(r.tuple_elements()[4]),
      (std::vector<int>{7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8}));
  EXPECT_EQ(AsInts(r.tuple_elements()[5]), AsInts(r.tuple_elements()[2]));
}

// Reductions, iota and integer converts compute in 8 bits and wrap.
TEST(SubByteTest, ReductionsIotaAndConvertsWrap) {
  const std::string hlo = R"(
HloModule m
add {
  x = s4[] parameter(0)
  y = s4[] parameter(1)
  ROOT s = s4[] add(x, y)
}
ENTRY e {
  a = s32[6] parameter(0)
  q = s4[6] convert(a)
  zero = s4[] constant(0)
  sum = s4[] reduce(q, zero), dimensions={0}, to_apply=add
  i = u2[6] iota(), iota_dimension=0
  ROOT t = (s4[6], s4[], u2[6]) tuple(q, sum, i)
}
)";
  Literal r = MustRun(hlo, {Vec<int32_t>(S32, {7, 8, -9, 100, 5, 3})});
  EXPECT_EQ(AsInts(r.tuple_elements()[0]),
            (std::vector<int>{7, -8, 7, 4, 5, 3}));
  EXPECT_EQ(AsInts(r.tuple_elements()[1]), (std::vector<int>{2}));
  EXPECT_EQ(AsInts(r.tuple_elements()[2]),
            (std::vector<int>{0, 1, 2, 3, 0, 1}));
}

TEST(SubByteTest, ConstantsOutOfRangeAreErrors) {
  absl::StatusOr<Literal> r = eval_test::RunHlo(
      "HloModule m\nENTRY e {\n  ROOT c = s4[] constant(9)\n}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("out of range for s4"), std::string::npos)
      << r.status();
}

}  // namespace
}  // namespace hloc

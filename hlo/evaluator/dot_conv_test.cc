// dot (batch and contracting dimension numbers, mixed operand types, wider
// accumulation, complex, exact agreement with a sequential reference) and
// convolution (dimension labels, padding, strides, lhs/rhs dilation, window
// reversal, feature and batch groups).
#include <complex>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/test_util.h"

namespace hloc {
namespace {

using eval_test::ExpectFloats;
using eval_test::Make;
using eval_test::MustRun;
using eval_test::Values;
using eval_test::Vec;

std::vector<float> Pattern(int64_t n, int seed) {
  std::vector<float> v(n);
  uint32_t x = 2463534242u + seed;
  for (int64_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    v[i] = static_cast<float>(static_cast<int32_t>(x % 2001) - 1000) / 337.0f;
  }
  return v;
}

TEST(DotTest, MatrixProductsAndDimensionNumbers) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  v = f32[3] parameter(2)
  mm = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  mv = f32[2] dot(a, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  tt = f32[3,3] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
  outer = f32[2,3,3] dot(a, v), lhs_contracting_dims={}, rhs_contracting_dims={}
  ROOT t = (f32[2,2], f32[2], f32[3,3], f32[2,3,3]) tuple(mm, mv, tt, outer)
})";
  Literal r = MustRun(kHlo, {Make<float>(F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                             Make<float>(F32, {3, 2}, {1, 0, 0, 1, 2, 2}),
                             Vec<float>(F32, {1, -1, 2})});
  ExpectFloats(r.tuple_elements()[0], {7, 8, 16, 17});
  ExpectFloats(r.tuple_elements()[1], {5, 11});
  // tt[i,j] = sum_k a[k,i] * b[j,k]
  ExpectFloats(r.tuple_elements()[2], {1, 4, 10, 2, 5, 14, 3, 6, 18});
  const std::vector<double> outer = eval_test::AsDoubles(r.tuple_elements()[3]);
  EXPECT_EQ(outer[0], 1);
  EXPECT_EQ(outer[1], -1);
  EXPECT_EQ(outer[17], 12);
}

TEST(DotTest, BatchAndMultipleContractingDims) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[2,2,3] parameter(0)
  b = f32[2,3,1] parameter(1)
  bmm = f32[2,2,1] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0},
      lhs_contracting_dims={2}, rhs_contracting_dims={1}
  c = f32[2,3] parameter(2)
  full = f32[2] dot(a, c), lhs_contracting_dims={0,2}, rhs_contracting_dims={0,1}
  ROOT t = (f32[2,2,1], f32[2]) tuple(bmm, full)
})";
  Literal r = MustRun(
      kHlo, {Make<float>(F32, {2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 1, 1, 2, 2, 2}),
             Make<float>(F32, {2, 3, 1}, {1, 1, 1, 1, 2, 3}),
             Make<float>(F32, {2, 3}, {1, 0, 0, 0, 0, 1})});
  ExpectFloats(r.tuple_elements()[0], {6, 15, 6, 12});
  // full[j] = sum_{i,k} a[i,j,k] * c[i,k] = a[0,j,0] + a[1,j,2]
  ExpectFloats(r.tuple_elements()[1], {1 + 1, 4 + 2});
}

TEST(DotTest, MixedTypesAndWideAccumulation) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = bf16[2] parameter(0)
  b = bf16[2] parameter(1)
  f = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  i = s8[3] parameter(2)
  w = s32[] dot(i, i), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  h = f16[4096] parameter(3)
  s = f16[] dot(h, h), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  x = s32[2] parameter(4)
  o = s32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT t = (f32[], s32[], f16[], s32[]) tuple(f, w, s, o)
})";
  Literal r = MustRun(
      kHlo, {Vec<BFloat16>(BF16, {BFloat16(1.5f), BFloat16(3.0f)}),
             Vec<BFloat16>(BF16, {BFloat16(2.0f), BFloat16(0.5f)}),
             Vec<int8_t>(S8, {127, -128, 3}),
             Make<Half>(F16, {4096}, std::vector<Half>(4096, Half(1.0f))),
             Vec<int32_t>(S32, {65536, 65536})});
  ExpectFloats(r.tuple_elements()[0], {4.5});
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[1]),
            (std::vector<int32_t>{127 * 127 + 128 * 128 + 9}));
  // Summed in f32, rounded once: per-step f16 rounding would stop at 2048.
  ExpectFloats(r.tuple_elements()[2], {4096});
  // 2 * 2^32 wraps to 0 in s32.
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[3]), (std::vector<int32_t>{0}));
}

// A narrower result type rounds the f32 sum once; the operands are not
// rounded to bf16 first (1 + 2^-9 would become 1 and the sum 0).
TEST(DotTest, NarrowResultRoundsOnlyTheSum) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT d = bf16[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})";
  ExpectFloats(MustRun(kHlo, {Vec<float>(F32, {1.0f + 1.0f / 512.0f, -1.0f}),
                              Vec<float>(F32, {1.0f, 1.0f})}),
               {1.0 / 512.0});
}

TEST(DotTest, ComplexDot) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  re = f32[2] parameter(0)
  im = f32[2] parameter(1)
  z = c64[2] complex(re, im)
  d = c64[] dot(z, z), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  r = f32[] real(d)
  i = f32[] imag(d)
  ROOT t = (f32[], f32[]) tuple(r, i)
})";
  // (1+2i)^2 + (3-i)^2 = (-3+4i) + (8-6i) = 5 - 2i
  Literal r =
      MustRun(kHlo, {Vec<float>(F32, {1, 3}), Vec<float>(F32, {2, -1})});
  ExpectFloats(r.tuple_elements()[0], {5});
  ExpectFloats(r.tuple_elements()[1], {-2});
}

// Complex products in dots and convolutions are XLA's (ac - bd, ad + bc),
// as elementwise multiplies are: std::complex's operator* (C99 Annex G)
// made (-inf + nan i)^2 (inf, nan) where XLA and the code generators give
// (nan, nan), and recovered an infinity from (-inf + nan i)(0 + 1i) too.
TEST(DotTest, ComplexProductsAsXla) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  re = f32[2] parameter(0)
  im = f32[2] parameter(1)
  z = c64[2] complex(re, im)
  column = c64[2,1] reshape(z)
  x = c64[1,1] slice(column), slice={[0:1], [0:1]}
  y = c64[1,1] slice(column), slice={[1:2], [0:1]}
  sq = c64[1,1] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  xy = c64[1,1] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  x3 = c64[1,1,1] reshape(x)
  y3 = c64[1,1,1] reshape(y)
  conv = c64[1,1,1] convolution(x3, y3), window={size=1}, dim_labels=b0f_0io->b0f
  ROOT t = (c64[1,1], c64[1,1], c64[1,1,1]) tuple(sq, xy, conv)
})";
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // z = (-inf + nan i, 0 + 1i).
  Literal r = MustRun(kHlo, {Vec<float>(F32, {-inf, 0}),
                             Vec<float>(F32, {nan, 1})});
  const std::complex<float> sq = Values<std::complex<float>>(
      r.tuple_elements()[0])[0];
  EXPECT_TRUE(std::isnan(sq.real()));
  EXPECT_TRUE(std::isnan(sq.imag()));
  // (-inf + nan i)(0 + 1i) = (-inf * 0 - nan * 1, -inf * 1 + nan * 0).
  for (int t : {1, 2}) {
    const std::complex<float> p = Values<std::complex<float>>(
        r.tuple_elements()[t])[0];
    EXPECT_TRUE(std::isnan(p.real())) << t;
    EXPECT_TRUE(std::isnan(p.imag())) << t;
  }
}

// The blocked f32 kernel sums every output in order of k, like the naive
// loop, so results agree bit for bit (sizes exercise the edge tiles and the
// threaded split).
TEST(DotTest, F32MatchesSequentialReferenceExactly) {
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> sizes = {
      {67, 300, 29}, {256, 260, 256}};
  for (auto [m, k, n] : sizes) {
    const std::string shape_a =
        "f32[" + std::to_string(m) + "," + std::to_string(k) + "]";
    const std::string shape_b =
        "f32[" + std::to_string(k) + "," + std::to_string(n) + "]";
    const std::string shape_c =
        "f32[" + std::to_string(m) + "," + std::to_string(n) + "]";
    const std::string hlo = "HloModule m\nENTRY e {\n  a = " + shape_a +
                            " parameter(0)\n  b = " + shape_b +
                            " parameter(1)\n  ROOT c = " + shape_c +
                            " dot(a, b), lhs_contracting_dims={1}, "
                            "rhs_contracting_dims={0}\n}\n";
    std::vector<float> a = Pattern(m * k, 1), b = Pattern(k * n, 2);
    Literal r = MustRun(
        hlo, {Make<float>(F32, {m, k}, a), Make<float>(F32, {k, n}, b)});
    std::vector<float> got = Values<float>(r);
    int64_t mismatches = 0;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        float c = 0;
        for (int64_t kk = 0; kk < k; ++kk) c += a[i * k + kk] * b[kk * n + j];
        mismatches += got[i * n + j] != c;
      }
    }
    EXPECT_EQ(mismatches, 0) << m << "x" << k << "x" << n;
  }
}

const char* kConv1d = R"(
HloModule m
ENTRY e {
  x = f32[1,5,1] parameter(0)
  w = f32[3,1,1] parameter(1)
  plain = f32[1,3,1] convolution(x, w), window={size=3}, dim_labels=b0f_0io->b0f
  strided = f32[1,3,1] convolution(x, w), window={size=3 stride=2 pad=1_1}, dim_labels=b0f_0io->b0f
  reversed = f32[1,3,1] convolution(x, w), window={size=3 rhs_reversal=1}, dim_labels=b0f_0io->b0f
  w2 = f32[2,1,1] slice(w), slice={[0:2], [0:1], [0:1]}
  x3 = f32[1,3,1] slice(x), slice={[0:1], [0:3], [0:1]}
  lhs = f32[1,4,1] convolution(x3, w2), window={size=2 lhs_dilate=2}, dim_labels=b0f_0io->b0f
  rhs = f32[1,3,1] convolution(x, w2), window={size=2 rhs_dilate=2}, dim_labels=b0f_0io->b0f
  ROOT t = (f32[1,3,1], f32[1,3,1], f32[1,3,1], f32[1,4,1], f32[1,3,1]) tuple(plain, strided, reversed, lhs, rhs)
})";

TEST(ConvolutionTest, OneDimensionalWindows) {
  Literal r = MustRun(kConv1d, {Make<float>(F32, {1, 5, 1}, {1, 2, 3, 4, 5}),
                                Make<float>(F32, {3, 1, 1}, {1, 2, 3})});
  ExpectFloats(r.tuple_elements()[0], {14, 20, 26});
  ExpectFloats(r.tuple_elements()[1], {8, 20, 14});
  ExpectFloats(r.tuple_elements()[2], {10, 16, 22});
  ExpectFloats(r.tuple_elements()[3], {1, 4, 2, 6});
  ExpectFloats(r.tuple_elements()[4], {7, 10, 13});
}

// jnp.correlate(x, y, "full") of n samples is a convolution of window n
// padded by n - 1 on both sides. The evaluator tabulated the input
// coordinate of every (output, kernel position) pair, 2n^2 of them: 6.4
// GB for n = 20000, out of memory past about 35000. Here a 2^16 kernel over
// four samples (a 32 GB table), and a 2-D window partly in the padding.
TEST(ConvolutionTest, FullCorrelationOfALongKernel) {
  const int64_t k = int64_t{1} << 16;
  const std::string hlo =
      absl::StrCat(R"(
HloModule m
ENTRY e {
  x = f32[1,4,1] parameter(0)
  w = f32[)",
                   k, R"(,1,1] parameter(1)
  ROOT c = f32[1,)",
                   k + 3, R"(,1] convolution(x, w), window={size=)", k,
                   " pad=", k - 1, "_", k - 1, R"(}, dim_labels=b0f_0io->b0f
})");
  Literal r =
      MustRun(hlo, {Make<float>(F32, {1, 4, 1}, {1, 2, 3, 4}),
                    Make<float>(F32, {k, 1, 1}, std::vector<float>(k, 1.0f))});
  // Output o sums x over [o - k + 1, o]: 1, 3, 6, then 10 until the window
  // starts past x[0], then 9, 7, 4.
  std::vector<float> expected(k + 3, 10.0f);
  expected[0] = 1;
  expected[1] = 3;
  expected[2] = 6;
  expected[k] = 9;
  expected[k + 1] = 7;
  expected[k + 2] = 4;
  EXPECT_EQ(Values<float>(r), expected);

  const char* k2d = R"(
HloModule m
ENTRY e {
  x = f32[1,2,3,1] parameter(0)
  w = f32[2,2,1,1] parameter(1)
  ROOT c = f32[1,3,2,1] convolution(x, w), window={size=2x2 pad=1_1x0_0 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f
})";
  // Rows padded by one on each side, columns not: output (i, j) reads rows
  // i - 1 and i, columns j and j + 1, the kernel's columns reversed
  // ({10, 1}, {1000, 100}); the first and last rows half in the padding.
  Literal r2 =
      MustRun(k2d, {Make<float>(F32, {1, 2, 3, 1}, {1, 2, 3, 4, 5, 6}),
                    Make<float>(F32, {2, 2, 1, 1}, {1, 10, 100, 1000})});
  ExpectFloats(r2, {1200, 2300, 4512, 5623, 45, 56});
}

// A convolution without spatial dimensions (jax's conv_general_dilated
// with dimension_numbers ('NC', 'OI', 'NC')) is a matmul, grouped by
// features or batches. Its window is empty, and XLA's text and protos omit
// an empty window: the evaluator refused it for having none (zoo:
// conv_no_spatial_dims).
TEST(ConvolutionTest, NoSpatialDimensionsHasNoWindow) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[2,4] parameter(0)
  w = f32[2,4] parameter(1)
  dense = f32[2,2] convolution(x, w), dim_labels=bf_oi->bf
  w2 = f32[2,2] slice(w), slice={[0:2], [0:2]}
  grouped = f32[2,2] convolution(x, w2), dim_labels=bf_oi->bf, feature_group_count=2
  w3 = f32[4,2] reshape(w)
  batched = f32[2,1] convolution(x, w3), dim_labels=bf_io->fb, batch_group_count=2
  ROOT t = (f32[2,2], f32[2,2], f32[2,1]) tuple(dense, grouped, batched)
})";
  Literal r =
      MustRun(kHlo, {Make<float>(F32, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}),
                     Make<float>(F32, {2, 4}, {1, 0, 2, 0, 0, 1, 0, 3})});
  // dense: x . w^T.
  ExpectFloats(r.tuple_elements()[0], {7, 14, 19, 30});
  // grouped: output feature g reads input features 2g, 2g + 1 with w2's
  // row g ({1, 0} and {0, 1}).
  ExpectFloats(r.tuple_elements()[1], {1, 4, 5, 8});
  // batched: output feature g is x's batch g times column g of w3
  // ({1, 2, 0, 0} and {0, 0, 1, 3}); the output is [feature, batch].
  ExpectFloats(r.tuple_elements()[2], {5, 31});
}

TEST(ConvolutionTest, LayoutsAndGroups) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  x = f32[1,1,3,3] parameter(0)
  w = f32[1,1,2,2] parameter(1)
  nchw = f32[1,1,2,2] convolution(x, w), window={size=2x2}, dim_labels=bf01_oi01->bf01
  d = f32[1,3,2] parameter(2)
  dw = f32[1,1,2] parameter(3)
  depthwise = f32[1,3,2] convolution(d, dw), window={size=1}, dim_labels=b0f_0io->b0f, feature_group_count=2
  g = f32[2,1,1] parameter(4)
  batch = f32[1,1,2] convolution(g, dw), window={size=1}, dim_labels=b0f_0io->b0f, batch_group_count=2
  i = s32[1,3,1] parameter(5)
  iw = s32[2,1,1] parameter(6)
  ints = s32[1,2,1] convolution(i, iw), window={size=2}, dim_labels=b0f_0io->b0f
  ROOT t = (f32[1,1,2,2], f32[1,3,2], f32[1,1,2], s32[1,2,1]) tuple(nchw, depthwise, batch, ints)
})";
  Literal r = MustRun(
      kHlo, {Make<float>(F32, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
             Make<float>(F32, {1, 1, 2, 2}, {1, 0, 0, 1}),
             Make<float>(F32, {1, 3, 2}, {1, 2, 3, 4, 5, 6}),
             Make<float>(F32, {1, 1, 2}, {10, 100}),
             Make<float>(F32, {2, 1, 1}, {3, 4}),
             Make<int32_t>(S32, {1, 3, 1}, {1000000, 3000, -7}),
             Make<int32_t>(S32, {2, 1, 1}, {3000, 2})});
  ExpectFloats(r.tuple_elements()[0], {6, 8, 12, 14});
  ExpectFloats(r.tuple_elements()[1], {10, 200, 30, 400, 50, 600});
  ExpectFloats(r.tuple_elements()[2], {30, 400});
  // 1e6 * 3000 wraps in s32 arithmetic.
  EXPECT_EQ(
      Values<int32_t>(r.tuple_elements()[3]),
      (std::vector<int32_t>{
          static_cast<int32_t>(static_cast<uint32_t>(3000000000u + 6000u)),
          3000 * 3000 - 14}));
}

// NHWC x HWIO, stride 2, asymmetric padding, two feature groups: agrees
// exactly with a naive loop that sums kernel positions (row-major), then
// input features, for each output.
TEST(ConvolutionTest, MatchesNaiveReference) {
  const int64_t n = 2, h = 7, w = 6, c = 4, kh = 3, kw = 2, o = 6, g = 2;
  const int64_t oh = (h + 1 + 2 - kh) / 2 + 1, ow = (w + 0 + 1 - kw) / 2 + 1;
  const std::string hlo =
      "HloModule m\nENTRY e {\n  x = f32[2,7,6,4] parameter(0)\n"
      "  k = f32[3,2,2,6] parameter(1)\n  ROOT y = f32[2," +
      std::to_string(oh) + "," + std::to_string(ow) +
      ",6] convolution(x, k), window={size=3x2 stride=2x2 pad=1_2x0_1}, "
      "dim_labels=b01f_01io->b01f, feature_group_count=2\n}\n";
  std::vector<float> x = Pattern(n * h * w * c, 3),
                     k = Pattern(kh * kw * (c / g) * o, 4);
  Literal r = MustRun(hlo, {Make<float>(F32, {n, h, w, c}, x),
                            Make<float>(F32, {kh, kw, c / g, o}, k)});
  std::vector<float> got = Values<float>(r);
  int64_t mismatches = 0;
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t z = 0; z < ow; ++z) {
        for (int64_t f = 0; f < o; ++f) {
          const int64_t grp = f / (o / g);
          float acc = 0;
          for (int64_t i = 0; i < kh; ++i) {
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t iy = y * 2 - 1 + i, iz = z * 2 + j;
              if (iy < 0 || iy >= h || iz < 0 || iz >= w) continue;
              for (int64_t ci = 0; ci < c / g; ++ci) {
                acc += x[((b * h + iy) * w + iz) * c + grp * (c / g) + ci] *
                       k[((i * kw + j) * (c / g) + ci) * o + f];
              }
            }
          }
          mismatches += got[((b * oh + y) * ow + z) * o + f] != acc;
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace hloc

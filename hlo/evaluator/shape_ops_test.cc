// Shape and data-movement operations: broadcast, reshape, transpose, copy,
// bitcast (with layouts), slice, dynamic-slice and dynamic-update-slice
// (clamped starts), concatenate, pad (negative and interior), reverse, iota,
// gather and scatter (batching dimensions, out-of-bounds windows, variadic).
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/evaluator/test_util.h"

namespace hloc {
namespace {

using eval_test::ExpectFloats;
using eval_test::Make;
using eval_test::MustRun;
using eval_test::Values;
using eval_test::Vec;

Literal Iota(PrimitiveType type, std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  return Make<float>(type, dims, v);
}

TEST(ShapeOpsTest, Broadcast) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[2] parameter(1)
  x = f32[2,3] broadcast(a), dimensions={1}
  y = f32[2,3] broadcast(b), dimensions={0}
  ROOT t = (f32[2,3], f32[2,3]) tuple(x, y)
})";
  Literal r =
      MustRun(kHlo, {Vec<float>(F32, {1, 2, 3}), Vec<float>(F32, {7, 8})});
  ExpectFloats(r.tuple_elements()[0], {1, 2, 3, 1, 2, 3});
  ExpectFloats(r.tuple_elements()[1], {7, 7, 7, 8, 8, 8});
}

TEST(ShapeOpsTest, ReshapeTransposeReverse) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  r = f32[3,2] reshape(a)
  t = f32[3,2] transpose(a), dimensions={1,0}
  v = f32[2,3] reverse(a), dimensions={0,1}
  w = f32[2,3] reverse(a), dimensions={1}
  ROOT o = (f32[3,2], f32[3,2], f32[2,3], f32[2,3]) tuple(r, t, v, w)
})";
  Literal r = MustRun(kHlo, {Iota(F32, {2, 3})});
  ExpectFloats(r.tuple_elements()[0], {1, 2, 3, 4, 5, 6});
  ExpectFloats(r.tuple_elements()[1], {1, 4, 2, 5, 3, 6});
  ExpectFloats(r.tuple_elements()[2], {6, 5, 4, 3, 2, 1});
  ExpectFloats(r.tuple_elements()[3], {3, 2, 1, 6, 5, 4});
}

TEST(ShapeOpsTest, TransposeRank3AndLarge) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[2,3,4] parameter(0)
  ROOT t = f32[4,2,3] transpose(a), dimensions={2,0,1}
})";
  Literal a = Iota(F32, {2, 3, 4});
  Literal r = MustRun(kHlo, {a});
  std::vector<double> expected;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 3; ++k) expected.push_back(1 + j * 12 + k * 4 + i);
    }
  }
  ExpectFloats(r, expected);
  // Large enough for the tiled path.
  const char* kBig = R"(
HloModule m
ENTRY e {
  a = f32[70,45] parameter(0)
  ROOT t = f32[45,70] transpose(a), dimensions={1,0}
})";
  Literal big = Iota(F32, {70, 45});
  Literal rb = MustRun(kBig, {big});
  auto got = Values<float>(rb);
  bool ok = true;
  for (int i = 0; i < 45; ++i) {
    for (int j = 0; j < 70; ++j) ok &= got[i * 70 + j] == 1 + j * 45 + i;
  }
  EXPECT_TRUE(ok);
  // Large enough to be split across threads.
  const char* kHuge = R"(
HloModule m
ENTRY e {
  a = s32[1030,1200] iota(), iota_dimension=1
  b = s32[1030,1200] iota(), iota_dimension=0
  k = s32[] constant(10000)
  kb = s32[1030,1200] broadcast(k), dimensions={}
  m = s32[1030,1200] multiply(b, kb)
  v = s32[1030,1200] add(m, a)
  ROOT t = s32[1200,1030] transpose(v), dimensions={1,0}
})";
  auto huge = Values<int32_t>(MustRun(kHuge));
  ok = huge.size() == 1200u * 1030u;
  for (int i = 0; i < 1200 && ok; ++i) {
    for (int j = 0; j < 1030; ++j) ok &= huge[i * 1030 + j] == j * 10000 + i;
  }
  EXPECT_TRUE(ok);
}

TEST(ShapeOpsTest, CopyAndBitcastRespectLayouts) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[2,3]{1,0} parameter(0)
  c = f32[2,3]{0,1} copy(a)
  b = f32[6]{0} bitcast(c)
  d = f32[3,2]{0,1} bitcast(a)
  r = f32[3,2]{1,0} reshape(a)
  ROOT t = (f32[2,3]{0,1}, f32[6]{0}, f32[3,2]{0,1}, f32[3,2]{1,0}) tuple(c, b, d, r)
})";
  Literal r = MustRun(kHlo, {Iota(F32, {2, 3})});
  // copy changes only the layout: the logical values stay.
  ExpectFloats(r.tuple_elements()[0], {1, 2, 3, 4, 5, 6});
  // The column-major buffer of c read as f32[6].
  ExpectFloats(r.tuple_elements()[1], {1, 4, 2, 5, 3, 6});
  // a's row-major buffer read as a column-major [3,2]: a transpose.
  ExpectFloats(r.tuple_elements()[2], {1, 4, 2, 5, 3, 6});
  ExpectFloats(r.tuple_elements()[3], {1, 2, 3, 4, 5, 6});
}

TEST(ShapeOpsTest, SliceWithStrides) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[4,5] parameter(0)
  ROOT s = f32[2,3] slice(a), slice={[1:4:2], [0:5:2]}
})";
  ExpectFloats(MustRun(kHlo, {Iota(F32, {4, 5})}), {6, 8, 10, 16, 18, 20});
}

TEST(ShapeOpsTest, DynamicSliceClampsStartIndices) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = s32[5] parameter(0)
  i = s32[] parameter(1)
  ROOT d = s32[3] dynamic-slice(a, i), dynamic_slice_sizes={3}
})";
  Literal a = Vec<int32_t>(S32, {0, 1, 2, 3, 4});
  auto at = [&](int32_t start) {
    return Values<int32_t>(
        MustRun(kHlo, {a, Literal::CreateR0<int32_t>(S32, start)}));
  };
  EXPECT_EQ(at(1), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(at(3), (std::vector<int32_t>{2, 3, 4}));
  EXPECT_EQ(at(-2), (std::vector<int32_t>{0, 1, 2}));
  const char* k2d = R"(
HloModule m
ENTRY e {
  a = f32[3,4] parameter(0)
  i = u32[] constant(7)
  j = s64[] constant(1)
  ROOT d = f32[2,2] dynamic-slice(a, i, j), dynamic_slice_sizes={2,2}
})";
  ExpectFloats(MustRun(k2d, {Iota(F32, {3, 4})}), {6, 7, 10, 11});
}

// Unsigned starts are values, not bit patterns: a u8 of 200, a u32 above
// 2^31 and a u64 above 2^63 are all past the end and clamp to it (the
// cuda column of the conformance suite once clamped them to 0).
TEST(ShapeOpsTest, DynamicSliceClampsUnsignedStartsToTheEnd) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[3,4,5] parameter(0)
  b8 = u8[] constant(200)
  one8 = u8[] constant(1)
  b32 = u32[] constant(4000000000)
  one32 = u32[] constant(1)
  b64 = u64[] constant(9223372036854775813)
  one64 = u64[] constant(1)
  d8 = f32[1,1,1] dynamic-slice(a, b8, one8, b8), dynamic_slice_sizes={1,1,1}
  d32 = f32[1,1,1] dynamic-slice(a, one32, b32, b32), dynamic_slice_sizes={1,1,1}
  d64 = f32[1,1,1] dynamic-slice(a, b64, b64, one64), dynamic_slice_sizes={1,1,1}
  ROOT t = (f32[1,1,1], f32[1,1,1], f32[1,1,1]) tuple(d8, d32, d64)
})";
  // Iota counts from 1: element (i, j, k) holds 1 + 20i + 5j + k.
  Literal r = MustRun(kHlo, {Iota(F32, {3, 4, 5})});
  ExpectFloats(r.tuple_elements()[0], {1 + 2 * 20 + 1 * 5 + 4});
  ExpectFloats(r.tuple_elements()[1], {1 + 1 * 20 + 3 * 5 + 4});
  ExpectFloats(r.tuple_elements()[2], {1 + 2 * 20 + 3 * 5 + 1});
}

TEST(ShapeOpsTest, DynamicUpdateSliceClampsStartIndices) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[5] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[5] dynamic-update-slice(a, u, i)
})";
  Literal a = Vec<float>(F32, {0, 0, 0, 0, 0});
  Literal u = Vec<float>(F32, {7, 8});
  auto at = [&](int32_t start) {
    return MustRun(kHlo, {a, u, Literal::CreateR0<int32_t>(S32, start)});
  };
  ExpectFloats(at(1), {0, 7, 8, 0, 0});
  ExpectFloats(at(4), {0, 0, 0, 7, 8});
  ExpectFloats(at(-1), {7, 8, 0, 0, 0});
}

TEST(ShapeOpsTest, Concatenate) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[2,1] parameter(0)
  b = f32[2,2] parameter(1)
  c = f32[2,3] concatenate(a, b), dimensions={1}
  d = f32[4,1] concatenate(a, a), dimensions={0}
  ROOT t = (f32[2,3], f32[4,1]) tuple(c, d)
})";
  Literal r = MustRun(kHlo, {Make<float>(F32, {2, 1}, {1, 2}),
                             Make<float>(F32, {2, 2}, {3, 4, 5, 6})});
  ExpectFloats(r.tuple_elements()[0], {1, 3, 4, 2, 5, 6});
  ExpectFloats(r.tuple_elements()[1], {1, 2, 1, 2});
}

TEST(ShapeOpsTest, PadNegativeAndInterior) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  z = f32[] constant(0)
  ROOT p = f32[6] pad(a, z), padding=-1_2_1
})";
  ExpectFloats(MustRun(kHlo, {Vec<float>(F32, {1, 2, 3})}), {0, 2, 0, 3, 0, 0});
  const char* k2d = R"(
HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  z = f32[] constant(9)
  ROOT p = f32[3,4] pad(a, z), padding=1_0x0_1_1
})";
  ExpectFloats(MustRun(k2d, {Make<float>(F32, {2, 2}, {1, 2, 3, 4})}),
               {9, 9, 9, 9, 1, 9, 2, 9, 3, 9, 4, 9});
  const char* kCrop = R"(
HloModule m
ENTRY e {
  a = s32[5] parameter(0)
  z = s32[] constant(-1)
  ROOT p = s32[2] pad(a, z), padding=-2_-1
})";
  EXPECT_EQ(
      Values<int32_t>(MustRun(kCrop, {Vec<int32_t>(S32, {1, 2, 3, 4, 5})})),
      (std::vector<int32_t>{3, 4}));
}

TEST(ShapeOpsTest, Iota) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[2,3] iota(), iota_dimension=1
  b = s32[2,3] iota(), iota_dimension=0
  c = bf16[4] iota(), iota_dimension=0
  ROOT t = (f32[2,3], s32[2,3], bf16[4]) tuple(a, b, c)
})";
  Literal r = MustRun(kHlo);
  ExpectFloats(r.tuple_elements()[0], {0, 1, 2, 0, 1, 2});
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[1]),
            (std::vector<int32_t>{0, 0, 0, 1, 1, 1}));
  ExpectFloats(r.tuple_elements()[2], {0, 1, 2, 3});
}

TEST(ShapeOpsTest, GetDimensionSize) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[2,7] parameter(0)
  ROOT s = s32[] get-dimension-size(a), dimensions={1}
})";
  EXPECT_EQ(Values<int32_t>(MustRun(kHlo, {Iota(F32, {2, 7})})),
            (std::vector<int32_t>{7}));
}

TEST(ShapeOpsTest, GatherTakeRowsWithClampedIndices) {
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[3,2] parameter(0)
  i = s32[3] parameter(1)
  ROOT g = f32[3,2] gather(a, i), offset_dims={1}, collapsed_slice_dims={0},
      start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}
})";
  ExpectFloats(MustRun(kHlo, {Make<float>(F32, {3, 2}, {1, 2, 3, 4, 5, 6}),
                              Vec<int32_t>(S32, {2, 0, 5})}),
               {5, 6, 1, 2, 5, 6});
}

TEST(ShapeOpsTest, GatherWindowsAndBatchingDims) {
  // 2x2 windows at two (row, col) starts; the second is clamped in.
  const char* kHlo = R"(
HloModule m
ENTRY e {
  a = f32[3,4] parameter(0)
  i = s32[2,2] parameter(1)
  ROOT g = f32[2,2,2] gather(a, i), offset_dims={1,2}, collapsed_slice_dims={},
      start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,2}
})";
  ExpectFloats(MustRun(kHlo, {Iota(F32, {3, 4}),
                              Make<int32_t>(S32, {2, 2}, {0, 1, 5, 3})}),
               {2, 3, 6, 7, 7, 8, 11, 12});
  // Per batch row b: a[b, i[b]].
  const char* kBatch = R"(
HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  i = s32[2,1] parameter(1)
  ROOT g = f32[2] gather(a, i), offset_dims={}, collapsed_slice_dims={1},
      start_index_map={1}, operand_batching_dims={0},
      start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1}
})";
  ExpectFloats(
      MustRun(kBatch, {Iota(F32, {2, 3}), Make<int32_t>(S32, {2, 1}, {2, 0})}),
      {3, 4});
}

const char* kAdd = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

TEST(ShapeOpsTest, ScatterAddWithDuplicatesAndOutOfBoundsIndices) {
  std::string hlo = std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  a = f32[4] parameter(0)
  i = s32[5,1] parameter(1)
  u = f32[5] parameter(2)
  ROOT s = f32[4] scatter(a, i, u), update_window_dims={},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
      index_vector_dim=1, to_apply=add
})";
  ExpectFloats(MustRun(hlo, {Vec<float>(F32, {1, 1, 1, 1}),
                             Make<int32_t>(S32, {5, 1}, {1, 3, 1, 4, -1}),
                             Vec<float>(F32, {10, 20, 30, 40, 50})}),
               {1, 41, 1, 21});
}

TEST(ShapeOpsTest, ScatterWindowsSkipWhenNotFitting) {
  std::string hlo = std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  a = f32[3,3] parameter(0)
  i = s32[2,2] parameter(1)
  u = f32[2,2,2] parameter(2)
  ROOT s = f32[3,3] scatter(a, i, u), update_window_dims={1,2},
      inserted_window_dims={}, scatter_dims_to_operand_dims={0,1},
      index_vector_dim=1, to_apply=add
})";
  ExpectFloats(
      MustRun(hlo, {Make<float>(F32, {3, 3}, std::vector<float>(9, 0)),
                    Make<int32_t>(S32, {2, 2}, {1, 1, 2, 1}),
                    Make<float>(F32, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}),
      {0, 0, 0, 0, 1, 2, 0, 3, 4});
}

TEST(ShapeOpsTest, ScatterOverwriteVariadicAndBatching) {
  const char* kHlo = R"(
HloModule m
assign {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] copy(y)
}
pair {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  u0 = f32[] parameter(2)
  u1 = s32[] parameter(3)
  s = f32[] add(a0, u0)
  m = s32[] maximum(a1, u1)
  ROOT t = (f32[], s32[]) tuple(s, m)
}
ENTRY e {
  a = s32[4] parameter(0)
  i = s32[2,1] parameter(1)
  u = s32[2] parameter(2)
  over = s32[4] scatter(a, i, u), update_window_dims={},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
      index_vector_dim=1, to_apply=assign
  f = f32[4] convert(a)
  uf = f32[2] convert(u)
  both = (f32[4], s32[4]) scatter(f, a, i, uf, u), update_window_dims={},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0},
      index_vector_dim=1, to_apply=pair
  b0 = f32[4] get-tuple-element(both), index=0
  b1 = s32[4] get-tuple-element(both), index=1
  ROOT t = (s32[4], f32[4], s32[4]) tuple(over, b0, b1)
})";
  Literal r = MustRun(
      kHlo, {Vec<int32_t>(S32, {5, 5, 5, 5}),
             Make<int32_t>(S32, {2, 1}, {2, 0}), Vec<int32_t>(S32, {9, 1})});
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[0]),
            (std::vector<int32_t>{1, 5, 9, 5}));
  ExpectFloats(r.tuple_elements()[1], {6, 5, 14, 5});
  EXPECT_EQ(Values<int32_t>(r.tuple_elements()[2]),
            (std::vector<int32_t>{5, 5, 9, 5}));

  std::string batch = std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  a = f32[2,3] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2] parameter(2)
  ROOT s = f32[2,3] scatter(a, i, u), update_window_dims={},
      inserted_window_dims={1}, input_batching_dims={0},
      scatter_indices_batching_dims={0}, scatter_dims_to_operand_dims={1},
      index_vector_dim=1, to_apply=add
})";
  ExpectFloats(
      MustRun(batch,
              {Make<float>(F32, {2, 3}, std::vector<float>(6, 0)),
               Make<int32_t>(S32, {2, 1}, {2, 0}), Vec<float>(F32, {5, 7})}),
      {0, 0, 5, 7, 0, 0});
}

}  // namespace
}  // namespace hloc

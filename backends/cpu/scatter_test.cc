// Scatter kernels against the evaluator: add (with duplicate and out of
// bounds indices) and overwrite, implicit and explicit index vectors,
// windows that do not fit, several operands with a tuple combiner,
// batching dimensions, layouts and index types. None may fall back.
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"

namespace hloc {
namespace {

using testing_util::CheckAgainstEvaluator;
using testing_util::MakeOpInput;

// Indices in [lo, hi], duplicates likely, some out of bounds.
Literal Indices(const Shape& shape, int64_t lo, int64_t hi, uint32_t seed) {
  Literal literal(shape);
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < shape.ElementCount(); ++i) {
    literal.SetFromInt64(i,
                         std::uniform_int_distribution<int64_t>(lo, hi)(rng));
  }
  return literal;
}

Shape S(const std::string& text) {
  // "f32[3,4]" -> Shape (row-major).
  PrimitiveType type = F32;
  std::string name = text.substr(0, text.find('['));
  for (PrimitiveType t : {F32, S32, S64, U32, F16, U8}) {
    if (PrimitiveTypeName(t) == name) type = t;
  }
  std::vector<int64_t> dims;
  std::string inner = text.substr(text.find('[') + 1);
  inner = inner.substr(0, inner.find(']'));
  size_t pos = 0;
  while (pos < inner.size()) {
    size_t next = inner.find(',', pos);
    if (next == std::string::npos) next = inner.size();
    dims.push_back(std::stoll(inner.substr(pos, next - pos)));
    pos = next + 1;
  }
  return Shape::Array(type, dims);
}

const char kAdd[] = R"(
add {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  ROOT c = $T[] add(a, b)
}
)";

TEST(ScatterTest, AddWithDuplicatesAndOutOfBounds) {
  const std::string text =
      absl::StrReplaceAll(std::string("HloModule scatter_add\n") + kAdd + R"(
ENTRY main {
  t = f32[100,8] parameter(0)
  i = s32[50,1] parameter(1)
  u = f32[50,8] parameter(2)
  ROOT s = f32[100,8] scatter(t, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)",
                          {{"$T", "f32"}});
  EXPECT_TRUE(CheckAgainstEvaluator(text, {MakeOpInput(S("f32[100,8]"), 1),
                                           Indices(S("s32[50,1]"), -3, 102, 2),
                                           MakeOpInput(S("f32[50,8]"), 3)})
                  .empty());
}

TEST(ScatterTest, OverwriteWithImplicitIndexVector) {
  EXPECT_TRUE(
      CheckAgainstEvaluator(
          R"(
HloModule scatter_set
set {
  a = s32[] parameter(0)
  ROOT b = s32[] parameter(1)
}
ENTRY main {
  t = s32[40] parameter(0)
  i = s64[30] parameter(1)
  u = s32[30] parameter(2)
  ROOT s = s32[40] scatter(t, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=set
}
)",
          {MakeOpInput(S("s32[40]"), 4), Indices(S("s64[30]"), -1, 41, 5),
           MakeOpInput(S("s32[30]"), 6)})
          .empty());
}

TEST(ScatterTest, WindowsThatDoNotFit) {
  // 3x4 windows at 2-D starts into a 10x12 operand; index_vector_dim 0; a
  // column-major operand.
  const std::string text = absl::StrReplaceAll(
      std::string("HloModule scatter_windows\n") + kAdd + R"(
ENTRY main {
  t = f32[10,12]{0,1} parameter(0)
  i = u32[2,6] parameter(1)
  u = f32[3,6,4] parameter(2)
  ROOT s = f32[10,12]{0,1} scatter(t, i, u), update_window_dims={0,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={1,0}, index_vector_dim=0, to_apply=add
}
)",
      {{"$T", "f32"}});
  EXPECT_TRUE(CheckAgainstEvaluator(text, {MakeOpInput(S("f32[10,12]"), 7),
                                           Indices(S("u32[2,6]"), 0, 11, 8),
                                           MakeOpInput(S("f32[3,6,4]"), 9)})
                  .empty());
}

TEST(ScatterTest, SeveralOperands) {
  EXPECT_TRUE(
      CheckAgainstEvaluator(
          R"(
HloModule scatter_pair
combine {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = s32[] parameter(3)
  m = f32[] maximum(a0, b0)
  s = s32[] add(a1, b1)
  ROOT r = (f32[], s32[]) tuple(m, s)
}
ENTRY main {
  t0 = f32[20,5] parameter(0)
  t1 = s32[20,5] parameter(1)
  i = s32[15,1] parameter(2)
  u0 = f32[15,5] parameter(3)
  u1 = s32[15,5] parameter(4)
  ROOT s = (f32[20,5], s32[20,5]) scatter(t0, t1, i, u0, u1), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
}
)",
          {MakeOpInput(S("f32[20,5]"), 10), MakeOpInput(S("s32[20,5]"), 11),
           Indices(S("s32[15,1]"), -1, 20, 12), MakeOpInput(S("f32[15,5]"), 13),
           MakeOpInput(S("s32[15,5]"), 14)})
          .empty());
}

TEST(ScatterTest, BatchingDimensions) {
  const std::string text = absl::StrReplaceAll(
      std::string("HloModule scatter_batching\n") + kAdd + R"(
ENTRY main {
  t = f32[3,10,4] parameter(0)
  i = s32[3,5,1] parameter(1)
  u = f32[3,5,4] parameter(2)
  ROOT s = f32[3,10,4] scatter(t, i, u), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=2, input_batching_dims={0}, scatter_indices_batching_dims={0}, to_apply=add
}
)",
      {{"$T", "f32"}});
  EXPECT_TRUE(CheckAgainstEvaluator(text, {MakeOpInput(S("f32[3,10,4]"), 15),
                                           Indices(S("s32[3,5,1]"), 0, 10, 16),
                                           MakeOpInput(S("f32[3,5,4]"), 17)})
                  .empty());
}

}  // namespace
}  // namespace hloc

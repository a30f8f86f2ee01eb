// scatter-winners keeps results bit for bit: the reference evaluator (which
// applies scatter positions in order, the last assignment winning) gives
// the same result before and after the pass, for indices that repeat many
// times and fall out of bounds on either side, windows along the
// unindexed dimensions, two-component index vectors, u8 and u32 indices
// (whose out-of-bounds values become large, not negative), batching
// dimensions, an index vector dimension in front, and pred, bf16, f32 and
// s64 values. Assignments it cannot rewrite keep their one scatter.
#include "passes/scatter_winners.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

// `IDX` in a module below: s32 values (i * 37) % MOD - 3 for the i-th of
// SHAPE's elements in row-major order (iota over the flattened shape), so
// most values repeat and a few are out of bounds below (and above, where
// MOD - 3 passes the dimension).
std::string IndexValues(const std::string& name, const std::string& dims,
                        int64_t count, int64_t mod) {
  return absl::StrReplaceAll(
      R"(
  NAME_i = s32[COUNT] iota(), iota_dimension=0
  NAME_k = s32[] constant(37)
  NAME_kb = s32[COUNT] broadcast(NAME_k), dimensions={}
  NAME_m = s32[COUNT] multiply(NAME_i, NAME_kb)
  NAME_mod = s32[] constant(MOD)
  NAME_modb = s32[COUNT] broadcast(NAME_mod), dimensions={}
  NAME_r = s32[COUNT] remainder(NAME_m, NAME_modb)
  NAME_three = s32[] constant(3)
  NAME_threeb = s32[COUNT] broadcast(NAME_three), dimensions={}
  NAME_flat = s32[COUNT] subtract(NAME_r, NAME_threeb)
  NAME = s32[DIMS] reshape(NAME_flat))",
      {{"NAME", name},
       {"COUNT", absl::StrCat(count)},
       {"MOD", absl::StrCat(mod)},
       {"DIMS", dims}});
}

std::string Assign(const std::string& type) {
  return absl::StrCat("assign {\n  p0 = ", type,
                      "[] parameter(0)\n  ROOT p1 = ", type,
                      "[] parameter(1)\n}\n");
}

// Evaluates before and after the pass on tied inputs; expects the pass to
// have rewritten (or kept) the scatter as `rewritten` says.
void ExpectSameResults(const std::string& text, bool rewritten) {
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<Literal> inputs;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    inputs.push_back(
        MakeTiedInput(entry->parameter_instruction(i)->shape(), 5 + i));
  }
  ScatterWinners pass;
  const std::optional<bool> changed =
      ExpectSameResultsAfterPass(pass, module->get(), inputs, Tolerance{});
  ASSERT_TRUE(changed.has_value());
  EXPECT_EQ(*changed, rewritten) << ModuleText(**module);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kScatter), rewritten ? 2 : 1);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kGather), rewritten ? 1 : 0);
  if (!rewritten) return;
  const HloInstruction* root =
      (*module)->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kScatter);
  EXPECT_TRUE(root->attrs().unique_indices);
}

TEST(ScatterWinnersTest, ElementsOfAVector) {
  // 300 positions onto 100 elements: indices -3..102.
  ExpectSameResults(absl::StrCat("HloModule m\n\n", Assign("s64"), "ENTRY e {",
                                 IndexValues("idx", "300,1", 300, 106), R"(
  operand = s64[100] parameter(0)
  updates = s64[300] parameter(1)
  ROOT s = s64[100] scatter(operand, idx, updates), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign
}
)"),
                    true);
}

TEST(ScatterWinnersTest, RowsWithAnImplicitIndexVector) {
  ExpectSameResults(absl::StrCat("HloModule m\n\n", Assign("f32"), "ENTRY e {",
                                 IndexValues("idx", "300", 300, 56), R"(
  operand = f32[50,8] parameter(0)
  updates = f32[300,8] parameter(1)
  ROOT s = f32[50,8] scatter(operand, idx, updates), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign
}
)"),
                    true);
}

TEST(ScatterWinnersTest, TwoComponentU8Indices) {
  // Negative values wrap to 253..255 in u8: out of bounds, not -1.
  ExpectSameResults(absl::StrCat("HloModule m\n\n", Assign("bf16"), "ENTRY e {",
                                 IndexValues("idx32", "500,2", 1000, 27), R"(
  idx = u8[500,2] convert(idx32)
  operand = bf16[20,30] parameter(0)
  updates = bf16[500] parameter(1)
  ROOT s = bf16[20,30] scatter(operand, idx, updates), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=assign
}
)"),
                    true);
}

TEST(ScatterWinnersTest, U32IndicesOntoAWindowedColumn) {
  // Indexed along dimension 1, a window of 4 rows along dimension 0.
  ExpectSameResults(absl::StrCat("HloModule m\n\n", Assign("f32"), "ENTRY e {",
                                 IndexValues("idx32", "200", 200, 40), R"(
  idx = u32[200] convert(idx32)
  operand = f32[4,33] parameter(0)
  updates = f32[4,200] parameter(1)
  ROOT s = f32[4,33] scatter(operand, idx, updates), update_window_dims={0}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=assign
}
)"),
                    true);
}

TEST(ScatterWinnersTest, BatchingDimensions) {
  ExpectSameResults(absl::StrCat("HloModule m\n\n", Assign("s32"), "ENTRY e {",
                                 IndexValues("idx", "4,100,1", 400, 53), R"(
  operand = s32[4,50] parameter(0)
  updates = s32[4,100] parameter(1)
  ROOT s = s32[4,50] scatter(operand, idx, updates), update_window_dims={}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=2, input_batching_dims={0}, scatter_indices_batching_dims={0}, to_apply=assign
}
)"),
                    true);
}

TEST(ScatterWinnersTest, IndexVectorInFrontAndPredValues) {
  ExpectSameResults(absl::StrCat("HloModule m\n\n", Assign("pred"), "ENTRY e {",
                                 IndexValues("idx", "1,200", 200, 70), R"(
  x = f32[64] parameter(0)
  y = f32[200] parameter(1)
  zero = f32[] constant(0)
  zx = f32[64] broadcast(zero), dimensions={}
  zy = f32[200] broadcast(zero), dimensions={}
  operand = pred[64] compare(x, zx), direction=GT
  updates = pred[200] compare(y, zy), direction=GT
  ROOT s = pred[64] scatter(operand, idx, updates), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, to_apply=assign
}
)"),
                    true);
}

TEST(ScatterWinnersTest, KeepsWhatItCannotOrNeedNotRewrite) {
  const std::string rows = IndexValues("idx", "300,1", 300, 106);
  // A sum, not an assignment: atomics keep it parallel.
  ExpectSameResults(absl::StrCat("HloModule m\n\nadd {\n  a = s64[] "
                                 "parameter(0)\n  b = s64[] parameter(1)\n  "
                                 "ROOT r = s64[] add(a, b)\n}\n\nENTRY e {",
                                 rows, R"(
  operand = s64[100] parameter(0)
  updates = s64[300] parameter(1)
  ROOT s = s64[100] scatter(operand, idx, updates), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)"),
                    false);
  // Unique indices already.
  ExpectSameResults(absl::StrCat("HloModule m\n\n", Assign("s64"), "ENTRY e {",
                                 IndexValues("idx", "90,1", 90, 91), R"(
  operand = s64[100] parameter(0)
  updates = s64[90] parameter(1)
  ROOT s = s64[100] scatter(operand, idx, updates), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=assign
}
)"),
                    false);
  // Fewer positions than kMinPositions.
  ExpectSameResults(absl::StrCat("HloModule m\n\n", Assign("s64"), "ENTRY e {",
                                 IndexValues("idx", "63,1", 63, 20), R"(
  operand = s64[100] parameter(0)
  updates = s64[63] parameter(1)
  ROOT s = s64[100] scatter(operand, idx, updates), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign
}
)"),
                    false);
  // Windows of 3 along the indexed dimension: overlapping starts meet.
  ExpectSameResults(absl::StrCat("HloModule m\n\n", Assign("f32"), "ENTRY e {",
                                 IndexValues("idx", "100,1", 100, 40), R"(
  operand = f32[50] parameter(0)
  updates = f32[100,3] parameter(1)
  ROOT s = f32[50] scatter(operand, idx, updates), update_window_dims={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign
}
)"),
                    false);
}

}  // namespace
}  // namespace hloc

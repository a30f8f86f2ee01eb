// What kernels are given before any IR: nested tuple results flattened into
// leaves, and a scatter's dimension numbers worked out.
#include "backends/common/kernel_analysis.h"

#include <memory>
#include <vector>

#include "backends/common/scatter_analysis.h"
#include "gtest/gtest.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& text) {
  auto module = ParseHloModule(text, "test");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

TEST(KernelAnalysisTest, NestedTupleResultIsFlattenedDepthFirst) {
  auto module = Parse(R"(
HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}

argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  v = f32[] select(gt, v0, v1)
  i = s32[] select(gt, i0, i1)
  ROOT r = (f32[], s32[]) tuple(v, i)
}

fused {
  x = f32[4,8] parameter(0)
  zero = f32[] constant(0)
  sum = f32[4] reduce(x, zero), dimensions={1}, to_apply=add
  iota = s32[4,8] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  z = s32[] constant(0)
  am = (f32[4], s32[4]) reduce(x, iota, ninf, z), dimensions={1}, to_apply=argmax
  ROOT t = (f32[4], (f32[4], s32[4])) tuple(sum, am)
}

ENTRY main {
  x = f32[4,8] parameter(0)
  ROOT f = (f32[4], (f32[4], s32[4])) fusion(x), kind=kInput, calls=fused
}
)");
  ASSERT_NE(module, nullptr);
  const HloInstruction* fusion =
      module->entry_computation()->root_instruction();
  absl::StatusOr<KernelInfo> info = AnalyzeKernel(*fusion);
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->output_shapes.size(), 3u);
  EXPECT_EQ(info->output_shapes[0].element_type(), F32);
  EXPECT_EQ(info->output_shapes[1].element_type(), F32);
  EXPECT_EQ(info->output_shapes[2].element_type(), S32);
  ASSERT_EQ(info->outputs.size(), 3u);
  EXPECT_EQ(info->outputs[0].root->name(), "sum");
  EXPECT_EQ(info->outputs[0].element, -1);
  EXPECT_EQ(info->outputs[1].root->name(), "am");
  EXPECT_EQ(info->outputs[1].element, 0);
  EXPECT_EQ(info->outputs[2].root->name(), "am");
  EXPECT_EQ(info->outputs[2].element, 1);
  std::optional<ReductionInfo> r = AnalyzeReduction(*info);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->reduces.size(), 2u);
  EXPECT_TRUE(r->row);
}

// An epilogue output (fusion_kinds.h, kReduction) is a reduction output
// only where the backend asks for epilogues, and only if every path from it
// to a reduce is elementwise: a reverse of the result is not.
TEST(KernelAnalysisTest, ReductionEpilogueOutputs) {
  auto module = Parse(R"(
HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}

epilogue {
  x = f32[4,8] parameter(0)
  q = f32[8] parameter(1)
  zero = f32[] constant(0)
  sum = f32[8] reduce(x, zero), dimensions={0}, to_apply=add
  mean = f32[8] divide(sum, q)
  c = bf16[8] convert(mean)
  ROOT t = (bf16[8], f32[4,8]) tuple(c, x)
}

reversed {
  x = f32[4,8] parameter(0)
  zero = f32[] constant(0)
  sum = f32[8] reduce(x, zero), dimensions={0}, to_apply=add
  ROOT v = f32[8] reverse(sum), dimensions={0}
}

ENTRY main {
  x = f32[4,8] parameter(0)
  q = f32[8] parameter(1)
  with_epilogue = (bf16[8], f32[4,8]) fusion(x, q), kind=kInput, calls=epilogue
  with_reverse = f32[8] fusion(x), kind=kInput, calls=reversed
  ROOT out = ((bf16[8], f32[4,8]), f32[8]) tuple(with_epilogue, with_reverse)
}
)");
  ASSERT_NE(module, nullptr);
  const HloComputation* entry = module->entry_computation();
  absl::StatusOr<KernelInfo> info =
      AnalyzeKernel(*entry->GetInstructionWithName("with_epilogue"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE(AnalyzeReduction(*info).has_value());
  std::optional<ReductionInfo> r =
      AnalyzeReduction(*info, /*allow_epilogue=*/true);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->reduces.size(), 1u);
  EXPECT_EQ(r->reduces[0]->name(), "sum");
  EXPECT_FALSE(r->row);
  EXPECT_EQ(r->epilogue_outputs, std::vector<size_t>{0});
  EXPECT_TRUE(r->IsEpilogueOutput(0));
  EXPECT_FALSE(r->IsEpilogueOutput(1));

  absl::StatusOr<KernelInfo> reversed =
      AnalyzeKernel(*entry->GetInstructionWithName("with_reverse"));
  ASSERT_TRUE(reversed.ok()) << reversed.status();
  EXPECT_FALSE(
      AnalyzeReduction(*reversed, /*allow_epilogue=*/true).has_value());
}

TEST(ScatterAnalysisTest, WindowsIndicesAndBatchingDimensions) {
  auto module = Parse(R"(
HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}

ENTRY main {
  op = f32[3,10,6] parameter(0)
  idx = s32[3,5,1] parameter(1)
  upd = f32[3,5,2] parameter(2)
  ROOT s = f32[3,10,6] scatter(op, idx, upd), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=2, input_batching_dims={0}, scatter_indices_batching_dims={0}, to_apply=add
}
)");
  ASSERT_NE(module, nullptr);
  absl::StatusOr<ScatterGeometry> g =
      AnalyzeScatter(*module->entry_computation()->root_instruction());
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->n, 1);
  EXPECT_EQ(g->scatter_dims, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(g->index_batch_dims, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(g->window_dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(g->window_size, (std::vector<int64_t>{1, 1, 2}));
  EXPECT_EQ(g->batching_position, (std::vector<int64_t>{0}));
  EXPECT_EQ(g->vector_size, 1);
  EXPECT_FALSE(g->implicit_vector);
}

TEST(ScatterAnalysisTest, InconsistentDimensionNumbersAreUnimplemented) {
  auto module = Parse(R"(
HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}

ENTRY main {
  op = f32[10] parameter(0)
  idx = s32[4,1] parameter(1)
  upd = f32[4] parameter(2)
  ROOT s = f32[10] scatter(op, idx, upd), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* scatter = module->entry_computation()->root_instruction();
  EXPECT_TRUE(AnalyzeScatter(*scatter).ok());
  // An add is not a scatter: no dimension numbers.
  const HloInstruction* add_root = scatter->to_apply()->root_instruction();
  absl::Status status = AnalyzeScatter(*add_root).status();
  EXPECT_TRUE(absl::IsUnimplemented(status)) << status;
}

}  // namespace
}  // namespace hloc

#include "passes/scatter_winners.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "hlo/computation.h"
#include "hlo/module.h"
#include "hlo/shape_inference.h"
#include "hlo/status_macros.h"
#include "passes/computation_builder.h"

namespace hloc {
namespace {

// Whether the combiner returns its update: an assignment.
bool Assigns(const HloComputation& combiner) {
  const HloInstruction* root = combiner.root_instruction();
  return root->opcode() == HloOpcode::kParameter &&
         root->parameter_number() == 1;
}

// The number of scatter positions of `scatter`, if it is an assignment of
// one operand whose positions can meet only at the same start (a window of
// 1 in every indexed dimension) and may repeat; 0 otherwise.
int64_t RewritablePositions(const HloInstruction& scatter) {
  if (scatter.operand_count() != 3 || scatter.attrs().unique_indices ||
      !scatter.attrs().scatter_dimension_numbers.has_value() ||
      !Assigns(*scatter.to_apply())) {
    return 0;
  }
  const ScatterDimensionNumbers& dn =
      *scatter.attrs().scatter_dimension_numbers;
  // With no indexed dimension every position has the same start.
  if (dn.scatter_dims_to_operand_dims.empty()) return 0;
  const Shape& operand = scatter.operand(0)->shape();
  const Shape& updates = scatter.operand(2)->shape();
  // The window's extent in each operand dimension: 1 where inserted or
  // batching, else the next update window dimension's size.
  std::vector<int64_t> window(operand.rank(), 1);
  size_t next = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (absl::c_linear_search(dn.inserted_window_dims, d) ||
        absl::c_linear_search(dn.input_batching_dims, d)) {
      continue;
    }
    if (next >= dn.update_window_dims.size()) return 0;
    window[d] = updates.dimensions(dn.update_window_dims[next++]);
  }
  for (int64_t d : dn.scatter_dims_to_operand_dims) {
    if (d < 0 || d >= operand.rank() || window[d] != 1) return 0;
  }
  int64_t positions = 1;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    if (!absl::c_linear_search(dn.update_window_dims, d))
      positions *= updates.dimensions(d);
  }
  if (operand.ElementCount() == 0 || updates.ElementCount() == 0) return 0;
  return positions;
}

// scalar maximum of `type`, the winners' combiner.
HloComputation* MaxComputation(HloModule* module, PrimitiveType type,
                               const HloComputation* caller) {
  auto max = std::make_unique<HloComputation>("scatter_winner_max");
  const Shape scalar = Shape::Scalar(type);
  HloInstruction* x =
      max->AddParameter(HloInstruction::CreateParameter(0, scalar, "x"));
  HloInstruction* y =
      max->AddParameter(HloInstruction::CreateParameter(1, scalar, "y"));
  max->set_root_instruction(max->AddInstruction(
      HloInstruction::CreateBinary(scalar, HloOpcode::kMaximum, x, y)));
  return module->AddEmbeddedComputation(std::move(max), caller);
}

absl::StatusOr<bool> Rewrite(HloComputation* computation,
                             HloInstruction* scatter) {
  const int64_t positions = RewritablePositions(*scatter);
  if (positions < ScatterWinners::kMinPositions) return false;
  const ScatterDimensionNumbers& dn =
      *scatter->attrs().scatter_dimension_numbers;
  HloInstruction* operand = scatter->operand(0);
  HloInstruction* indices = scatter->operand(1);
  HloInstruction* updates = scatter->operand(2);
  const Shape& op_shape = operand->shape();
  ComputationBuilder b(computation);

  // The winners' dimensions: the operand's indexed and batching ones, in
  // operand order; `at[d]` is operand dimension d's place among them.
  std::vector<int64_t> winner_dims, at(op_shape.rank(), -1);
  for (int64_t d = 0; d < op_shape.rank(); ++d) {
    if (absl::c_linear_search(dn.scatter_dims_to_operand_dims, d) ||
        absl::c_linear_search(dn.input_batching_dims, d)) {
      at[d] = static_cast<int64_t>(winner_dims.size());
      winner_dims.push_back(op_shape.dimensions(d));
    }
  }
  auto mapped = [&](const std::vector<int64_t>& dims) {
    std::vector<int64_t> out;
    for (int64_t d : dims) out.push_back(at[d]);
    return out;
  };
  ScatterDimensionNumbers wn;
  wn.inserted_window_dims = mapped(dn.scatter_dims_to_operand_dims);
  std::sort(wn.inserted_window_dims.begin(), wn.inserted_window_dims.end());
  wn.scatter_dims_to_operand_dims = mapped(dn.scatter_dims_to_operand_dims);
  wn.index_vector_dim = dn.index_vector_dim;
  wn.input_batching_dims = mapped(dn.input_batching_dims);
  wn.scatter_indices_batching_dims = dn.scatter_indices_batching_dims;

  // Each scatter position's row-major number, over the scatter dimensions
  // of the updates (the indices' dimensions but the index vector's).
  const PrimitiveType position_type =
      positions > std::numeric_limits<int32_t>::max() ? S64 : S32;
  std::vector<int64_t> scatter_dims;
  for (int64_t d = 0; d < updates->shape().rank(); ++d) {
    if (!absl::c_linear_search(dn.update_window_dims, d)) {
      scatter_dims.push_back(updates->shape().dimensions(d));
    }
  }
  HloInstruction* position =
      b.Reshape(b.Iota(position_type, {positions}, 0), scatter_dims);
  HloInstruction* none =
      b.Splat(position_type == S32 ? Literal::CreateR0<int32_t>(S32, -1)
                                   : Literal::CreateR0<int64_t>(S64, -1),
              winner_dims);
  HloModule* module = computation->parent();
  HloComputation* max = MaxComputation(module, position_type, computation);
  const Shape winner_shape = Shape::Array(position_type, winner_dims);
  HloInstruction* winner = b.Add(HloInstruction::Create(
      HloOpcode::kScatter, winner_shape, {none, indices, position}));
  winner->mutable_attrs().scatter_dimension_numbers = wn;
  winner->set_called_computations({max});

  GatherDimensionNumbers gn;
  gn.collapsed_slice_dims = wn.inserted_window_dims;
  gn.start_index_map = wn.scatter_dims_to_operand_dims;
  gn.index_vector_dim = dn.index_vector_dim;
  gn.operand_batching_dims = wn.input_batching_dims;
  gn.start_indices_batching_dims = dn.scatter_indices_batching_dims;
  const std::vector<int64_t> ones(winner_dims.size(), 1);
  HLOC_ASSIGN_OR_RETURN(
      Shape gathered_shape,
      InferGatherShape(winner_shape, indices->shape(), gn, ones));
  HloInstruction* gathered = b.Add(HloInstruction::Create(
      HloOpcode::kGather, gathered_shape, {winner, indices}));
  gathered->mutable_attrs().gather_dimension_numbers = gn;
  gathered->mutable_attrs().gather_slice_sizes = ones;
  HloInstruction* won = b.Compare(gathered, position, ComparisonDirection::kEq);

  // The winners' indices, the others' -1 (in a signed type that holds every
  // index: narrow ones in s32, unsigned 32/64-bit ones in s64).
  const Shape& idx_shape = indices->shape();
  const PrimitiveType idx_type = idx_shape.element_type();
  const PrimitiveType signed_type =
      (idx_type == S64 || idx_type == U64 || idx_type == U32) ? S64 : S32;
  HloInstruction* signed_indices = indices;
  if (idx_type != signed_type) {
    signed_indices = b.Add(HloInstruction::CreateUnary(
        Shape::Array(signed_type, idx_shape.dimensions()), HloOpcode::kConvert,
        indices));
  }
  std::vector<int64_t> batch_of_index;
  for (int64_t d = 0; d < idx_shape.rank(); ++d) {
    if (d != dn.index_vector_dim) batch_of_index.push_back(d);
  }
  HloInstruction* won_everywhere = b.Add(HloInstruction::CreateBroadcast(
      Shape::Array(PRED, idx_shape.dimensions()), won, batch_of_index));
  HloInstruction* dropped =
      b.Splat(signed_type == S32 ? Literal::CreateR0<int32_t>(S32, -1)
                                 : Literal::CreateR0<int64_t>(S64, -1),
              idx_shape.dimensions());
  HloInstruction* winning_indices =
      b.Select(won_everywhere, signed_indices, dropped);

  HloInstruction* result =
      b.Add(HloInstruction::Create(HloOpcode::kScatter, scatter->shape(),
                                   {operand, winning_indices, updates}));
  result->mutable_attrs().scatter_dimension_numbers = dn;
  result->mutable_attrs().unique_indices = true;
  result->set_called_computations({scatter->to_apply()});
  *result->mutable_metadata() = scatter->metadata();
  HLOC_RETURN_IF_ERROR(computation->ReplaceInstruction(scatter, result));
  return true;
}

}  // namespace

absl::StatusOr<bool> ScatterWinners::Run(HloModule* module) {
  return RewriteEach(module, HloOpcode::kScatter, "scatters-by-winners",
                     Rewrite);
}

}  // namespace hloc

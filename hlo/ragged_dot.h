// ragged-dot (JAX's lax.ragged_dot_general; what JAX lowers it to for GPUs,
// where on the CPU it expands it itself): a dot whose lhs has one ragged
// dimension, cut into g consecutive groups of group_sizes[..., i] indices
// each (group i covers [sum of sizes before i, that sum + size i)). By
// where the ragged dimension is, one of three modes:
//
//   kNonContracting  lhs [b.., m.., k..], rhs [g, b.., k.., n..]: each lhs
//                    index of the ragged (m) dimension is multiplied by the
//                    rhs of its group (the rhs group dimension picks it);
//                    indices in no group give zeros (MoE experts).
//   kContracting     lhs [b.., m.., k..], rhs [b.., k.., n..] -> [g, b..,
//                    m.., n..]: result i sums only the terms whose ragged
//                    (k) index is in group i (the experts' weight
//                    gradients).
//   kBatch           lhs and rhs ragged along a batch dimension: the plain
//                    dot, as JAX's own expansion computes it.
//
// group_sizes is [g] (the same groups everywhere) or [prefix.., g], its
// leading dimensions indexed like the lhs dimensions `lhs_prefix` names
// (the batch dimensions, then the dimensions of the ragged dimension's
// kind that come before it), as jax.lax.ragged_dot_general documents. A
// negative size gives overlapping or empty groups: an index is in every
// group whose range holds it, as a mask per group computes.
#ifndef HLO_RAGGED_DOT_H_
#define HLO_RAGGED_DOT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/attributes.h"
#include "hlo/shape.h"

namespace hloc {

enum class RaggedDotMode { kNonContracting, kContracting, kBatch };

struct RaggedDotGeometry {
  RaggedDotMode mode = RaggedDotMode::kNonContracting;
  int64_t num_groups = 0;
  int64_t lhs_ragged_dim = 0;
  // kContracting: the rhs contracting dimension paired with the lhs ragged
  // one; else -1.
  int64_t rhs_ragged_dim = -1;
  // kNonContracting: the rhs dimension that picks the group; else -1.
  int64_t rhs_group_dim = -1;
  // The lhs dimensions group_sizes' leading dimensions follow (empty when
  // group_sizes is [g]), and for kContracting the rhs dimensions paired
  // with them.
  std::vector<int64_t> lhs_prefix;
  std::vector<int64_t> rhs_prefix;
  // The dot of lhs and rhs without the groups: for kNonContracting with
  // the rhs group dimension left out of the rhs (its later dimensions
  // numbered one lower), `rhs_without_group` that rhs's shape.
  DotDimensionNumbers dot;
  Shape rhs_without_group;
};

// The geometry of ragged-dot(lhs, rhs, group_sizes), or InvalidArgument
// saying what does not fit (dimension numbers out of range or reused, a
// group dimension where the mode allows none, group_sizes of the wrong
// shape or not an integer array).
absl::StatusOr<RaggedDotGeometry> AnalyzeRaggedDot(
    const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
    const RaggedDotDimensionNumbers& dnums);

// Its result: the dot's shape, with [g] in front for kContracting; the
// element type as a dot's (preferred_element_type when given).
absl::StatusOr<Shape> InferRaggedDotShape(
    const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
    const RaggedDotDimensionNumbers& dnums,
    std::optional<PrimitiveType> preferred_element_type);

// Whether a grouped-matmul kernel computes the ragged-dot as it is: one
// set of groups (group_sizes [g]), kNonContracting or kContracting, and the
// ragged dimension the leading one of those a dot kernel flattens it with
// (the first lhs free dimension, or the first lhs contracting dimension in
// dimension-number order), so each group is one run of the flattened rows
// (or of the flattened contraction): [start * inner, end * inner) where
// inner is the product of the other flattened dimensions.
bool IsGroupedMatmul(const Shape& lhs, const Shape& group_sizes,
                     const RaggedDotGeometry& g);

}  // namespace hloc

#endif  // HLO_RAGGED_DOT_H_

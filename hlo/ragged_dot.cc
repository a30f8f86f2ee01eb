#include "hlo/ragged_dot.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/shape_inference.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat("ragged-dot: ", args...));
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The dimensions of a rank-`rank` operand that are neither batch nor
// contracting, in order.
std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(batch, d) && !Contains(contracting, d)) free.push_back(d);
  }
  return free;
}

// `list` up to (not including) `x`.
std::vector<int64_t> Before(const std::vector<int64_t>& list, int64_t x) {
  return std::vector<int64_t>(list.begin(),
                              std::find(list.begin(), list.end(), x));
}

}  // namespace

absl::StatusOr<RaggedDotGeometry> AnalyzeRaggedDot(
    const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
    const RaggedDotDimensionNumbers& dnums) {
  if (!lhs.IsArray() || !rhs.IsArray() || !group_sizes.IsArray()) {
    return Invalid("lhs, rhs and group_sizes must be arrays");
  }
  if (!IsIntegralType(group_sizes.element_type()) || group_sizes.rank() < 1) {
    return Invalid("group_sizes must be an integer array of rank >= 1, got ",
                   group_sizes.ToString(false));
  }
  if (dnums.lhs_ragged_dimensions.size() != 1) {
    return Invalid("needs exactly one lhs ragged dimension, got ",
                   dnums.lhs_ragged_dimensions.size());
  }
  const DotDimensionNumbers& dot = dnums.dot_dimension_numbers;
  const std::vector<int64_t>& lb = dot.lhs_batch_dimensions;
  const std::vector<int64_t>& lc = dot.lhs_contracting_dimensions;
  const std::vector<int64_t>& rb = dot.rhs_batch_dimensions;
  const std::vector<int64_t>& rc = dot.rhs_contracting_dimensions;
  // Every dimension number in range and paired before any indexes a
  // shape (InferDotShape checks the rest: repeats and sizes).
  auto in_range = [](const std::vector<int64_t>& dims, int64_t rank) {
    for (int64_t d : dims) {
      if (d < 0 || d >= rank) return false;
    }
    return true;
  };
  if (!in_range(lb, lhs.rank()) || !in_range(lc, lhs.rank()) ||
      !in_range(rb, rhs.rank()) || !in_range(rc, rhs.rank()) ||
      lb.size() != rb.size() || lc.size() != rc.size()) {
    return Invalid("dot dimension numbers out of range or unpaired for lhs ",
                   lhs.ToString(false), " and rhs ", rhs.ToString(false));
  }
  RaggedDotGeometry g;
  g.num_groups = group_sizes.dimensions(group_sizes.rank() - 1);
  g.lhs_ragged_dim = dnums.lhs_ragged_dimensions[0];
  if (g.lhs_ragged_dim < 0 || g.lhs_ragged_dim >= lhs.rank()) {
    return Invalid("lhs ragged dimension ", g.lhs_ragged_dim,
                   " is out of range for lhs ", lhs.ToString(false));
  }
  const std::vector<int64_t> lhs_free = FreeDims(lhs.rank(), lb, lc);
  if (Contains(lhs_free, g.lhs_ragged_dim)) {
    g.mode = RaggedDotMode::kNonContracting;
    g.lhs_prefix = lb;
    for (int64_t d : Before(lhs_free, g.lhs_ragged_dim)) {
      g.lhs_prefix.push_back(d);
    }
  } else if (Contains(lc, g.lhs_ragged_dim)) {
    g.mode = RaggedDotMode::kContracting;
    g.lhs_prefix = lb;
    g.rhs_prefix = rb;
    const std::vector<int64_t> before = Before(lc, g.lhs_ragged_dim);
    for (size_t i = 0; i < before.size(); ++i) {
      g.lhs_prefix.push_back(lc[i]);
      g.rhs_prefix.push_back(rc[i]);
    }
    g.rhs_ragged_dim = rc[before.size()];
  } else {
    g.mode = RaggedDotMode::kBatch;
    g.lhs_prefix = Before(lb, g.lhs_ragged_dim);
  }
  const std::vector<int64_t>& groups = dnums.rhs_group_dimensions;
  g.dot = dot;
  g.rhs_without_group = rhs;
  if (g.mode == RaggedDotMode::kNonContracting) {
    if (groups.size() != 1) {
      return Invalid(
          "a ragged non-contracting dimension needs one rhs group "
          "dimension, got ",
          groups.size());
    }
    g.rhs_group_dim = groups[0];
    if (g.rhs_group_dim < 0 || g.rhs_group_dim >= rhs.rank() ||
        Contains(rb, g.rhs_group_dim) || Contains(rc, g.rhs_group_dim)) {
      return Invalid("rhs group dimension ", g.rhs_group_dim,
                     " is out of range for rhs ", rhs.ToString(false),
                     " or a batch or contracting dimension");
    }
    if (rhs.dimensions(g.rhs_group_dim) != g.num_groups) {
      return Invalid("rhs group dimension ", g.rhs_group_dim, " has size ",
                     rhs.dimensions(g.rhs_group_dim), ", group_sizes ",
                     g.num_groups, " groups");
    }
    std::vector<int64_t> dims = rhs.dimensions();
    dims.erase(dims.begin() + g.rhs_group_dim);
    g.rhs_without_group = Shape::Array(rhs.element_type(), dims);
    auto renumber = [&](std::vector<int64_t>* list) {
      for (int64_t& d : *list) d -= d > g.rhs_group_dim ? 1 : 0;
    };
    renumber(&g.dot.rhs_batch_dimensions);
    renumber(&g.dot.rhs_contracting_dimensions);
  } else if (!groups.empty()) {
    return Invalid(
        "a ragged contracting or batch dimension takes no rhs "
        "group dimension, got ",
        groups.size());
  }
  // group_sizes: [g], or [prefix.., g] over the lhs prefix dimensions.
  if (group_sizes.rank() > 1) {
    std::vector<int64_t> expected;
    for (int64_t d : g.lhs_prefix) expected.push_back(lhs.dimensions(d));
    expected.push_back(g.num_groups);
    if (expected != group_sizes.dimensions()) {
      return Invalid(
          "group_sizes must be [", absl::StrJoin(expected, ","),
          "] (the lhs dimensions {", absl::StrJoin(g.lhs_prefix, ","),
          "} then the groups) or [g], got ", group_sizes.ToString(false));
    }
  } else {
    g.lhs_prefix.clear();
    g.rhs_prefix.clear();
  }
  return g;
}

absl::StatusOr<Shape> InferRaggedDotShape(
    const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
    const RaggedDotDimensionNumbers& dnums,
    std::optional<PrimitiveType> preferred_element_type) {
  HLOC_ASSIGN_OR_RETURN(RaggedDotGeometry g,
                        AnalyzeRaggedDot(lhs, rhs, group_sizes, dnums));
  HLOC_ASSIGN_OR_RETURN(
      Shape shape,
      InferDotShape(lhs, g.rhs_without_group, g.dot, preferred_element_type));
  if (g.mode != RaggedDotMode::kContracting) return shape;
  std::vector<int64_t> dims = {g.num_groups};
  dims.insert(dims.end(), shape.dimensions().begin(), shape.dimensions().end());
  return Shape::Array(shape.element_type(), dims);
}

bool IsGroupedMatmul(const Shape& lhs, const Shape& group_sizes,
                     const RaggedDotGeometry& g) {
  if (group_sizes.rank() != 1) return false;
  const DotDimensionNumbers& dot = g.dot;
  switch (g.mode) {
    case RaggedDotMode::kNonContracting: {
      const std::vector<int64_t> free = FreeDims(
          lhs.rank(), dot.lhs_batch_dimensions, dot.lhs_contracting_dimensions);
      return !free.empty() && free[0] == g.lhs_ragged_dim;
    }
    case RaggedDotMode::kContracting:
      return dot.lhs_contracting_dimensions[0] == g.lhs_ragged_dim;
    case RaggedDotMode::kBatch:
      return false;
  }
  return false;
}

}  // namespace hloc

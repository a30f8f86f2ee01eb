#include "backends/common/scatter_analysis.h"

#include <algorithm>

#include "backends/common/kernel_analysis.h"

namespace hloc {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

absl::StatusOr<ScatterGeometry> AnalyzeScatter(const HloInstruction& hlo) {
  const int64_t count = hlo.operand_count();
  if (count < 3 || count % 2 == 0 || !hlo.attrs().scatter_dimension_numbers ||
      hlo.to_apply() == nullptr) {
    return CodegenUnimplemented(hlo, "malformed scatter");
  }
  const ScatterDimensionNumbers& dn = *hlo.attrs().scatter_dimension_numbers;
  ScatterGeometry g;
  g.n = (count - 1) / 2;
  for (const HloInstruction* operand : hlo.operands()) {
    if (!operand->shape().IsArray()) {
      return CodegenUnimplemented(hlo, "a scatter operand is not an array");
    }
  }
  const Shape& op = hlo.operand(0)->shape();
  const Shape& idx = hlo.operand(g.n)->shape();
  const Shape& upd = hlo.operand(g.n + 1)->shape();
  if (!IsIntegralType(idx.element_type())) {
    return CodegenUnimplemented(hlo, "scatter indices are not integers");
  }
  for (int64_t d = 0; d < upd.rank(); ++d) {
    if (!Contains(dn.update_window_dims, d)) g.scatter_dims.push_back(d);
  }
  for (int64_t d = 0; d < idx.rank(); ++d) {
    if (d != dn.index_vector_dim) g.index_batch_dims.push_back(d);
  }
  for (int64_t d = 0; d < op.rank(); ++d) {
    if (!Contains(dn.inserted_window_dims, d) &&
        !Contains(dn.input_batching_dims, d)) {
      g.window_dims.push_back(d);
    }
  }
  if (g.scatter_dims.size() != g.index_batch_dims.size() ||
      g.window_dims.size() != dn.update_window_dims.size()) {
    return CodegenUnimplemented(hlo, "inconsistent scatter dimension numbers");
  }
  g.implicit_vector = dn.index_vector_dim == idx.rank();
  g.vector_size = g.implicit_vector ? 1 : idx.dimensions(dn.index_vector_dim);
  if (g.vector_size !=
      static_cast<int64_t>(dn.scatter_dims_to_operand_dims.size())) {
    return CodegenUnimplemented(hlo, "inconsistent scatter index vector");
  }
  g.window_size.assign(op.rank(), 1);
  for (size_t k = 0; k < g.window_dims.size(); ++k) {
    g.window_size[g.window_dims[k]] = upd.dimensions(dn.update_window_dims[k]);
  }
  for (int64_t d : dn.scatter_indices_batching_dims) {
    g.batching_position.push_back(
        std::find(g.index_batch_dims.begin(), g.index_batch_dims.end(), d) -
        g.index_batch_dims.begin());
  }
  return g;
}

}  // namespace hloc

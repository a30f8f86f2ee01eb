// What a scatter's dimension numbers say, worked out once for every
// backend: which update dimensions walk the scatter indices and which the
// window, where each window dimension lands in the operand, how large the
// window is per operand dimension, and where batching dimensions take their
// index from. No LLVM here.
#ifndef BACKENDS_COMMON_SCATTER_ANALYSIS_H_
#define BACKENDS_COMMON_SCATTER_ANALYSIS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/instruction.h"

namespace hloc {

struct ScatterGeometry {
  // Operand arrays (and update arrays): (operand_count - 1) / 2.
  int64_t n = 0;
  // The update's dimensions that are not window dimensions, in order; they
  // pair with index_batch_dims.
  std::vector<int64_t> scatter_dims;
  // The indices' dimensions other than index_vector_dim, in order.
  std::vector<int64_t> index_batch_dims;
  // The operand dimensions the window covers (neither inserted nor
  // batching), paired in order with update_window_dims.
  std::vector<int64_t> window_dims;
  // Per operand dimension: the window's extent (1 where none).
  std::vector<int64_t> window_size;
  // Per input_batching_dims[j]: its position among index_batch_dims.
  std::vector<int64_t> batching_position;
  // Entries of one index vector (1 when index_vector_dim is implicit).
  int64_t vector_size = 1;
  bool implicit_vector = false;
};

// Unimplemented (codegen) for malformed or inconsistent scatters.
absl::StatusOr<ScatterGeometry> AnalyzeScatter(const HloInstruction& scatter);

}  // namespace hloc

#endif  // BACKENDS_COMMON_SCATTER_ANALYSIS_H_

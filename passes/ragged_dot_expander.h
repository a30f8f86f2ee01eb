// ragged-dot (hlo/ragged_dot.h) as masks and one dot ("ragged-dot-expander";
// every compiling pipeline: JAX lowers lax.ragged_dot to it for GPUs, the
// MoE layers' grouped matmuls and their gradients), as XLA expands it for
// backends without a grouped-gemm kernel (the GPU pipelines keep those
// their tiled dot kernel computes as grouped matmuls, pipelines.cc):
//
//   kNonContracting  the lhs broadcast to [g, lhs..] with each group's
//                    copy zero outside the group's indices of the ragged
//                    dimension, contracted with the rhs over the group
//                    dimension as well: one dot of g times the work.
//   kContracting     lhs and rhs both masked that way; the groups become a
//                    batch dimension, in front as the result has it.
//   kBatch           the plain dot.
//
// The group bounds are the running sum of group_sizes (a reduce-window
// along the groups): index r is in group i when start_i <= r < end_i.
#ifndef PASSES_RAGGED_DOT_EXPANDER_H_
#define PASSES_RAGGED_DOT_EXPANDER_H_

#include <functional>
#include <utility>

#include "hlo/ragged_dot.h"
#include "passes/pass.h"

namespace hloc {

class RaggedDotExpander : public HloPass {
 public:
  // Which ragged-dots the backend computes itself (a grouped-matmul
  // kernel), left as they are; none without it.
  using KeepFn =
      std::function<bool(const HloInstruction&, const RaggedDotGeometry&)>;
  RaggedDotExpander() = default;
  explicit RaggedDotExpander(KeepFn keep) : keep_(std::move(keep)) {}

  absl::string_view name() const override { return "ragged-dot-expander"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  KeepFn keep_;
};

}  // namespace hloc

#endif  // PASSES_RAGGED_DOT_EXPANDER_H_

// Collectives along a dimension, made to move flat chunks
// ("collective-layout", every pipeline).
//
// The runtimes (NCCL on CUDA, host threads on the CPU) gather, scatter and
// exchange contiguous chunks of flat buffers, as XLA:GPU's NCCL thunks do.
// An all-gather, reduce-scatter or all-to-all along dimension d moves such
// chunks only when d is the most major dimension of its layouts. This pass
// rewrites the others, as XLA's layout assignment does for its collectives:
//
//   x' = transpose(x) with d first            (per operand)
//   y' = the collective of x' along dimension 0
//   result = transpose(y') back to the original order
//
// A collective whose more major dimensions all have size 1 is left alone.
// --stats counts the rewrites.
#ifndef PASSES_COLLECTIVE_LAYOUT_H_
#define PASSES_COLLECTIVE_LAYOUT_H_

#include "passes/pass.h"

namespace hloc {

class CollectiveLayout : public HloPass {
 public:
  absl::string_view name() const override { return "collective-layout"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_COLLECTIVE_LAYOUT_H_

// Asynchronous collectives as synchronous ones ("async-collectives-to-sync",
// every pipeline), as XLA's ConvertAsyncCollectivesToSync does.
//
// XLA:GPU's optimised modules split collectives into a start and a done so
// that its scheduler can overlap them with compute:
//   all-reduce-start / all-reduce-done, all-gather-start / all-gather-done,
//   collective-permute-start / collective-permute-done, and async-start /
//   async-done wrapping a reduce-scatter, all-to-all (or any collective) in
//   a one-instruction computation.
// Each runtime here issues a collective as one step on the device's stream
// (NCCL orders it with the kernels around it), so a pair becomes the
// collective itself, on the start's operands, with the done's shape; the
// values the start's tuple carried besides the result (its operands,
// scratch contexts) are not used by anything but the done.
#ifndef PASSES_ASYNC_COLLECTIVES_TO_SYNC_H_
#define PASSES_ASYNC_COLLECTIVES_TO_SYNC_H_

#include "passes/pass.h"

namespace hloc {

class AsyncCollectivesToSync : public HloPass {
 public:
  absl::string_view name() const override {
    return "async-collectives-to-sync";
  }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_ASYNC_COLLECTIVES_TO_SYNC_H_

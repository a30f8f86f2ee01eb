// Transposes that only rename bytes as bitcasts ("transpose-bitcasts").
//
// Layout assignment can leave a transpose whose result layout is its
// operand's memory order seen through the permutation: JAX's weight
// gradients are dot(x, dy) followed by a transpose, and a module lowered
// for the GPU asks for those results in layout {0,1}, so the transpose
// writes the bytes it reads, in the same order. As a kernel it copies the
// whole array (64 MiB for a 4096 x 4096 f32 gradient, ~30 us on an H200);
// as a bitcast it is a second name for the operand's buffer (runtime
// buffer assignment aliases bitcasts). Only transposes of computed values
// whose users are tuples (results, loop state) change: a library call may
// check its operands' layouts or overwrite one in place, and a
// parameter's buffer is the caller's. Fusion bodies are left alone: there
// a transpose costs only its index arithmetic. Runs last in the GPU
// pipelines, after fusion.
#ifndef PASSES_TRANSPOSE_BITCASTS_H_
#define PASSES_TRANSPOSE_BITCASTS_H_

#include "passes/pass.h"

namespace hloc {

class TransposeBitcasts : public HloPass {
 public:
  absl::string_view name() const override { return "transpose-bitcasts"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_TRANSPOSE_BITCASTS_H_

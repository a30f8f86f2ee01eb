// The GPU kernel emitter: one LLVM module of kernels for a GpuTarget, one
// or more kernels per entry instruction, each with its launch dimensions.
// Which emitter a kernel gets (kernel_emitters.h):
//   - loop kernels: kLoop fusions (multi-output too: one kernel per output
//     shape) and every unfused elementwise or data-movement instruction;
//     a thread computes `unroll` consecutive elements (launch_dims.h);
//   - in-place dynamic-update-slice (unfused, or a fusion rooted at one):
//     only the update's elements are visited, when the compiler says the
//     output is the operand's buffer;
//   - row-reduction fusions (softmax, layer norm, log-softmax) and
//     reduction fusions over rows that fit a block: one kernel, a thread
//     group per row, the row kept in registers (row_fusion_emitter.cc);
//   - other row reductions: a warp or block per row, 16-byte runs
//     (reduction_emitter.cc);
//   - column reductions: lanes along the kept minor dimension, warps over
//     rows, one deterministic pass (reduction_emitter.cc);
//   - transposes that move the minor dimension, alone or in a loop fusion
//     (x.T + y): 32x33 shared-memory tiles (transpose_emitter.cc);
//   - dots and dot-epilogue fusions: output tiles per block, K slices
//     through shared memory, a register tile per thread or MFMA per wave
//     (tiled_dot_emitter.cc).
// Every tuning decision is in launch_dims.cc.
// Anything else is Unimplemented, naming the instruction and why.
#ifndef BACKENDS_GPU_GPU_KERNEL_EMITTER_H_
#define BACKENDS_GPU_GPU_KERNEL_EMITTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/gpu/gpu_target.h"
#include "hlo/instruction.h"
#include "runtime/executable.h"

namespace hloc {

// How a kernel's buffers relate, from the buffer plan.
struct KernelBuffers {
  // Per parameter (operand leaves, then output leaves): shares memory with
  // another parameter.
  std::vector<bool> may_alias;
  // Per output leaf: the operand whose buffer it is (in place), or -1.
  std::vector<int64_t> output_in_place_of;
};

struct GpuKernel {
  std::string name;
  LaunchDims launch;
};

class GpuModuleEmitter {
 public:
  GpuModuleEmitter(const std::string& module_name, const GpuTarget& target);
  ~GpuModuleEmitter();

  // Emits the kernels computing `hlo` (named after `name`, made unique),
  // in the order they must run. None for an empty result. On error nothing
  // of them is left in the module.
  absl::StatusOr<std::vector<GpuKernel>> EmitKernels(
      const HloInstruction& hlo, const std::string& name,
      const KernelBuffers& buffers);

  // The module as emitted (unoptimized).
  std::string ModuleText() const;

  // Optimizes the module and returns its device code (`assembly`: the
  // target's assembly text instead); the emitter is spent. `times`
  // (optional) gets the time of each phase (GpuTarget).
  absl::StatusOr<std::string> Finish(CompilePhaseTimes* times = nullptr,
                                     bool assembly = false);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace hloc

#endif  // BACKENDS_GPU_GPU_KERNEL_EMITTER_H_

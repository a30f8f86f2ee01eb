// The CPU kernel emitter: one LLVM function per fusion or unfused
// elementwise / data-movement / reduce instruction, all in one module.
//
// Kernel ABI: `void name(void** buffers)`, where buffers holds the
// instruction's operand buffers in operand order, then its output buffers
// (one per leaf of a tuple-shaped result). Buffers are dense, in the layout
// of their HLO shape, and do not overlap.
//
// A kernel is a sequence of parallel loops (usually one; a multi-output
// fusion whose outputs differ in shape gets one per shape). Each loop has a
// number of independent work items and an internal range function
// `name.loopN(ptr noalias buffer..., i64 lo, i64 hi)` that does items
// [lo, hi): the noalias arguments are what let the loop vectorizer widen
// the inner loop without runtime alias checks.
//   - Elementwise loops: a work item is a chunk of one row of the output
//     (the physically minor dimension); the inner loop over the chunk is
//     the vectorizable one (CpuLoopMapping, the CPU's LoopMapping).
//     Outputs larger than the last-level cache are computed a chunk at a
//     time into a stack buffer and copied out with non-temporal stores
//     (streaming_store.h).
//   - Row reductions (the input's minor dimension is reduced): a work item
//     is one output element; the innermost loop over the reduced minor
//     dimension carries the accumulator, and the combiner is emitted with
//     the reassoc fast-math flag so the loop vectorizer may split it into
//     vector partial sums (like XLA's vectorized reductions, the sum order
//     differs from a sequential loop).
//   - Column reductions (the minor dimension is kept): a work item is a
//     chunk of the minor dimension of one output row; the reduced
//     dimensions are walked outside and the chunk inside, accumulating into
//     the output buffer, so the inner loop is elementwise and vectorizes.
//   A multi-output reduction fusion's other outputs (of the reduce input's
//   shape) are stored from the same loops.
//
// Parallelism: the kernel calls libgomp's GOMP_parallel directly with an
// outlined function that splits [0, items) statically by
// omp_get_thread_num/omp_get_num_threads and calls the range function.
// libgomp rather than libomp's __kmpc_fork_call because this project builds
// with g++, whose -fopenmp links libgomp into every binary: the kernels then
// share the host's one OpenMP runtime (and its thread pool) instead of
// loading a second one, and GOMP_parallel takes a plain (fn, data) pair with
// no ident_t or varargs microtask ABI to reproduce. Small loops (fewer than
// min_parallel_elements elements) call the range function directly.
#ifndef BACKENDS_CPU_IR_EMITTER_H_
#define BACKENDS_CPU_IR_EMITTER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "backends/cpu/jit.h"
#include "backends/cpu/streaming_store.h"
#include "hlo/instruction.h"

namespace hloc {

struct CpuCodegenOptions {
  // Run large loops on all OpenMP threads.
  bool parallel = true;
  // Loops over fewer elements than this run on the calling thread.
  int64_t min_parallel_elements = 1 << 15;
  // The longest row chunk one elementwise work item covers.
  int64_t max_row_chunk = 8192;
  // The longest column chunk of column reductions (elements of the minor
  // dimension); shorter when that leaves a thread without work.
  int64_t column_chunk = 4096;
  // Outputs of at least this many bytes are written with non-temporal
  // stores (streaming_store.h); 0 never. The default is the host's
  // last-level cache size. Host targets only.
  int64_t streaming_store_min_bytes = StreamingStoreThreshold();
  // The target's triple when it is not the host (AArch64 AOT): the dot and
  // convolution emitters size their register tiles by its vector registers.
  std::string target_triple;
  // The features of the x86-64 CPU the kernels are for (TargetCpu::
  // features), which size the dot and convolution register tiles; empty:
  // the host's. CompileForCpu sets it from JitOptions::cpu / cpu_features.
  std::string cpu_features;
};

class CpuModuleEmitter {
 public:
  CpuModuleEmitter(const std::string& module_name,
                   const CpuCodegenOptions& options);
  ~CpuModuleEmitter();

  // Emits a kernel computing `hlo` (see the ABI above), named after `name`
  // (made a valid, unused symbol); returns the symbol. On error
  // (Unimplemented: an op, type or shape code generation does not handle)
  // nothing of the kernel is left in the module.
  absl::StatusOr<std::string> EmitKernel(const HloInstruction& hlo,
                                         const std::string& name);

  // Emits the kernel of a dynamic-update-slice, or of a fusion rooted at
  // one (runtime/buffer_assignment.h, InPlaceOperand >= 0), for when its
  // output buffer is that operand's: it stores the update's elements alone
  // (backends/common/in_place_update.h). The ABI is EmitKernel's.
  absl::StatusOr<std::string> EmitInPlaceUpdateKernel(const HloInstruction& hlo,
                                                      const std::string& name);

  // The module as text, before optimization.
  std::string ModuleText() const;

  // Optimizes and compiles the module; the emitter is spent afterwards.
  absl::StatusOr<std::unique_ptr<JitModule>> Finish(const JitOptions& options);

  // Hands over the module as emitted (no target set, not optimized) and its
  // context, for a target other than the host (aarch64_aot.h); the emitter
  // is spent afterwards.
  absl::Status ReleaseModule(std::unique_ptr<llvm::LLVMContext>* context,
                             std::unique_ptr<llvm::Module>* module);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace hloc

#endif  // BACKENDS_CPU_IR_EMITTER_H_

// CpuExecutor: runs an Executable (executable.h) on the host, given the
// addresses of its kernels. It compiles nothing and includes no LLVM: the
// compiler hands it JIT-compiled kernels (backends/cpu), the loader kernels
// linked from a saved executable's object code (object_loader.h).
//
// A run takes one block for the arena and the outputs (64-byte aligned;
// the previous run's when no other run holds it), binds each parameter
// leaf to the caller's data (copied only where its layout is not
// row-major), reads constants where the executable holds them, then walks
// the steps: a kernel call with the step's slot addresses, or the
// reference evaluator on the step's one-instruction module. The result is
// read from the result slots.
#ifndef RUNTIME_CPU_EXECUTOR_H_
#define RUNTIME_CPU_EXECUTOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "runtime/executable.h"

namespace hloc {

class CpuExecutor {
 public:
  using Kernel = void (*)(void** buffers);
  // The address of a kernel symbol.
  using KernelResolver =
      std::function<absl::StatusOr<void*>(const std::string& symbol)>;

  // Validates the executable, resolves every kernel, parses and verifies
  // every evaluator step's module and checks its signature against the
  // step's slots.
  static absl::StatusOr<std::unique_ptr<CpuExecutor>> Create(
      Executable executable, const KernelResolver& resolve);
  ~CpuExecutor();

  // One argument per entry parameter, shapes compatible with the
  // parameters' (literals are row-major whatever the layout). Runs may
  // overlap: each has its own memory.
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments);

  const Executable& executable() const { return executable_; }
  // Evaluator steps run so far, over all runs.
  int64_t fallback_runs() const { return fallback_runs_.load(); }
  // Bytes a run allocates (arena and outputs, aligned).
  int64_t run_bytes() const { return run_bytes_; }

 private:
  struct AlignedFree {
    void operator()(uint8_t* p) const;
  };
  using Block = std::unique_ptr<uint8_t[], AlignedFree>;

  CpuExecutor() = default;
  absl::Status EvaluateStep(size_t step, const std::vector<uint8_t*>& slots);
  // A run's block: the one kept from an earlier run if free, else new.
  Block TakeBlock();
  void ReturnBlock(Block block);

  Executable executable_;
  std::vector<Kernel> kernels_;                      // per step (kernel steps)
  std::vector<std::unique_ptr<HloModule>> modules_;  // per step (evaluator)
  // Where each arena/output allocation starts in a run's block.
  std::vector<int64_t> run_offset_;
  int64_t run_bytes_ = 0;
  std::atomic<int64_t> fallback_runs_{0};
  // One block kept between runs (its pages stay mapped).
  std::mutex block_mutex_;
  Block spare_block_;
};

}  // namespace hloc

#endif  // RUNTIME_CPU_EXECUTOR_H_

// CpuExecutor: runs an Executable (executable.h) on the host, given the
// addresses of its kernels. It compiles nothing and includes no LLVM: the
// compiler hands it JIT-compiled kernels (backends/cpu), the loader kernels
// linked from a saved executable's object code (object_loader.h).
//
// A run first creates its result literal, uninitialised, and binds each
// result leaf that can be written in place to its output allocation: the
// kernels then write the result's own storage and nothing is copied
// afterwards (large literal blocks are recycled by LargeBlockAllocator, so
// a caller that drops the previous result before the next run gets warm
// pages). A leaf is bound when its slot is the whole of an output
// allocation (offset 0, the leaf's dense bytes; every slot of that
// allocation inside it), its layout is row-major (literals always are) and
// no other result leaf names that allocation. Other leaves (a parameter or
// constant returned as is, a value returned twice, a non-row-major layout,
// an empty array) are copied from their slots after the steps, as before.
//
// The arena and the unbound outputs share one block per run (64-byte
// aligned; the previous run's when no other run holds it). Parameter
// leaves are bound to the caller's data (copied only where their layout is
// not row-major), constants are read where the executable holds them, then
// the steps run: a kernel call with the step's slot addresses, a host
// library call (FFTW, LAPACK; cpu_library_call.h), a while or conditional
// driven from here with nested steps (what the compiler emits where a loop
// body or a branch holds a library call, which no generated kernel can
// make; a copy step moves the loop state), a collective with the
// other devices of a replicated run (host_collectives.h), or the reference
// evaluator on the step's one-instruction module.
//
// Replicated runs: one executor serves every device; each device's thread
// calls Run with its HostReplica (its device id and the communicator the
// threads share). Collectives run only as top-level steps: one inside an
// evaluator step (a while or conditional body, which the CPU compiles
// into one kernel, drives from here or evaluates whole, or a collective
// the step maker declined) would meet no peer, so a run of more than one
// device refuses such a step instead of giving a wrong answer; a
// collective step nested in host-driven control flow is refused when the
// executor is created.
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
#include "hlo/large_block_allocator.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "runtime/cpu_library_call.h"
#include "runtime/denormals.h"
#include "runtime/evaluator_step.h"
#include "runtime/executable.h"
#include "runtime/host_collectives.h"
#include "runtime/while_limit.h"

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
  // overlap: each has its own memory. The steps run in `denormals` mode
  // (runtime/denormals.h; flushed by default, as XLA:CPU does). A while
  // loop (compiled, or in an evaluator step) that runs more than
  // `max_while_iterations` iterations stops the run with DeadlineExceeded
  // naming it (0: no limit; runtime/while_limit.h). `replica` says which
  // device of a replicated run this is; by default device 0 of a
  // one-device run, where every collective is a group of one.
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments,
                              DenormalMode denormals = DenormalMode::kFlush,
                              int64_t max_while_iterations = 0,
                              const HostReplica& replica = {});

  const Executable& executable() const { return executable_; }
  // Evaluator steps run so far, over all runs.
  int64_t fallback_runs() const { return fallback_runs_.load(); }
  // Bytes of a run's block: the arena and the outputs not written in place
  // (aligned).
  int64_t run_bytes() const { return run_bytes_; }
  // Per result leaf (depth-first): whether kernels write it in place.
  std::vector<bool> result_in_place() const;
  // Bytes copied from slots into results, over all runs (0 when every
  // result leaf is written in place).
  int64_t result_bytes_copied() const { return result_bytes_copied_.load(); }

 private:
  // A run's block (arena and the outputs not written in place) or a staged
  // parameter, from the large-block allocator; empty when out of memory.
  static ByteBlock AllocateBlock(int64_t bytes);

  CpuExecutor() = default;
  // A run's block: the one kept from an earlier run if free, else new.
  ByteBlock TakeBlock();
  void ReturnBlock(ByteBlock block);

  // What one step needs at run time, resolved once by Create; a while's
  // and a conditional's nested steps have theirs in the same shape.
  struct PreparedStep {
    Kernel kernel = nullptr;
    std::unique_ptr<EvaluatorStep> evaluator;
    std::unique_ptr<CpuLibraryCall> library_call;
    // For an evaluator step whose module holds a collective or a device id
    // (so it cannot run on more than one device), the first such
    // instruction ("OPCODE NAME"); empty otherwise.
    std::string device_dependent;
    std::vector<PreparedStep> condition;
    std::vector<PreparedStep> body;
    std::vector<std::vector<PreparedStep>> branches;
  };
  // What the steps of one run share.
  struct RunContext {
    const std::vector<uint8_t*>* address;
    HostCollectives* collectives;
    int64_t device;
    int64_t max_while_iterations;
    const ScopedWhileLimit* while_limit;
  };
  // Resolves `steps` (nested ones too) into `out`; `what` prefixes errors.
  absl::Status Prepare(const std::vector<ExecutableStep>& steps,
                       const std::string& what, const KernelResolver& resolve,
                       std::vector<PreparedStep>* out);
  // The first device-dependent evaluator step of `steps` (nested too), as
  // "step S (INSTRUCTION) holds OPCODE NAME", or "".
  static std::string DeviceDependent(const std::vector<ExecutableStep>& steps,
                                     const std::vector<PreparedStep>& prepared);
  absl::Status RunSteps(const std::vector<ExecutableStep>& steps,
                        const std::vector<PreparedStep>& prepared,
                        const RunContext& context);

  Executable executable_;
  std::vector<PreparedStep> prepared_;  // per top-level step
  // Whether any step is a collective (a one-device run then needs its own
  // communicator).
  bool has_collectives_ = false;
  // Plans where results are written; lays out the run's block.
  void PlanMemory();
  // Runs collective `step` (top-level step `s`) of a run.
  absl::Status RunCollective(size_t s, const ExecutableStep& step,
                             const RunContext& context) const;

  // Where each arena/unbound output allocation starts in a run's block.
  std::vector<int64_t> run_offset_;
  int64_t run_bytes_ = 0;
  // Per result leaf: the output allocation bound to its storage, or -1.
  std::vector<int64_t> result_allocation_;
  std::atomic<int64_t> fallback_runs_{0};
  std::atomic<int64_t> result_bytes_copied_{0};
  // One block kept between runs (its pages stay mapped).
  std::mutex block_mutex_;
  ByteBlock spare_block_;
};

}  // namespace hloc

#endif  // RUNTIME_CPU_EXECUTOR_H_

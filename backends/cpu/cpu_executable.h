// CpuExecutable: a module compiled for the host CPU. The entry
// computation's instructions run in order, each one a JIT-compiled kernel,
// an evaluator fallback, or nothing at all (parameters, constants, tuples,
// get-tuple-element and bitcast only name buffers).
//
// Buffers: the buffer assignment (runtime/buffer_assignment.h) puts the
// intermediates in one arena with memory reused between values whose live
// ranges do not overlap; parameters, constants and outputs have buffers of
// their own. Compilation also produces the runtime's Executable (kernels'
// object code when asked for, steps, buffer plan; runtime/executable.h),
// and runs go through the runtime's CpuExecutor, the same code that runs a
// saved and reloaded executable. Kernels address buffers only through the
// `void** buffers` array a step hands them.
//
// Library calls: fft (FFTW), cholesky and triangular-solve (LAPACK) and
// JAX's LAPACK custom calls run as host library calls
// (backends/cpu/library_calls.h).
//
// Collectives (all-reduce, all-gather, reduce-scatter, all-to-all,
// collective-permute) and replica-id / partition-id are collective steps
// (backends/common/collective_step.h) the runtime runs between the device
// threads of a replicated run (Run's `replica`; runtime/host_collectives.h).
//
// Fallback: an instruction code generation does not support (other
// custom-calls, rng, complex dots and convolutions, ...) runs in the
// reference evaluator on its operands. It is
// never silent: the compiler logs each one to stderr once, the executable
// lists them (fallback_instructions) and counts every fallback run.
#ifndef BACKENDS_CPU_CPU_EXECUTABLE_H_
#define BACKENDS_CPU_CPU_EXECUTABLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/cpu/jit.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "runtime/buffer_assignment.h"
#include "runtime/cpu_executor.h"
#include "runtime/denormals.h"
#include "runtime/dense_buffer.h"
#include "runtime/executable.h"

namespace hloc {

struct CpuStep {
  // kControlFlow: a while or conditional driven from the host, with
  // nested steps (runtime/cpu_executor.h), or one of its initial copies.
  enum class Kind {
    kKernel,
    kEvaluator,
    kLibraryCall,
    kCollective,
    kControlFlow
  };
  Kind kind;
  const HloInstruction* instruction;
  // kKernel: the kernel.
  std::string kernel_name;
  void (*kernel)(void** buffers) = nullptr;
  // The values (buffer assignment) of its operand leaves, then of its
  // output leaves.
  std::vector<int64_t> buffers;
  // kEvaluator: why code generation declined.
  std::string fallback_reason;
  // kLibraryCall: the host library call (backends/cpu/library_calls.h).
  std::string library;
};

class CpuExecutable {
 public:
  CpuExecutable(std::unique_ptr<HloModule> module, BufferAssignment assignment,
                std::vector<CpuStep> steps, std::unique_ptr<JitModule> jit,
                std::unique_ptr<CpuExecutor> executor);
  ~CpuExecutable();

  // Runs the entry computation; one argument per entry parameter, shapes
  // compatible with the parameters' (layouts ignored: literals are
  // row-major). Denormals are flushed unless `denormals` says keep
  // (runtime/denormals.h). A while loop past `max_while_iterations`
  // iterations stops the run with an error naming it (0: no limit).
  // `replica`: the device of a replicated run this is (CpuExecutor::Run).
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments,
                              DenormalMode denormals = DenormalMode::kFlush,
                              int64_t max_while_iterations = 0,
                              const HostReplica& replica = {});

  const HloModule& module() const { return *module_; }
  const std::vector<CpuStep>& steps() const { return steps_; }
  // Names of the instructions that run in the evaluator (nested ones in
  // host-driven control flow too).
  std::vector<std::string> fallback_instructions() const;
  // Evaluator fallback steps run so far (over all Run calls).
  int64_t fallback_runs() const { return executor_->fallback_runs(); }
  int64_t kernel_count() const;  // kernel steps, nested ones too

  const BufferAssignment& buffer_assignment() const { return assignment_; }
  // What the runtime runs; complete enough to save (WriteExecutableFile)
  // when compiled with CpuCompileOptions::keep_executable.
  const Executable& executable() const { return executor_->executable(); }

  // Set when compiled with JitOptions::keep_ir / keep_asm.
  const std::string& optimized_ir() const { return jit_->optimized_ir(); }
  const std::string& assembly() const { return jit_->assembly(); }
  const std::string& cpu_name() const { return jit_->cpu_name(); }
  // Set when compiled with JitOptions::keep_object.
  const std::string& object_code() const { return jit_->object_code(); }

 private:
  std::unique_ptr<HloModule> module_;
  BufferAssignment assignment_;
  std::vector<CpuStep> steps_;
  std::unique_ptr<JitModule> jit_;
  // After jit_: destroyed before the code it calls.
  std::unique_ptr<CpuExecutor> executor_;
};

}  // namespace hloc

#endif  // BACKENDS_CPU_CPU_EXECUTABLE_H_

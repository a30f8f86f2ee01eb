// CpuExecutable: a module compiled for the host CPU and the simple driver
// that runs it: the entry computation's instructions in order, each one a
// JIT-compiled kernel, an evaluator fallback, or nothing at all (parameters,
// constants, tuples, get-tuple-element and bitcast only name buffers).
//
// Buffers: BufferPlan gives every array leaf of every entry value its own
// allocation (no reuse yet), except that tuple, get-tuple-element, bitcast
// and opt-barrier alias their operand's. Allocations are dense in the
// layout of the value's shape and made fresh, 64-byte aligned, per Run.
// Buffer assignment with reuse and a serialized executable will replace
// BufferPlan and the Step list; kernels already address buffers only
// through the `void** buffers` array a step hands them.
//
// Fallback: an instruction code generation does not support (dot,
// convolution, sort, while, conditional, call, scatter, custom-call, rng,
// complex types, ...) runs in the reference evaluator on its operands. It is
// never silent: the compiler logs each one to stderr once, the executable
// lists them (fallback_instructions) and counts every fallback run.
#ifndef BACKENDS_CPU_CPU_EXECUTABLE_H_
#define BACKENDS_CPU_CPU_EXECUTABLE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/cpu/jit.h"
#include "hlo/literal.h"
#include "hlo/module.h"

namespace hloc {

// Where each entry value lives: allocation ids of its array leaves, in
// depth-first order of its shape.
struct BufferPlan {
  std::vector<int64_t> allocation_bytes;
  absl::flat_hash_map<const HloInstruction*, std::vector<int64_t>> leaves;
};

struct CpuStep {
  enum class Kind { kKernel, kEvaluator };
  Kind kind;
  const HloInstruction* instruction;
  // kKernel: the kernel and its buffers (operand leaves, then output leaves).
  std::string kernel_name;
  void (*kernel)(void** buffers) = nullptr;
  std::vector<int64_t> buffers;
  // kEvaluator: why code generation declined.
  std::string fallback_reason;
};

class CpuExecutable {
 public:
  CpuExecutable(std::unique_ptr<HloModule> module, BufferPlan plan,
                std::vector<CpuStep> steps, std::unique_ptr<JitModule> jit);
  ~CpuExecutable();

  // Runs the entry computation; one argument per entry parameter, shapes
  // compatible with the parameters' (layouts ignored: literals are
  // row-major).
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments);

  const HloModule& module() const { return *module_; }
  const std::vector<CpuStep>& steps() const { return steps_; }
  // Names of the instructions that run in the evaluator.
  std::vector<std::string> fallback_instructions() const;
  // Evaluator fallback steps run so far (over all Run calls).
  int64_t fallback_runs() const { return fallback_runs_.load(); }
  int64_t kernel_count() const;

  // Set when compiled with JitOptions::keep_ir / keep_asm.
  const std::string& optimized_ir() const { return jit_->optimized_ir(); }
  const std::string& assembly() const { return jit_->assembly(); }
  const std::string& cpu_name() const { return jit_->cpu_name(); }

 private:
  std::unique_ptr<HloModule> module_;
  BufferPlan plan_;
  std::vector<CpuStep> steps_;
  std::unique_ptr<JitModule> jit_;
  std::atomic<int64_t> fallback_runs_{0};
};

// Dense bytes of a row-major literal laid out as `shape` says, and back.
void CopyLiteralToBuffer(const Literal& literal, const Shape& shape,
                         uint8_t* buffer);
Literal BufferToLiteral(const uint8_t* buffer, const Shape& shape);

}  // namespace hloc

#endif  // BACKENDS_CPU_CPU_EXECUTABLE_H_

// The CPU backend's entry points: compile a (fused) module to kernels for
// the host CPU (ir_emitter.h), JIT them (jit.h) and run them
// (cpu_executable.h).
//
// The module is expected to have gone through the CPU pass pipeline
// (fusion included), but any valid module compiles: every entry
// instruction that is not a fusion becomes a kernel of its own, or an
// evaluator fallback where code generation declines (see
// cpu_executable.h; CpuCompileOptions::allow_fallback). A custom call whose
// target the backend does not implement (custom_call_targets.h) is an
// Unimplemented error naming it: neither a kernel nor the evaluator can
// run it. Layouts must be plain (minor_to_major only) and shapes
// static.
#ifndef BACKENDS_CPU_CPU_COMPILER_H_
#define BACKENDS_CPU_CPU_COMPILER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/ir_emitter.h"
#include "backends/cpu/jit.h"
#include "runtime/buffer_assignment.h"
#include "hlo/literal.h"
#include "hlo/module.h"

namespace hloc {

struct CpuCompileOptions {
  CpuCodegenOptions codegen;
  JitOptions jit;
  // Whether an instruction code generation declines may run in the
  // evaluator (backends/common/evaluator_fallback.h). False (strict, as
  // hlo-opt/hlo-run --no-fallback): compilation fails listing each such
  // instruction and why. The host's default allows it; the AArch64 target,
  // which has no evaluator, and the GPU are strict.
  bool allow_fallback = true;
  // With allow_fallback: print one line to stderr per such instruction.
  bool log_fallbacks = true;
  // Make CpuExecutable::executable() complete enough to save: the kernels
  // as object code (implies jit.keep_object) and the module's text.
  bool keep_executable = false;
};

// The buffer assignment CompileForCpu uses for `module`'s entry
// computation (its instructions in MakeInstructionPostOrder order).
absl::StatusOr<BufferAssignment> AssignCpuBuffers(const HloModule& module);

absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileForCpu(
    const HloModule& module, const CpuCompileOptions& options = {});

// Compiles and runs once.
absl::StatusOr<Literal> RunOnCpu(const HloModule& fused_module,
                                 absl::Span<const Literal> args);

// The unoptimized LLVM IR of the module's kernels (for debugging; the
// optimized IR and assembly come from JitOptions keep_ir / keep_asm).
absl::StatusOr<std::string> EmitCpuLlvmIr(
    const HloModule& module, const CpuCodegenOptions& options = {});

}  // namespace hloc

#endif  // BACKENDS_CPU_CPU_COMPILER_H_

// JitModule: an LLVM module optimized with the O3 pipeline for the host CPU
// (or another x86-64 CPU: target_cpu.h) and compiled in memory by ORC's
// LLJIT. Kernels are looked up by name.
//
// The JIT resolves the module's external symbols as runtime/kernel_symbols.h
// says: the OpenMP entry points of libgomp, which the kernels call directly
// (see ir_emitter.h for why libgomp's GOMP_parallel), and the f16/bf16
// conversion builtins LLVM calls on CPUs without F16C or AVX512-BF16, by
// address; libm's math functions from this process.
//
// LLVM types appear here only as forward declarations, so that the code
// that runs kernels does not compile LLVM's headers.
#ifndef BACKENDS_CPU_JIT_H_
#define BACKENDS_CPU_JIT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "backends/common/compile_phase_times.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
class TargetOptions;
}  // namespace llvm

namespace hloc {

struct JitOptions {
  // Keep the optimized module's text (optimized_ir()).
  bool keep_ir = false;
  // Also compile the module to host assembly text (assembly()).
  bool keep_asm = false;
  // Compile to an object file (object_code()) and link that, so the code
  // that runs is the code a saved executable carries.
  bool keep_object = false;
  // The CPU to compile for and features to add or remove (target_cpu.h);
  // empty: the host's (or $HLOC_CPU). Code for a CPU with features this
  // host lacks can be kept (keep_ir, keep_asm, keep_object) but not run.
  std::string cpu;
  std::string cpu_features;
  // Whether a multiply feeding an add may round once, as a fused
  // multiply-add (SetCpuTargetOptions). False: every multiply and add
  // rounds as the HLO says, as the evaluator computes them (the
  // differential fuzzer, which compares the two exactly).
  bool contract_multiply_add = true;
  // Adds the time of LLVM's pipeline and of the object code (keep_object;
  // otherwise code generation happens at the first Lookup) here.
  CompilePhaseTimes* phase_times = nullptr;
};

// The O3 pipeline (loop and SLP vectorization, interleaving, unrolling)
// tuned for `target_machine`: what JitModule runs for the host, and what
// ahead-of-time targets (aarch64_aot.h) run for theirs.
void OptimizeModule(llvm::Module& module, llvm::TargetMachine* target_machine);

// What every CPU target machine is created with (the host's and the
// ahead-of-time targets'): multiplies and adds may be contracted into fused
// multiply-adds where the CPU has them (AllowFPOpFusion Fast), as XLA:CPU
// compiles (its CompilerTargetOptions: one rounding instead of two), so
// that results match XLA's to the bit where a computation amplifies the
// last bit (an escape-time loop, a long integration). With
// `contract_multiply_add` false, none are (JitOptions).
void SetCpuTargetOptions(llvm::TargetOptions& options,
                         bool contract_multiply_add = true);

class JitModule {
 public:
  // Optimizes `module` (its data layout and triple are set here) and hands
  // it to a new LLJIT instance.
  static absl::StatusOr<std::unique_ptr<JitModule>> Create(
      std::unique_ptr<llvm::LLVMContext> context,
      std::unique_ptr<llvm::Module> module, const JitOptions& options);
  ~JitModule();

  // The address of a function of the module.
  absl::StatusOr<void*> Lookup(absl::string_view name);

  const std::string& optimized_ir() const { return optimized_ir_; }
  const std::string& assembly() const { return assembly_; }
  // ELF relocatable object of the optimized module (keep_object).
  const std::string& object_code() const { return object_code_; }
  // The CPU the code was compiled for ("skylake-avx512"), its features
  // ("+avx2,-amx-tile,...": TargetCpu::features) and triple.
  const std::string& cpu_name() const { return cpu_name_; }
  const std::string& cpu_features() const { return cpu_features_; }
  const std::string& target_triple() const { return target_triple_; }

 private:
  struct State;
  JitModule();
  std::unique_ptr<State> state_;
  std::string optimized_ir_;
  std::string assembly_;
  std::string object_code_;
  std::string cpu_name_;
  std::string cpu_features_;
  std::string target_triple_;
};

}  // namespace hloc

#endif  // BACKENDS_CPU_JIT_H_

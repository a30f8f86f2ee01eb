// JitModule: an LLVM module optimized with the O3 pipeline for the host CPU
// and compiled in memory by ORC's LLJIT. Kernels are looked up by name.
//
// The JIT resolves the module's external symbols in this process: libm's
// math functions, and the OpenMP entry points of libgomp, which the kernels
// call directly (see ir_emitter.h for why libgomp's GOMP_parallel).
//
// LLVM types appear here only as forward declarations, so that the code
// that runs kernels does not compile LLVM's headers.
#ifndef BACKENDS_CPU_JIT_H_
#define BACKENDS_CPU_JIT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace hloc {

struct JitOptions {
  // Keep the optimized module's text (optimized_ir()).
  bool keep_ir = false;
  // Also compile the module to host assembly text (assembly()).
  bool keep_asm = false;
};

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
  // The host CPU the code was compiled for ("skylake-avx512").
  const std::string& cpu_name() const { return cpu_name_; }

 private:
  struct State;
  JitModule();
  std::unique_ptr<State> state_;
  std::string optimized_ir_;
  std::string assembly_;
  std::string cpu_name_;
};

}  // namespace hloc

#endif  // BACKENDS_CPU_JIT_H_

// Machine code for an LLVM module as an ELF relocatable object (what a
// saved executable carries; runtime/object_loader.h links it back in).
// LLVM types are forward-declared: only object_emitter.cc and jit.cc
// include LLVM's headers.
#ifndef BACKENDS_CPU_OBJECT_EMITTER_H_
#define BACKENDS_CPU_OBJECT_EMITTER_H_

#include <string>

#include "absl/status/statusor.h"

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace hloc {

// Compiles `module` (already optimized; its triple and data layout set for
// `target_machine`) to object code. Code generation changes the module:
// pass a copy to keep it.
absl::StatusOr<std::string> EmitObjectCode(llvm::Module& module,
                                           llvm::TargetMachine& target_machine);

}  // namespace hloc

#endif  // BACKENDS_CPU_OBJECT_EMITTER_H_

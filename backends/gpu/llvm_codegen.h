// What every GPU target does with LLVM once the kernels are emitted and
// the device library is linked: the O3 pipeline for its target machine,
// and the target machine's assembly or object output.
#ifndef BACKENDS_GPU_LLVM_CODEGEN_H_
#define BACKENDS_GPU_LLVM_CODEGEN_H_

#include <string>

#include "absl/status/statusor.h"

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace hloc {

// LLVM's default O3 module pipeline with `tm`'s own passes (NVPTX's and
// AMDGPU's address-space inference, for example).
void OptimizeModule(llvm::Module* module, llvm::TargetMachine* tm);

// `module` as assembly text (`object` false) or an object file's bytes.
absl::StatusOr<std::string> EmitMachineCode(llvm::Module* module,
                                            llvm::TargetMachine* tm,
                                            bool object);

}  // namespace hloc

#endif  // BACKENDS_GPU_LLVM_CODEGEN_H_

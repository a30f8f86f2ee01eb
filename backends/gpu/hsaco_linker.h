// Linking an AMDGPU relocatable object into an HSA code object (a shared
// ELF the HIP runtime loads) with LLVM's lld. No LLVM headers or
// libraries: lld runs as a program.
#ifndef BACKENDS_GPU_HSACO_LINKER_H_
#define BACKENDS_GPU_HSACO_LINKER_H_

#include <string>

#include "absl/status/statusor.h"

namespace hloc {

// $HLOC_LD_LLD if set, else ld.lld-19 or ld.lld on $PATH; an error saying
// how to get it otherwise.
absl::StatusOr<std::string> FindLdLld();

// `ld.lld -shared` on the object's bytes: the code object's bytes.
absl::StatusOr<std::string> LinkHsaco(const std::string& object);

}  // namespace hloc

#endif  // BACKENDS_GPU_HSACO_LINKER_H_

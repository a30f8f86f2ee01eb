// Finding the external programs the backends run (the AArch64 cross
// compiler and qemu, ld.lld for AMDGPU code objects, llvm-readobj) on PATH.
#ifndef BACKENDS_COMMON_FIND_ON_PATH_H_
#define BACKENDS_COMMON_FIND_ON_PATH_H_

#include <string>

namespace hloc {

// The first executable called `name` in $PATH's directories, or "".
std::string FindOnPath(const std::string& name);

}  // namespace hloc

#endif  // BACKENDS_COMMON_FIND_ON_PATH_H_

// Linking a vendor's device library (NVIDIA's libdevice, AMD's ocml, ockl
// and oclc_* control files) into a kernel module: only the functions and
// globals the module uses, then internal so that the optimizer inlines
// them and drops their bodies. Shared by the GPU targets.
#ifndef BACKENDS_GPU_DEVICE_BITCODE_H_
#define BACKENDS_GPU_DEVICE_BITCODE_H_

#include <set>
#include <string>

#include "absl/status/status.h"

namespace llvm {
class Module;
}  // namespace llvm

namespace hloc {

// Links the definitions `module` needs from the bitcode file at `path`
// (LinkOnlyNeeded), with the module's triple and data layout. `what` names
// the library in errors. The file is read once per process: parsing a
// whole device library (thousands of functions) per compile dominated the
// compile of a module with maths; each link parses it lazily into the
// module's context, so only what is called is materialized.
absl::Status LinkBitcodeOnlyNeeded(llvm::Module* module,
                                   const std::string& path,
                                   const std::string& what);

// The names of the functions and variables `module` defines.
std::set<std::string> DefinedSymbols(const llvm::Module& module);

// Gives every definition not in `keep` internal linkage.
void InternalizeAllBut(llvm::Module* module, const std::set<std::string>& keep);

}  // namespace hloc

#endif  // BACKENDS_GPU_DEVICE_BITCODE_H_

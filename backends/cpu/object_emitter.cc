#include "backends/cpu/object_emitter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace hloc {

absl::StatusOr<std::string> EmitObjectCode(
    llvm::Module& module, llvm::TargetMachine& target_machine) {
  llvm::SmallString<0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager pm;
  if (target_machine.addPassesToEmitFile(pm, os, nullptr,
                                         llvm::CodeGenFileType::ObjectFile)) {
    return absl::InternalError("the target cannot emit object files");
  }
  pm.run(module);
  return std::string(object.data(), object.size());
}

}  // namespace hloc

#include "backends/gpu/llvm_codegen.h"

#include "absl/strings/str_cat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace hloc {

void OptimizeModule(llvm::Module* module, llvm::TargetMachine* tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(*module, mam);
}

absl::StatusOr<std::string> EmitMachineCode(llvm::Module* module,
                                            llvm::TargetMachine* tm,
                                            bool object) {
  llvm::SmallString<0> code;
  llvm::raw_svector_ostream os(code);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              object ? llvm::CodeGenFileType::ObjectFile
                                     : llvm::CodeGenFileType::AssemblyFile)) {
    return absl::InternalError(
        absl::StrCat("the LLVM target ", tm->getTargetTriple().str(),
                     " cannot emit ", object ? "an object file" : "assembly"));
  }
  pm.run(*module);
  return std::string(code.data(), code.size());
}

}  // namespace hloc

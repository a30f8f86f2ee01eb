#include "backends/gpu/llvm_codegen.h"

#include "absl/strings/str_cat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Vectorize/LoadStoreVectorizer.h"

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
  // Adjacent accesses the emitters leave as scalars (a transpose lane's two
  // bf16 elements, a fusion's neighbouring parameter reads) become one
  // vector access here, after O3 has inferred their alignment from the
  // kernels' 16-byte-aligned parameters. The NVPTX code generator runs
  // this pass too, but only after lowering the parameters to the global
  // address space, where it no longer proves that alignment: x.T + y in
  // bf16 kept 2-byte loads and stores.
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(
      llvm::LoadStoreVectorizerPass()));
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

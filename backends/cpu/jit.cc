#include "backends/cpu/jit.h"

#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/cpu/object_emitter.h"
#include "backends/cpu/target_cpu.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "runtime/kernel_symbols.h"

namespace hloc {
namespace {

std::string ToString(llvm::Error error) {
  return llvm::toString(std::move(error));
}

void InitializeLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

}  // namespace

namespace {

// Makes identical functions one before O3, so that O3 and code generation
// see each once: unrolled loops (fori_loop(unroll=True), a Python list of
// layers) emit the same kernels again and again, and O3 over a thousand
// copies took most of such a compile (fori_unrolled_layers: 1004
// functions, 438 different). MergeFunctions compares the IR itself
// (attributes, types, every instruction), so only functions that compute
// the same thing merge; an external one (a kernel's entry) becomes a call
// of the one kept, which the JIT and the object file still find by its
// name. Those calls are marked noinline: O3 would otherwise inline a small
// kernel back into its twin's entry and optimize the copy again.
void MergeIdenticalFunctions(llvm::Module& module) {
  auto is_single_call = [](const llvm::Function& f) {
    return !f.isDeclaration() && f.size() == 1 && f.front().size() == 2 &&
           llvm::isa<llvm::CallInst>(f.front().front());
  };
  llvm::SmallPtrSet<const llvm::Function*, 16> single_calls;
  for (const llvm::Function& f : module) {
    if (is_single_call(f)) single_calls.insert(&f);
  }
  // MergeFunctions asks for no analyses.
  llvm::ModuleAnalysisManager no_analyses;
  llvm::MergeFunctionsPass().run(module, no_analyses);
  for (llvm::Function& f : module) {
    if (is_single_call(f) && !single_calls.contains(&f)) {
      llvm::cast<llvm::CallInst>(f.front().front()).setIsNoInline();
    }
  }
}

}  // namespace

void OptimizeModule(llvm::Module& module, llvm::TargetMachine* tm) {
  MergeIdenticalFunctions(module);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopInterleaving = true;
  tuning.LoopUnrolling = true;
  llvm::PassBuilder pb(tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
}

void SetCpuTargetOptions(llvm::TargetOptions& options,
                         bool contract_multiply_add) {
  options.AllowFPOpFusion = contract_multiply_add ? llvm::FPOpFusion::Fast
                                                  : llvm::FPOpFusion::Strict;
}

struct JitModule::State {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

JitModule::JitModule() : state_(std::make_unique<State>()) {}
JitModule::~JitModule() = default;

absl::StatusOr<std::unique_ptr<JitModule>> JitModule::Create(
    std::unique_ptr<llvm::LLVMContext> context,
    std::unique_ptr<llvm::Module> module, const JitOptions& options) {
  InitializeLlvmOnce();
  absl::StatusOr<TargetCpu> cpu =
      ResolveTargetCpu(options.cpu, options.cpu_features);
  if (!cpu.ok()) return cpu.status();
  llvm::orc::JITTargetMachineBuilder jtmb{
      llvm::Triple(llvm::sys::getProcessTriple())};
  jtmb.setCPU(cpu->name);
  for (absl::string_view f : absl::StrSplit(cpu->features, ',')) {
    jtmb.getFeatures().AddFeature(llvm::StringRef(f.data(), f.size()));
  }
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  SetCpuTargetOptions(jtmb.getOptions(), options.contract_multiply_add);
  auto tm = jtmb.createTargetMachine();
  if (!tm) return absl::InternalError(ToString(tm.takeError()));

  std::unique_ptr<JitModule> result(new JitModule());
  result->cpu_name_ = (*tm)->getTargetCPU().str();
  module->setDataLayout((*tm)->createDataLayout());
  module->setTargetTriple((*tm)->getTargetTriple().str());
  const std::string& features = cpu->features;
  result->cpu_features_ = features;
  result->target_triple_ = (*tm)->getTargetTriple().str();
  for (llvm::Function& f : *module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", result->cpu_name_);
    if (!features.empty()) f.addFnAttr("target-features", features);
  }
  {
    std::string errors;
    llvm::raw_string_ostream os(errors);
    if (llvm::verifyModule(*module, &os)) {
      return absl::InternalError(
          absl::StrCat("generated LLVM IR is invalid: ", os.str()));
    }
  }
  {
    ScopedPhaseTimer timer(
        PhaseField(options.phase_times, &CompilePhaseTimes::optimize_s));
    OptimizeModule(*module, tm->get());
  }
  if (options.keep_ir) {
    llvm::raw_string_ostream os(result->optimized_ir_);
    module->print(os, nullptr);
  }
  if (options.keep_asm) {
    // Code generation changes the module (CodeGenPrepare), so print a copy.
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*module);
    llvm::SmallString<0> text;
    llvm::raw_svector_ostream os(text);
    llvm::legacy::PassManager pm;
    if ((*tm)->addPassesToEmitFile(pm, os, nullptr,
                                   llvm::CodeGenFileType::AssemblyFile)) {
      return absl::InternalError("the target cannot emit assembly");
    }
    pm.run(*copy);
    result->assembly_ = text.str().str();
  }

  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(jtmb))
                 .create();
  if (!jit) return absl::InternalError(ToString(jit.takeError()));
  absl::Status status = DefineKernelRuntimeSymbols(**jit);
  if (!status.ok()) return status;
  if (options.keep_object) {
    absl::StatusOr<std::string> object = [&] {
      ScopedPhaseTimer timer(
          PhaseField(options.phase_times, &CompilePhaseTimes::codegen_s));
      return EmitObjectCode(*module, **tm);
    }();
    if (!object.ok()) return object.status();
    result->object_code_ = *std::move(object);
    // The module must go before its context (the caller would destroy the
    // arguments in either order).
    module.reset();
    context.reset();
    if (llvm::Error e =
            (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
                result->object_code_, "hloc-kernels.o"))) {
      return absl::InternalError(ToString(std::move(e)));
    }
  } else if (llvm::Error e = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(
                 std::move(module), std::move(context)))) {
    return absl::InternalError(ToString(std::move(e)));
  }
  result->state_->jit = std::move(*jit);
  return result;
}

absl::StatusOr<void*> JitModule::Lookup(absl::string_view name) {
  auto address = state_->jit->lookup(llvm::StringRef(name.data(), name.size()));
  if (!address) {
    return absl::NotFoundError(absl::StrCat("JIT lookup of ", std::string(name),
                                            ": ",
                                            ToString(address.takeError())));
  }
  return address->toPtr<void*>();
}

}  // namespace hloc

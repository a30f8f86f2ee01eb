#include "backends/gpu/device_bitcode.h"

#include <map>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

namespace hloc {
namespace {

absl::Status CachedBitcode(const std::string& path, const std::string& what,
                           llvm::MemoryBufferRef* ref) {
  static std::mutex mutex;
  static auto* buffers =
      new std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = buffers->find(path);
  if (it == buffers->end()) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(path);
    if (!buffer) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot read ", what, " ", path, ": ", buffer.getError().message()));
    }
    it = buffers->emplace(path, std::move(*buffer)).first;
  }
  *ref = it->second->getMemBufferRef();
  return absl::OkStatus();
}

}  // namespace

absl::Status LinkBitcodeOnlyNeeded(llvm::Module* module,
                                   const std::string& path,
                                   const std::string& what) {
  llvm::MemoryBufferRef bitcode;
  if (absl::Status s = CachedBitcode(path, what, &bitcode); !s.ok()) return s;
  llvm::Expected<std::unique_ptr<llvm::Module>> lazy =
      llvm::getLazyBitcodeModule(bitcode, module->getContext());
  if (!lazy) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read ", what, " ", path, ": ",
                     llvm::toString(lazy.takeError())));
  }
  std::unique_ptr<llvm::Module> library = std::move(*lazy);
  library->setTargetTriple(module->getTargetTriple());
  library->setDataLayout(module->getDataLayout());
  if (llvm::Linker::linkModules(*module, std::move(library),
                                llvm::Linker::Flags::LinkOnlyNeeded)) {
    return absl::InternalError(absl::StrCat("cannot link ", what, " ", path));
  }
  return absl::OkStatus();
}

std::set<std::string> DefinedSymbols(const llvm::Module& module) {
  std::set<std::string> names;
  for (const llvm::Function& fn : module) {
    if (!fn.isDeclaration()) names.insert(fn.getName().str());
  }
  for (const llvm::GlobalVariable& g : module.globals()) {
    if (!g.isDeclaration()) names.insert(g.getName().str());
  }
  return names;
}

void InternalizeAllBut(llvm::Module* module,
                       const std::set<std::string>& keep) {
  for (llvm::Function& fn : *module) {
    if (!fn.isDeclaration() && keep.count(fn.getName().str()) == 0) {
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  for (llvm::GlobalVariable& g : module->globals()) {
    if (!g.isDeclaration() && keep.count(g.getName().str()) == 0) {
      g.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
}

}  // namespace hloc

#include "runtime/object_loader.h"

#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include "runtime/kernel_symbols.h"

namespace hloc {
namespace {

std::string ToString(llvm::Error error) {
  return llvm::toString(std::move(error));
}

void InitializeLlvmOnce() {
  static std::once_flag once;
  // The target's description (data layout, object format), not its code
  // generator, is what linking needs.
  std::call_once(once, [] { llvm::InitializeNativeTarget(); });
}

}  // namespace

struct LoadedObject::State {
  std::string name;
  // Linking errors ORC reports on the side (the lookup error only says
  // that materialization failed).
  std::mutex mutex;
  std::vector<std::string> errors;
  // Last: destroyed first, while its error reporter may still report.
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

LoadedObject::LoadedObject() : state_(std::make_unique<State>()) {}
LoadedObject::~LoadedObject() = default;

absl::StatusOr<std::unique_ptr<LoadedObject>> LoadedObject::Load(
    absl::string_view object_code, absl::string_view name) {
  InitializeLlvmOnce();
  std::unique_ptr<LoadedObject> result(new LoadedObject());
  State* state = result->state_.get();
  state->name = std::string(name);
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) return absl::InternalError(ToString(jit.takeError()));
  (*jit)->getExecutionSession().setErrorReporter([state](llvm::Error error) {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->errors.push_back(ToString(std::move(error)));
  });
  absl::Status status = DefineKernelRuntimeSymbols(**jit);
  if (!status.ok()) return status;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(object_code.data(), object_code.size()), state->name);
  if (llvm::Error e = (*jit)->addObjectFile(std::move(buffer))) {
    return absl::InvalidArgumentError(absl::StrCat(
        state->name,
        ": the object code does not load: ", ToString(std::move(e))));
  }
  state->jit = std::move(*jit);
  return result;
}

absl::StatusOr<void*> LoadedObject::Lookup(const std::string& symbol) {
  auto address = state_->jit->lookup(symbol);
  if (!address) {
    std::string message = ToString(address.takeError());
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (!state_->errors.empty()) {
      absl::StrAppend(&message, " (", absl::StrJoin(state_->errors, "; "), ")");
    }
    return absl::NotFoundError(
        absl::StrCat(state_->name, ": symbol ", symbol, ": ", message));
  }
  return address->toPtr<void*>();
}

absl::Status CheckHostCanRun(const Executable& executable) {
  const llvm::Triple host(llvm::sys::getProcessTriple());
  const llvm::Triple target(executable.target_triple);
  if (target.getArch() != host.getArch() || target.getOS() != host.getOS()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the executable was compiled for ",
                     executable.target_triple, "; this host is ", host.str()));
  }
  const llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> missing;
  for (absl::string_view feature :
       absl::StrSplit(executable.cpu_features, ',', absl::SkipEmpty())) {
    if (feature[0] != '+') continue;
    const std::string name(feature.substr(1));
    auto it = features.find(name);
    if (it == features.end() || !it->second) missing.push_back(name);
  }
  if (!missing.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the executable was compiled for ", executable.cpu_name,
                     "; this host's CPU (", llvm::sys::getHostCPUName().str(),
                     ") lacks ", absl::StrJoin(missing, ", ")));
  }
  return absl::OkStatus();
}

LoadedCpuExecutable::~LoadedCpuExecutable() = default;

absl::StatusOr<std::unique_ptr<LoadedCpuExecutable>> LoadedCpuExecutable::Load(
    Executable executable) {
  absl::Status status = ValidateExecutable(executable);
  if (!status.ok()) return status;
  if (executable.platform != "cpu") {
    return absl::InvalidArgumentError(absl::StrCat(
        "the executable is for platform '", executable.platform, "', not cpu"));
  }
  std::unique_ptr<LoadedCpuExecutable> result(new LoadedCpuExecutable());
  if (!executable.object_code.empty()) {
    status = CheckHostCanRun(executable);
    if (!status.ok()) return status;
    absl::StatusOr<std::unique_ptr<LoadedObject>> object =
        LoadedObject::Load(executable.object_code, executable.name + ".o");
    if (!object.ok()) return object.status();
    result->object_ = *std::move(object);
  }
  LoadedObject* object = result->object_.get();
  absl::StatusOr<std::unique_ptr<CpuExecutor>> executor = CpuExecutor::Create(
      std::move(executable),
      [object](const std::string& symbol) -> absl::StatusOr<void*> {
        if (object == nullptr) {
          return absl::NotFoundError("the executable has no object code");
        }
        return object->Lookup(symbol);
      });
  if (!executor.ok()) return executor.status();
  result->executor_ = *std::move(executor);
  return result;
}

absl::StatusOr<std::unique_ptr<LoadedCpuExecutable>> LoadCpuExecutableFile(
    const std::string& path) {
  absl::StatusOr<Executable> executable = ReadExecutableFile(path);
  if (!executable.ok()) return executable.status();
  absl::StatusOr<std::unique_ptr<LoadedCpuExecutable>> loaded =
      LoadedCpuExecutable::Load(*std::move(executable));
  if (!loaded.ok()) {
    return absl::Status(loaded.status().code(),
                        absl::StrCat(path, ": ", loaded.status().message()));
  }
  return loaded;
}

}  // namespace hloc

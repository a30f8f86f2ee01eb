#include "backends/cpu/target_cpu.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

namespace hloc {
namespace {

void InitializeLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] { llvm::InitializeNativeTarget(); });
}

// `cpu` empty: the host's.
absl::StatusOr<TargetCpu> Resolve(absl::string_view cpu,
                                  absl::string_view features) {
  InitializeLlvmOnce();
  const std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target* target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr) return absl::InternalError(error);
  // The ISA features host detection reports (tuning flags are not among
  // them): the vocabulary of the list, so a loader can check every entry.
  const llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();

  TargetCpu result;
  std::vector<std::string> requested;
  if (cpu.empty()) {
    result.name = llvm::sys::getHostCPUName().str();
    for (const auto& f : host) {
      requested.push_back(absl::StrCat(f.second ? "+" : "-", f.first().str()));
    }
  } else {
    result.name = std::string(cpu);
    std::unique_ptr<llvm::MCSubtargetInfo> probe(
        target->createMCSubtargetInfo(triple, "", ""));
    if (!probe->isCPUStringValid(result.name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown CPU '", result.name, "' for ", triple,
          " (LLVM's names, e.g. x86-64-v2, x86-64-v3, x86-64-v4, znver3, "
          "znver4, skylake-avx512)"));
    }
  }
  for (absl::string_view f :
       absl::StrSplit(features, ',', absl::SkipWhitespace())) {
    const std::string name(f.substr(1));
    if ((f[0] != '+' && f[0] != '-') || !host.contains(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad CPU feature '", std::string(f),
          "': expected +NAME or -NAME with an ISA feature LLVM knows for ",
          triple, " (e.g. -avx512f,-f16c)"));
    }
    requested.push_back(std::string(f));
  }
  // LLVM applies the list in order with its implications; read back what
  // it arrived at.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, result.name,
                                    absl::StrJoin(requested, ",")));
  std::vector<std::string> resolved;
  for (const auto& f : host) {
    const std::string name = f.first().str();
    resolved.push_back(
        absl::StrCat(subtarget->checkFeatures("+" + name) ? "+" : "-", name));
  }
  std::sort(resolved.begin(), resolved.end(),
            [](const std::string& a, const std::string& b) {
              return a.substr(1) < b.substr(1);
            });
  result.features = absl::StrJoin(resolved, ",");
  return result;
}

}  // namespace

bool TargetCpu::Has(absl::string_view feature) const {
  for (absl::string_view f : absl::StrSplit(features, ',')) {
    if (f.size() == feature.size() + 1 && f[0] == '+' &&
        f.substr(1) == feature) {
      return true;
    }
  }
  return false;
}

absl::StatusOr<TargetCpu> ResolveTargetCpu(absl::string_view cpu,
                                           absl::string_view features) {
  if (cpu.empty()) {
    const char* env = std::getenv("HLOC_CPU");
    if (env != nullptr && *env != '\0') cpu = env;
  }
  return Resolve(cpu, features);
}

absl::StatusOr<TargetCpu> HostCpu() { return Resolve("", ""); }

}  // namespace hloc

#include "tools/compile_stages.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "runtime/buffer_assignment.h"
#include "runtime/executable.h"

namespace hloc {
namespace {

// The host CPU backend's stages after hlo, in compilation order.
const StageList& CpuStages() {
  static const auto* stages = new StageList{
      {"buffer-assignment",
       "the CPU buffer plan: each value's size, live range and offset, and "
       "the sum of all intermediates vs the arena's peak"},
      {"llvm", "the kernels' LLVM IR as emitted"},
      {"llvm-opt", "the kernels' LLVM IR after the O3 pipeline"},
      {"asm", "the kernels' assembly"},
      {"object", "the kernels as an ELF relocatable object (-o)"},
      {"executable",
       "the saved executable hlo-run loads (-o FILE.hloexe; without -o, a "
       "summary)"},
  };
  return *stages;
}

absl::StatusOr<std::string> CpuStageOutput(const HloModule& module,
                                           const std::string& stage,
                                           bool summary,
                                           CpuCompileOptions options) {
  if (stage == "buffer-assignment") {
    absl::StatusOr<BufferAssignment> assignment = AssignCpuBuffers(module);
    if (!assignment.ok()) return assignment.status();
    return assignment->ToString();
  }
  if (stage == "llvm") return EmitCpuLlvmIr(module, options.codegen);
  options.jit.keep_ir = stage == "llvm-opt";
  options.jit.keep_asm = stage == "asm";
  options.jit.keep_object = stage == "object";
  options.keep_executable = stage == "executable";
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(module, options);
  if (!executable.ok()) return executable.status();
  if (stage == "llvm-opt") return (*executable)->optimized_ir();
  if (stage == "asm") return (*executable)->assembly();
  if (stage == "object") return (*executable)->object_code();
  if (summary) return DescribeExecutable((*executable)->executable());
  return SerializeExecutable((*executable)->executable());
}

}  // namespace

const StageList& CommonStages() {
  static const auto* stages = new StageList{
      {"hlo", "the optimised HLO module after the platform's pipeline"},
  };
  return *stages;
}

const StageList& BackendStages(const std::string& platform) {
  static const auto* none = new StageList{};
  if (platform == "cpu") return CpuStages();
  if (platform == "cuda" || platform == "rocm") return GpuStages(platform);
  return *none;
}

bool HasStage(const StageList& stages, const std::string& stage) {
  for (const auto& entry : stages) {
    if (entry.first == stage) return true;
  }
  return false;
}

bool StageCompilesEveryInstruction(const std::string& platform,
                                   const std::string& stage) {
  if (platform == "cuda" || platform == "rocm") {
    return HasStage(GpuStages(platform), stage);
  }
  return platform == "cpu" && HasStage(CpuStages(), stage) &&
         stage != "buffer-assignment" && stage != "llvm";
}

absl::StatusOr<std::string> BackendStageOutput(const HloModule& module,
                                               const std::string& platform,
                                               const std::string& stage,
                                               bool summary,
                                               StageOptions options) {
  if (!HasStage(BackendStages(platform), stage)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", stage, "' is not a stage of the ", platform, " backend"));
  }
  if (platform == "cuda" || platform == "rocm") {
    options.gpu.platform = platform;
    return GpuStageOutput(module, stage, options.gpu, summary);
  }
  return CpuStageOutput(module, stage, summary, std::move(options.cpu));
}

}  // namespace hloc

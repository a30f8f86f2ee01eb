#include "tools/cpu_stages.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_compiler.h"
#include "runtime/buffer_assignment.h"
#include "runtime/executable.h"

namespace hloc {

const std::vector<std::pair<std::string, std::string>>& CompileStages() {
  static const auto* stages =
      new std::vector<std::pair<std::string, std::string>>{
          {"hlo", "the optimised HLO module after the platform's pipeline"},
          {"buffer-assignment",
           "the CPU buffer plan: each value's size, live range and offset, "
           "and the sum of all intermediates vs the arena's peak "
           "(--platform=cpu)"},
          {"llvm", "the kernels' LLVM IR as emitted (--platform=cpu)"},
          {"llvm-opt",
           "the kernels' LLVM IR after the O3 pipeline (--platform=cpu)"},
          {"asm", "the kernels' assembly (--platform=cpu)"},
          {"object",
           "the kernels as an ELF relocatable object (--platform=cpu, -o)"},
          {"executable",
           "the saved executable hlo-run loads (--platform=cpu, -o "
           "FILE.hloexe; without -o, a summary)"},
      };
  return *stages;
}

bool IsCpuStage(const std::string& stage) {
  return stage == "buffer-assignment" || stage == "llvm" ||
         stage == "llvm-opt" || stage == "asm" || stage == "object" ||
         stage == "executable";
}

absl::StatusOr<std::string> CpuStageOutput(const HloModule& module,
                                           const std::string& stage,
                                           bool summary) {
  if (!IsCpuStage(stage)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", stage, "' is not a stage of the cpu backend"));
  }
  if (stage == "buffer-assignment") {
    absl::StatusOr<BufferAssignment> assignment = AssignCpuBuffers(module);
    if (!assignment.ok()) return assignment.status();
    return assignment->ToString();
  }
  if (stage == "llvm") return EmitCpuLlvmIr(module);
  CpuCompileOptions options;
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

}  // namespace hloc

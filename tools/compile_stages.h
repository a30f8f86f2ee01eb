// The stages of compilation a tool can stop at and print, shared by hlo-opt
// (--stage) and the Python package (hloc.jit(f).lower(...).stage(...)), so
// both name and produce them the same way. Every platform has "hlo" (the
// optimised module after its pipeline); each backend declares the stages
// after it (the cpu backend's here, the cuda and rocm backends' in
// backends/gpu/gpu_compiler.h).
#ifndef TOOLS_COMPILE_STAGES_H_
#define TOOLS_COMPILE_STAGES_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/gpu/gpu_compiler.h"
#include "hlo/module.h"

namespace hloc {

// Stage names with a line of help each, in compilation order.
using StageList = std::vector<std::pair<std::string, std::string>>;

// The stage every platform has: "hlo".
const StageList& CommonStages();
// The stages `platform`'s backend adds after hlo (none for unknown ones).
const StageList& BackendStages(const std::string& platform);
bool HasStage(const StageList& stages, const std::string& stage);

// Whether `stage` of `platform` compiles every instruction, so that the
// evaluator-fallback choice (CpuCompileOptions::allow_fallback; the cuda
// backend is always strict) applies: cpu's llvm-opt, asm, object and
// executable, every cuda and rocm stage. (cpu's llvm stage shows the kernels that
// were emitted, whatever declined.)
bool StageCompilesEveryInstruction(const std::string& platform,
                                   const std::string& stage);

// How the backends compile for a stage.
struct StageOptions {
  CpuCompileOptions cpu;
  GpuCompileOptions gpu;
};

// What a backend stage of `module` (already through `platform`'s pipeline)
// prints: text, or the bytes of an object file or a saved executable.
// `summary` gives an executable as a readable summary instead of its bytes.
// Unimplemented when the backend cannot compile the module.
absl::StatusOr<std::string> BackendStageOutput(const HloModule& module,
                                               const std::string& platform,
                                               const std::string& stage,
                                               bool summary,
                                               StageOptions options = {});

}  // namespace hloc

#endif  // TOOLS_COMPILE_STAGES_H_

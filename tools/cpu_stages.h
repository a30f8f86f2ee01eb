// The stages of compilation a tool can stop at and print, shared by hlo-opt
// (--stage) and the Python package (hloc.jit(f).lower(...).stage(...)), so
// both name and produce them the same way.
#ifndef TOOLS_CPU_STAGES_H_
#define TOOLS_CPU_STAGES_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/module.h"

namespace hloc {

// Every stage, in compilation order, with a line of help. "hlo" is the
// optimised module after the platform's pipeline; the others are the host
// CPU backend's. The GPU backends will add ptx and hsaco.
const std::vector<std::pair<std::string, std::string>>& CompileStages();

// The host CPU backend's stages after hlo: buffer-assignment, llvm,
// llvm-opt, asm, object and executable.
bool IsCpuStage(const std::string& stage);

// What a CPU stage of `module` (already through the cpu pipeline) prints:
// text, or the bytes of an object file or a saved executable. `summary`
// gives the executable as a readable summary instead of its bytes.
absl::StatusOr<std::string> CpuStageOutput(const HloModule& module,
                                           const std::string& stage,
                                           bool summary);

}  // namespace hloc

#endif  // TOOLS_CPU_STAGES_H_

// The GPU backend's entry points: compile a (fused) module into a runtime
// Executable for a GPU target (platform "cuda": PTX always, and a cubin
// when ptxas is found at compile time; platform "rocm": an HSA code
// object), or stop at a stage (LLVM IR, PTX, GCN assembly).
//
// The module is expected to have gone through the platform's pass pipeline
// (passes/pipelines.h), but any valid module compiles. Every entry
// instruction that is not a buffer alias becomes one or more kernel steps
// (kernel: gpu_kernel_emitter.h). An instruction the backend cannot compile
// is an Unimplemented error naming it and why (all such instructions, one
// per line); there is no evaluator fallback on the GPU: it is always what
// the CPU backend calls strict (hlo-opt --no-fallback). Custom calls are
// refused by target name unless custom_call_targets.h lists the target.
//
// Output is deterministic: the same module and options give the same bytes.
// No LLVM headers here.
#ifndef BACKENDS_GPU_GPU_COMPILER_H_
#define BACKENDS_GPU_GPU_COMPILER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/common/compile_phase_times.h"
#include "hlo/module.h"
#include "runtime/executable.h"

namespace hloc {

class GpuTarget;

struct GpuCompileOptions {
  // "cuda" (NVPTX) or "rocm" (AMDGPU).
  std::string platform = "cuda";
  // One of the platform's architectures (device_info.h): "sm_80", "sm_90";
  // "gfx90a", "gfx942", "gfx1100". "": the platform's default
  // (DefaultGpuArch).
  std::string arch;
  // rocm: the folder of ROCm's device-library bitcode; "" looks it up
  // (FindRocmDeviceLibs).
  std::string rocm_device_libs;
  // The CUDA toolkit (libdevice, ptxas); "" looks it up (FindCudaPath).
  std::string cuda_path;
  // Also assemble a cubin with ptxas when it is there.
  bool emit_cubin = true;
  // Compiles for this target instead of platform and arch's (not owned):
  // tests run the shared emitters on a simulated GPU this way. Its
  // executable is not validated for a runtime (its device code is the
  // test's own format).
  const GpuTarget* target = nullptr;
  // Adds the time of each phase after the HLO pipeline here (the kernel
  // emitters, LLVM's pipeline, PTX); null: not measured.
  CompilePhaseTimes* phase_times = nullptr;
};

absl::StatusOr<Executable> CompileForGpu(const HloModule& module,
                                         const GpuCompileOptions& options = {});

// The default architecture of a GPU platform: sm_90 (cuda), gfx942 (rocm).
std::string DefaultGpuArch(const std::string& platform);

// The stages hlo-opt offers for --platform=cuda or rocm after "hlo": name
// and help.
const std::vector<std::pair<std::string, std::string>>& GpuStages(
    const std::string& platform = "cuda");

// The output of `stage` (llvm: the kernels' LLVM IR as emitted; ptx: the
// PTX; asm: GCN assembly; hsaco: the HSA code object; executable: the
// serialized executable, or with `summary` its description).
absl::StatusOr<std::string> GpuStageOutput(const HloModule& module,
                                           const std::string& stage,
                                           const GpuCompileOptions& options,
                                           bool summary);

}  // namespace hloc

#endif  // BACKENDS_GPU_GPU_COMPILER_H_

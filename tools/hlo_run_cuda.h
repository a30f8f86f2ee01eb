// hlo-run's cuda platform: saved "cuda" executables run on the GPU through
// runtime/cuda_executor.h (no LLVM), and modules compiled first by a
// CudaModuleCompiler when the binary has one. hlo-run-gpu has none;
// backends/gpu provides one for hlo-run.
#ifndef TOOLS_HLO_RUN_CUDA_H_
#define TOOLS_HLO_RUN_CUDA_H_

#include <functional>

#include "absl/status/statusor.h"
#include "hlo/module.h"
#include "runtime/executable.h"
#include "tools/hlo_run_core.h"
#include "tools/hlo_run_device.h"

namespace hloc {

// Compiles an (unoptimized) module into a cuda executable: the cuda
// pipeline and code generation.
using CudaModuleCompiler = DeviceModuleCompiler;

// The cuda platform; `compiler` may be empty (saved executables only).
HloRunPlatform CudaHloRunPlatform(CudaModuleCompiler compiler);

}  // namespace hloc

#endif  // TOOLS_HLO_RUN_CUDA_H_

// hlo-run's rocm platform: modules compiled by a RocmModuleCompiler (the
// rocm pipeline and backends/gpu's AMDGPU target) or saved "rocm"
// executables, run on an AMD GPU through runtime/hip_executor.h. Without
// an AMD GPU (or the HIP runtime) a run fails saying so.
#ifndef TOOLS_HLO_RUN_ROCM_H_
#define TOOLS_HLO_RUN_ROCM_H_

#include <functional>

#include "absl/status/statusor.h"
#include "hlo/module.h"
#include "runtime/executable.h"
#include "tools/hlo_run_core.h"
#include "tools/hlo_run_device.h"

namespace hloc {

// Compiles an (unoptimized) module into a rocm executable.
using RocmModuleCompiler = DeviceModuleCompiler;

// The rocm platform; `compiler` may be empty (saved executables only).
HloRunPlatform RocmHloRunPlatform(RocmModuleCompiler compiler);

}  // namespace hloc

#endif  // TOOLS_HLO_RUN_ROCM_H_

// What the tests of the GPU emitters on the simulated GPU
// (testing/host_simt.h) share: a module's random inputs and the
// evaluator's outputs for them, then the module through a platform's
// pipeline, compiled for the simulated GPU and run on the same inputs.
#ifndef BACKENDS_GPU_TESTING_SIMT_CHECK_H_
#define BACKENDS_GPU_TESTING_SIMT_CHECK_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/gpu/device_info.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"
#include "runtime/executable.h"

namespace hloc {

struct SimtRun {
  std::vector<Literal> inputs;  // random, from the seed
  Literal expected;             // the evaluator's, before any pass
  Executable executable;        // for the simulated GPU
  Literal actual;               // what the executable computed
};

// Runs `module` (changed: `platform`'s pipeline runs over it, with
// `pipeline_options`) with random inputs from `seed` in the evaluator, then
// compiled for a GPU simulated with `device`'s facts as it would be for
// `platform` ("cuda" or "rocm") and `arch`, on those inputs.
absl::StatusOr<SimtRun> RunOnHostSimtAndEvaluate(
    HloModule& module, const std::string& platform, const std::string& arch,
    const GpuDeviceInfo& device, uint64_t seed,
    const PipelineOptions& pipeline_options = {});

// A module (by name) and the simulated GPU it runs on: the parameter of the
// simulated-GPU tests.
struct SimtCase {
  std::string module;
  std::string platform;
  std::string arch;
};
void PrintTo(const SimtCase& c, std::ostream* os);

// Each of `modules` with the facts of gfx942 (wave64, MFMA) and gfx1100
// (wave32) for rocm and of sm_90 (warp 32, mma.sync) for cuda.
std::vector<SimtCase> OnEverySimulatedGpu(
    const std::vector<std::string>& modules);

// The executable's kernel steps.
int CountKernelSteps(const Executable& executable);

// "N of M elements differ, first ..." (or the shapes' difference): the
// message of a failed comparison.
std::string DescribeMismatch(const ComparisonResult& result);

}  // namespace hloc

#endif  // BACKENDS_GPU_TESTING_SIMT_CHECK_H_

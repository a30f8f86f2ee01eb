#include "backends/gpu/testing/simt_check.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "backends/gpu/testing/host_simt.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/status_macros.h"
#include "passes/pipelines.h"
#include "tools/hlo_run_core.h"

namespace hloc {

absl::StatusOr<SimtRun> RunOnHostSimtAndEvaluate(
    HloModule& module, const std::string& platform, const std::string& arch,
    const GpuDeviceInfo& device, uint64_t seed,
    const PipelineOptions& pipeline_options) {
  SimtRun run;
  HLOC_ASSIGN_OR_RETURN(run.inputs, RandomInputs(module, seed));
  HLOC_ASSIGN_OR_RETURN(run.expected, EvaluateModule(module, run.inputs));
  HLOC_ASSIGN_OR_RETURN(auto pipeline,
                        MakePipeline(platform, pipeline_options));
  HLOC_RETURN_IF_ERROR(pipeline.Run(&module).status());
  HLOC_ASSIGN_OR_RETURN(run.executable,
                        CompileForHostSimt(module, platform, arch, device));
  HLOC_ASSIGN_OR_RETURN(run.actual,
                        RunOnHostSimt(run.executable, device, run.inputs));
  return run;
}

void PrintTo(const SimtCase& c, std::ostream* os) {
  *os << c.module << "/" << c.arch;
}

std::vector<SimtCase> OnEverySimulatedGpu(
    const std::vector<std::string>& modules) {
  std::vector<SimtCase> cases;
  for (const std::string& name : modules) {
    cases.push_back({name, "rocm", "gfx942"});
    cases.push_back({name, "rocm", "gfx1100"});
    cases.push_back({name, "cuda", "sm_90"});
  }
  return cases;
}

int CountKernelSteps(const Executable& executable) {
  int kernels = 0;
  for (const ExecutableStep& step : executable.steps) {
    kernels += step.kind == ExecutableStep::Kind::kKernel ? 1 : 0;
  }
  return kernels;
}

std::string DescribeMismatch(const ComparisonResult& result) {
  if (result.shape_mismatch) return result.shape_message;
  std::string message = absl::StrCat(result.mismatch_count, " of ",
                                     result.element_count, " elements differ");
  if (!result.first_mismatches.empty()) {
    absl::StrAppend(&message, ", first ",
                    result.first_mismatches[0].ToString());
  }
  return message;
}

}  // namespace hloc

// simt-run: a module through a GPU platform's pipeline, run on the GPU
// simulated on this CPU (testing/host_simt.h) and compared with the
// evaluator on the same inputs: a local check of the shared GPU emitters
// on any module (a zoo program lowered for cuda) where no GPU is. Slow (a
// thread per GPU thread), so not part of the test suite.
//
//   simt-run MODULE [--platform=cuda|rocm] [--arch=ARCH] [--inputs=DIR]
//
// MODULE is HLO text or a serialized HloModuleProto. --inputs reads
// DIR/in0.npy, in1.npy, ... (a zoo case's inputs); without it the inputs
// are random (hlo-run's --random-inputs=1). Prints one line per output:
// "match" or what differs, with the tolerance hlo-run uses for the module.
// Exit status: 0 if every output matches, 1 if one differs, 2 on an error
// (bad flags, a module that does not load, compile or run).
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/testing/host_simt.h"
#include "backends/gpu/testing/simt_check.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/status_macros.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"
#include "tools/hlo_run_core.h"
#include "tools/module_loader.h"

namespace hloc {
namespace {

struct Flags {
  std::string module;
  std::string platform = "cuda";
  std::string arch;
  std::string inputs;
};

absl::StatusOr<Flags> ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](absl::string_view name, std::string* out) {
      const std::string prefix = absl::StrCat("--", name, "=");
      if (!absl::StartsWith(arg, prefix)) return false;
      *out = arg.substr(prefix.size());
      return true;
    };
    if (value("platform", &flags.platform) || value("arch", &flags.arch) ||
        value("inputs", &flags.inputs)) {
      continue;
    }
    if (absl::StartsWith(arg, "-")) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", arg));
    }
    if (!flags.module.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("one module only (", flags.module, ", ", arg, ")"));
    }
    flags.module = arg;
  }
  if (flags.module.empty()) {
    return absl::InvalidArgumentError(
        "usage: simt-run MODULE [--platform=cuda|rocm] [--arch=ARCH] "
        "[--inputs=DIR]");
  }
  if (flags.platform != "cuda" && flags.platform != "rocm") {
    return absl::InvalidArgumentError(
        absl::StrCat("--platform must be cuda or rocm, not ", flags.platform));
  }
  if (flags.arch.empty()) {
    flags.arch = flags.platform == "cuda" ? "sm_90" : "gfx942";
  }
  return flags;
}

// 0: every output matches; 1: one differs.
absl::StatusOr<int> Run(const Flags& flags) {
  HLOC_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                        LoadModule(flags.module));
  HLOC_ASSIGN_OR_RETURN(GpuDeviceInfo device,
                        GetGpuDeviceInfo(flags.platform, flags.arch));
  std::vector<Literal> inputs;
  if (flags.inputs.empty()) {
    HLOC_ASSIGN_OR_RETURN(inputs, RandomInputs(*module, 1));
  } else {
    HLOC_ASSIGN_OR_RETURN(inputs, ReadInputs(*module, flags.inputs));
  }
  HLOC_ASSIGN_OR_RETURN(Literal expected, EvaluateModule(*module, inputs));
  HLOC_ASSIGN_OR_RETURN(auto pipeline,
                        MakePipeline(flags.platform, PipelineOptions{}));
  HLOC_RETURN_IF_ERROR(pipeline.Run(module.get()).status());
  HLOC_ASSIGN_OR_RETURN(
      Executable executable,
      CompileForHostSimt(*module, flags.platform, flags.arch, device));
  HLOC_ASSIGN_OR_RETURN(Literal actual,
                        RunOnHostSimt(executable, device, inputs));
  std::vector<Literal> got = FlattenResult(std::move(actual));
  std::vector<Literal> want = FlattenResult(std::move(expected));
  if (got.size() != want.size()) {
    return absl::InternalError(absl::StrCat("the executable gave ", got.size(),
                                            " outputs, the evaluator ",
                                            want.size()));
  }
  int status = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const Tolerance tolerance = DefaultToleranceFor(*module, want[i]);
    ComparisonResult result = CompareLiterals(got[i], want[i], tolerance);
    std::cout << "output " << i << ": "
              << (result.ok() ? std::string("match") : DescribeMismatch(result))
              << "\n";
    if (!result.ok()) status = 1;
  }
  std::cout << CountKernelSteps(executable) << " kernels\n";
  return status;
}

}  // namespace
}  // namespace hloc

int main(int argc, char** argv) {
  absl::StatusOr<hloc::Flags> flags = hloc::ParseFlags(argc, argv);
  if (!flags.ok()) {
    std::cerr << "simt-run: " << flags.status().message() << "\n";
    return 2;
  }
  absl::StatusOr<int> status = hloc::Run(*flags);
  if (!status.ok()) {
    // The loader's, reader's and compiler's errors name the file.
    std::cerr << "simt-run: " << status.status().message() << "\n";
    return 2;
  }
  return *status;
}

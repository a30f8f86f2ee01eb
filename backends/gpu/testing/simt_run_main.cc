// simt-run: a module through a GPU platform's pipeline, run on the GPU
// simulated on this CPU (testing/host_simt.h) and compared with the
// evaluator on the same inputs: a local check of the shared GPU emitters
// on any module (a zoo program lowered for cuda) where no GPU is. Slow (a
// thread per GPU thread), so not part of the test suite.
//
//   simt-run MODULE [--platform=cuda|rocm] [--arch=ARCH] [--inputs=DIR]
//            [--expect=DIR]
//
// MODULE is HLO text or a serialized HloModuleProto. --inputs reads
// DIR/in0.npy, in1.npy, ... (a zoo case's inputs); without it the inputs
// are random (hlo-run's --random-inputs=1). --expect compares with
// DIR/out0.npy, ... instead of the evaluator's outputs (XLA's, for a
// module the evaluator cannot run: LAPACK's eigenvectors, say). Prints
// one line per output:
// "match" or what differs, with the tolerance hlo-run uses for the module.
// Exit status: 0 if every output matches, 1 if one differs, 2 on an error
// (bad flags, a module that does not load, compile or run).
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/testing/host_simt.h"
#include "backends/gpu/testing/simt_check.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/status_macros.h"
#include "passes/pipelines.h"
#include "runtime/compare.h"
#include "tools/flags.h"
#include "tools/hlo_run_core.h"
#include "tools/module_loader.h"

namespace hloc {
namespace {

struct Flags {
  std::string module;
  std::string platform;
  std::string arch;
  std::string inputs;
  std::string expect;
};

const std::vector<FlagSpec>& Specs() {
  static const std::vector<FlagSpec> specs = {
      {"platform", true, "cuda (default) or rocm: whose pipeline and emitters"},
      {"arch", true, "the simulated GPU's facts (default sm_90 / gfx942)"},
      {"inputs", true, "DIR with in0.npy, in1.npy, ... (default: random)"},
      {"expect", true,
       "DIR with out0.npy, out1.npy, ...: compare with those, not with the "
       "evaluator"},
      {"help", false, "print this help"},
  };
  return specs;
}

constexpr char kUsage[] =
    "simt-run MODULE [--platform=cuda|rocm] [--arch=ARCH] [--inputs=DIR] "
    "[--expect=DIR]";

// The flags, or an error naming what is wrong with them.
absl::StatusOr<Flags> CheckFlags(const ParsedFlags& parsed) {
  if (parsed.positional.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "one module, not ", parsed.positional.size(), "; usage: ", kUsage));
  }
  Flags flags;
  flags.module = parsed.positional[0];
  flags.platform = parsed.Get("platform", "cuda");
  flags.inputs = parsed.Get("inputs");
  flags.expect = parsed.Get("expect");
  if (flags.platform != "cuda" && flags.platform != "rocm") {
    return absl::InvalidArgumentError(
        absl::StrCat("--platform must be cuda or rocm, not ", flags.platform));
  }
  flags.arch =
      parsed.Get("arch", flags.platform == "cuda" ? "sm_90" : "gfx942");
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
  Literal expected;
  if (flags.expect.empty()) {
    HLOC_ASSIGN_OR_RETURN(expected, EvaluateModule(*module, inputs));
  }
  HLOC_ASSIGN_OR_RETURN(auto pipeline,
                        MakePipeline(flags.platform, PipelineOptions{}));
  HLOC_RETURN_IF_ERROR(pipeline.Run(module.get()).status());
  HLOC_ASSIGN_OR_RETURN(
      Executable executable,
      CompileForHostSimt(*module, flags.platform, flags.arch, device));
  HLOC_ASSIGN_OR_RETURN(Literal actual,
                        RunOnHostSimt(executable, device, inputs));
  std::vector<Literal> got = FlattenResult(std::move(actual));
  std::vector<Literal> want;
  if (flags.expect.empty()) {
    want = FlattenResult(std::move(expected));
  } else {
    HLOC_ASSIGN_OR_RETURN(want, ReadExpected(flags.expect, got));
  }
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
  absl::StatusOr<hloc::ParsedFlags> parsed =
      hloc::ParseFlags(argc, argv, hloc::Specs());
  if (parsed.ok() && parsed->Has("help")) {
    std::cout << hloc::FlagHelp(hloc::kUsage, hloc::Specs());
    return 0;
  }
  absl::StatusOr<hloc::Flags> flags =
      parsed.ok() ? hloc::CheckFlags(*parsed) : parsed.status();
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

// wide-warp-cases OUT_DIR [--gpu-arch=sm_90]: writes, for every module of
// backends/gpu/testing/warp_modules.h, a case folder OUT_DIR/wide_warp_NAME
// (m.hloexe, in<i>.npy, out<i>.npy) for scripts/gpu_bundle.sh: the module
// compiled by the shared emitters with 64-wide logical warps on NVIDIA
// (backends/gpu/testing/nvptx_wide_warp.h: AMD's CDNA wavefront size), its
// random inputs, and the reference evaluator's outputs. Run on an NVIDIA
// GPU with gpu-bundle/run.sh, each case checks the emitters' wave64
// reductions and scans against the evaluator.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/gpu_compiler.h"
#include "backends/gpu/nvptx_target.h"
#include "backends/gpu/testing/nvptx_wide_warp.h"
#include "backends/gpu/testing/warp_modules.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "runtime/executable.h"
#include "runtime/npy.h"
#include "tools/hlo_run_core.h"

namespace hloc {
namespace {

int Fail(const std::string& message) {
  std::cerr << "wide-warp-cases: " << message << "\n";
  return 1;
}

int Main(int argc, char** argv) {
  std::string out_dir;
  std::string arch = "sm_90";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--gpu-arch=", 0) == 0) {
      arch = arg.substr(11);
    } else if (out_dir.empty() && arg[0] != '-') {
      out_dir = arg;
    } else {
      return Fail("usage: wide-warp-cases OUT_DIR [--gpu-arch=sm_80|sm_90]");
    }
  }
  if (out_dir.empty()) {
    return Fail("usage: wide-warp-cases OUT_DIR [--gpu-arch=sm_80|sm_90]");
  }
  absl::StatusOr<std::unique_ptr<GpuTarget>> target =
      CreateNvptxWideWarpTarget(arch, FindCudaPath(""));
  if (!target.ok()) return Fail(std::string(target.status().message()));
  for (const auto& [name, text] : WarpModules()) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(text, name);
    if (!module.ok()) return Fail(std::string(module.status().message()));
    absl::StatusOr<std::vector<Literal>> inputs = RandomInputs(**module, 5);
    if (!inputs.ok()) return Fail(std::string(inputs.status().message()));
    absl::StatusOr<Literal> expected = EvaluateModule(**module, *inputs);
    if (!expected.ok()) return Fail(std::string(expected.status().message()));
    absl::StatusOr<HloPassPipeline> pipeline =
        MakePipeline("cuda", PipelineOptions{});
    if (!pipeline.ok()) return Fail(std::string(pipeline.status().message()));
    absl::StatusOr<bool> ran = pipeline->Run(module->get());
    if (!ran.ok()) return Fail(std::string(ran.status().message()));
    GpuCompileOptions options;
    options.arch = arch;
    options.target = target->get();
    absl::StatusOr<Executable> executable = CompileForGpu(**module, options);
    absl::Status status = executable.status();
    if (status.ok()) status = CheckWideWarpLaunches(*executable);
    // Not validated by the compiler (a test target): the runtime will.
    if (status.ok()) status = ValidateExecutable(*executable);
    if (!status.ok()) {
      return Fail(absl::StrCat(name, ": ", status.message()));
    }
    const std::string dir = absl::StrCat(out_dir, "/wide_warp_", name);
    std::filesystem::create_directories(dir);
    status = WriteExecutableFile(dir + "/m.hloexe", *executable);
    for (size_t i = 0; status.ok() && i < inputs->size(); ++i) {
      status = WriteNpy(absl::StrCat(dir, "/in", i, ".npy"), (*inputs)[i]);
    }
    std::vector<Literal> outputs = FlattenResult(*std::move(expected));
    for (size_t i = 0; status.ok() && i < outputs.size(); ++i) {
      status = WriteNpy(absl::StrCat(dir, "/out", i, ".npy"), outputs[i]);
    }
    if (!status.ok()) return Fail(std::string(status.message()));
    std::cout << dir << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace hloc

int main(int argc, char** argv) { return hloc::Main(argc, argv); }

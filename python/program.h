// What the Python package (hloc) compiles and runs, in C++ so it can be
// tested and used without Python: a module through a platform's pipeline
// (OptimizedModule, which `hloc.jit(f).lower(...)` shows), compiled once
// into a Program that runs many times. Every step reuses the tools' and
// backends' entry points (tools/module_loader.h, passes/pipelines.h,
// backends/cpu, runtime/); nothing here generates code.
//
// Platforms: "interpreter" (the reference evaluator on the module as
// given), "cpu" (the cpu pipeline, LLVM, the host JIT), "cuda" (the cuda
// pipeline, backends/gpu, the CUDA driver; without a GPU, compiling for
// cuda fails with "the cuda platform is not available: ..."). The Python
// package runs cuda through python/cuda_bindings.cc instead, on DLPack
// device arrays, from SerializedExecutable's bytes.
#ifndef PYTHON_PROGRAM_H_
#define PYTHON_PROGRAM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "hlo/shape.h"
#include "passes/fusion/report.h"

namespace hloc {

// How a module is compiled; part of the compilation cache's key.
struct ProgramOptions {
  std::string platform = "cpu";
  // Run the verifier after every pass of the pipeline.
  bool verify_each = false;
  // Keep what Program::Save needs (the kernels' object code): costs an
  // object file per compilation, so only when the disk cache is on.
  bool saveable = false;
  // Whether "cpu" may run what code generation declines in the reference
  // evaluator (one warning line each) or fails the compilation listing it
  // (CpuCompileOptions::allow_fallback); unset: the platform's default
  // (allowed on cpu; cuda has no fallback, so true there is an error).
  std::optional<bool> allow_fallback;
  // Drop JAX's Python host callbacks whose results are unused (a notice
  // line each on stderr) instead of refusing the module: hloc runs no
  // Python (PipelineOptions::drop_debug_callbacks; every platform).
  bool drop_debug_callbacks = false;
};

// "interpreter", "cpu", "cuda".
std::vector<std::string> ProgramPlatforms();

// A module after the platform's pipeline (the interpreter's is the module
// as given), with the fusion decisions that made it.
struct OptimizedModule {
  std::unique_ptr<HloModule> module;
  ProgramOptions options;
  FusionReport fusion_report;
};

absl::StatusOr<OptimizedModule> OptimizeModule(const HloModule& module,
                                               const ProgramOptions& options);

// A stage of an optimised module, as hlo-opt --stage prints it ("hlo",
// "buffer-assignment", "llvm", "llvm-opt", "asm", "object", "executable";
// tools/compile_stages.h). Stages past hlo are the platform backend's.
absl::StatusOr<std::string> ModuleStage(const OptimizedModule& optimized,
                                        const std::string& stage);

// The optimised module compiled into a saved executable's bytes (what
// hlo-opt --stage=executable -o FILE writes): for cuda, what the runtime-only
// Python extension loads (python/cuda_bindings.cc).
absl::StatusOr<std::string> SerializedExecutable(
    const OptimizedModule& optimized);

// A compiled module, ready to run.
class Program {
 public:
  // Compiles an optimised module for its platform.
  static absl::StatusOr<std::unique_ptr<Program>> Compile(
      const OptimizedModule& optimized);
  // A saved cpu executable (Save, or hlo-opt --stage=executable): its
  // object code linked, nothing compiled.
  static absl::StatusOr<std::unique_ptr<Program>> Load(const std::string& path);

  // One argument per entry parameter, checked against the parameter's
  // shape first: errors name the argument and both shapes.
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments) const;

  // Writes the executable for Load (cpu programs compiled `saveable`).
  absl::Status Save(const std::string& path) const;

  const std::string& platform() const { return platform_; }
  const std::vector<Shape>& parameter_shapes() const {
    return parameter_shapes_;
  }
  const Shape& result_shape() const { return result_shape_; }
  // Evaluator fallback steps run so far (cpu): ops code generation left to
  // the reference evaluator.
  int64_t fallback_runs() const;

 private:
  Program() = default;

  struct State;
  std::string platform_;
  std::vector<Shape> parameter_shapes_;
  Shape result_shape_;
  std::shared_ptr<State> state_;
};

}  // namespace hloc

#endif  // PYTHON_PROGRAM_H_

#include "tools/hlo_run_device.h"

#include <iostream>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hlo/text/parser.h"

namespace hloc {

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

namespace {

// Compiles `module` with `compiler`, saying how long it took, or says how
// to give an executable when the binary has no compiler.
absl::StatusOr<Executable> CompileForDevice(
    const std::string& name, const DeviceModuleCompiler& compiler,
    const HloModule& module) {
  if (!compiler) {
    return absl::UnimplementedError(absl::StrCat(
        "the ", name,
        " compiler is not built into this binary: give a saved executable "
        "(hlo-opt --platform=",
        name, " --stage=executable -o m.hloexe)"));
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Executable> executable = compiler(module);
  if (!executable.ok()) return executable.status();
  std::cerr << absl::StrFormat("%s: compiled in %.1f ms\n", name,
                               MillisecondsSince(start));
  return executable;
}

}  // namespace

HloRunPlatform DeviceHloRunPlatform(const std::string& name,
                                    DeviceModuleCompiler compiler,
                                    DeviceRunner run,
                                    DeviceReplicatedRunner run_replicated) {
  HloRunPlatform platform;
  platform.name = name;
  platform.load_executable =
      [name, run, run_replicated](const HloRunOptions& options)
      -> absl::StatusOr<SavedExecutable> {
    absl::StatusOr<Executable> executable =
        ReadExecutableFile(options.module_path);
    if (!executable.ok()) return executable.status();
    if (executable->platform != name) {
      return absl::InvalidArgumentError(absl::StrCat(
          options.module_path, ": the executable is for platform '",
          executable->platform, "', not ", name));
    }
    if (executable->hlo_module.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          options.module_path, ": the executable carries no module text"));
    }
    SavedExecutable saved;
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(executable->hlo_module,
                       absl::StrCat(options.module_path, " (its module)"));
    if (!module.ok()) return module.status();
    saved.module = *std::move(module);
    auto shared = std::make_shared<Executable>(*std::move(executable));
    saved.run = [shared, options, run](absl::Span<const Literal> arguments) {
      return run(*shared, arguments, options);
    };
    if (run_replicated) {
      saved.run_replicated =
          [shared, options, run_replicated](
              absl::Span<const std::vector<Literal>> arguments) {
            return run_replicated(*shared, arguments, options);
          };
    }
    return saved;
  };
  platform.run_module =
      [name, compiler, run](const HloModule& module,
                            absl::Span<const Literal> arguments,
                            const HloRunOptions& options)
      -> absl::StatusOr<Literal> {
    absl::StatusOr<Executable> executable =
        CompileForDevice(name, compiler, module);
    if (!executable.ok()) return executable.status();
    return run(*executable, arguments, options);
  };
  if (run_replicated) {
    platform.run_replicated =
        [name, compiler, run_replicated](
            const HloModule& module,
            absl::Span<const std::vector<Literal>> arguments,
            const HloRunOptions& options)
        -> absl::StatusOr<std::vector<Literal>> {
      absl::StatusOr<Executable> executable =
          CompileForDevice(name, compiler, module);
      if (!executable.ok()) return executable.status();
      return run_replicated(*executable, arguments, options);
    };
  }
  return platform;
}

}  // namespace hloc

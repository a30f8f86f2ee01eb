// hlo-opt: reads an HLO module (text or HloModuleProto), verifies it, runs
// passes or a target's pipeline up to a stage, and prints the result. The
// flag surface follows XLA's hlo-opt: --platform picks a pipeline, --stage how
// far to go, --passes runs named passes instead.
//
// Exit codes: 0 success, 1 a pass or the verifier failed on a valid input,
// 2 bad input (unreadable file, parse error, unknown flag or pass), 3 the
// target's backend cannot compile an instruction of the module (the
// message names each and why: a custom call it does not implement, or, in
// strict mode, any instruction that would run in the reference evaluator).
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "backends/cpu/aarch64_aot.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/target_cpu.h"
#include "backends/gpu/device_info.h"
#include "backends/gpu/gpu_compiler.h"
#include "hlo/module.h"
#include "hlo/proto/proto_export.h"
#include "hlo/text/printer.h"
#include "passes/fusion/report.h"
#include "passes/pipelines.h"
#include "passes/registry.h"
#include "runtime/buffer_assignment.h"
#include "runtime/executable.h"
#include "tools/compile_stages.h"
#include "tools/flags.h"
#include "tools/graph/graph_output.h"
#include "tools/module_loader.h"
#include "tools/out_of_memory.h"
#include "tools/output_file.h"

namespace hloc {
namespace {

const std::vector<FlagSpec>& Specs() {
  static const auto* specs = new std::vector<FlagSpec>{
      {"format", true, "input format: hlo or pb (default: by extension)"},
      {"emit", true,
       "output format: hlo (default), pb, dot (Graphviz) or html (one "
       "self-contained page; needs Graphviz's dot to lay it out)"},
      {"graph-max-nodes", true,
       "N: --emit=dot|html folds computations into summary nodes above N "
       "nodes (default 200; 0: never)"},
      {"graph-compare", false,
       "--emit=html: draw the module as read beside the result of --passes "
       "or --platform (before and after fusion)"},
      {"o", true, "write the output to this file instead of stdout"},
      {"platform", true, "run this target's pipeline: cpu, cuda or rocm"},
      {"target", true,
       "what --platform=cpu code is for: host (default) or aarch64 (NEON; "
       "stages llvm-opt, asm, object)"},
      {"stage", true, "how far to compile (see --list-stages); default hlo"},
      {"gpu-arch", true,
       "what --platform=cuda code is for: sm_80 or sm_90 (default); "
       "--platform=rocm: gfx90a, gfx942 (default) or gfx1100"},
      {"cuda-path", true,
       "the CUDA toolkit (libdevice, ptxas) for --platform=cuda; default "
       "$CUDA_HOME, $CUDA_PATH or /usr/local/cuda"},
      {"rocm-device-libs", true,
       "the folder of ROCm's device-library bitcode (ocml.bc) for "
       "--platform=rocm; default $HLOC_ROCM_DEVICE_LIBS, "
       "$ROCM_PATH/amdgcn/bitcode or Debian's rocm-device-libs"},
      {"cpu", true,
       "with --platform=cpu (host): compile for this x86-64 CPU (LLVM's "
       "name: x86-64-v2, x86-64-v3, znver4, ...) instead of this host's, "
       "e.g. one executable for a fleet of mixed hosts"},
      {"features", true,
       "with --platform=cpu (host): CPU features to add or remove "
       "(+avx2,-avx512f)"},
      {"passes", true, "run these passes, comma-separated, instead"},
      {"list-passes", false, "print the passes --passes accepts"},
      {"list-stages", false, "print the stages --stage accepts"},
      {"disable-passes", true,
       "a,b: skip these passes wherever they occur in --platform's pipeline "
       "or --passes (to work around a pass; a name the pipeline lacks is an "
       "error listing the names it has)"},
      {"dump-dir", true,
       "write the module after every pass into this folder (and, when the "
       "verifier rejects it, as NNNN.<pass>.invalid.hlo)"},
      {"dump-changed-only", false,
       "with --dump-dir: write the module only after passes that changed it"},
      {"fusion-report", false,
       "print why every producer/consumer pair fused or not"},
      {"stats", false, "print pass statistics to stderr"},
      {"time-passes", false,
       "print to stderr how long each pass of the pipeline took (summed "
       "over its runs), the verifier between passes, reading the module and "
       "the backend's phases (emit, LLVM's O3, code generation, ptxas), "
       "slowest first, as LLVM's -time-passes does"},
      {"no-verify-each", false, "skip the verifier between passes"},
      {"print-metadata", true, "print metadata={...} (true/false)"},
      {"no-fallback", false,
       "strict: fail (exit 3) if any instruction would run in the reference "
       "evaluator, listing each and why (default for --target=aarch64 and "
       "--platform=cuda)"},
      {"fallback", false,
       "let --platform=cpu run what code generation declines in the "
       "evaluator, one warning line each (default for the host; with "
       "--target=aarch64 the object then has no entry)"},
      {"allow-excess-precision", true,
       "true|false: --platform's pipeline may keep values more precise than "
       "their bf16/f16 types, as XLA does (default true)"},
      {"drop-debug-callbacks", false,
       "--platform's pipeline drops JAX's Python host callbacks whose "
       "results are unused (jax.debug.print, jax.debug.callback, "
       "io_callback without results), one notice line each on stderr, "
       "instead of refusing the module (exit 3): hloc runs no Python. A "
       "callback whose results are used (pure_callback) is refused either "
       "way"},
      {"help", false, "print this help"},
  };
  return *specs;
}

// --target=aarch64: the ahead-of-time compiler's optimized IR, assembly or
// object (backends/cpu/aarch64_aot.h).
bool IsAarch64Stage(const std::string& stage) {
  return stage == "llvm-opt" || stage == "asm" || stage == "object";
}

absl::StatusOr<std::string> Aarch64StageOutput(
    const HloModule& module, const std::string& stage,
    std::optional<bool> allow_fallback) {
  Aarch64AotOptions options;
  options.keep_ir = stage == "llvm-opt";
  options.keep_asm = stage == "asm";
  options.allow_fallback = allow_fallback.value_or(options.allow_fallback);
  absl::StatusOr<Aarch64AotModule> compiled =
      CompileForAarch64(module, options);
  if (!compiled.ok()) return compiled.status();
  if (stage == "llvm-opt") return compiled->optimized_ir;
  if (stage == "asm") return compiled->assembly;
  return compiled->executable.object_code;
}

int Fail(int code, absl::string_view message) {
  std::cerr << "hlo-opt: " << message << "\n";
  return code;
}

int Main(int argc, char** argv) {
  const std::string usage =
      "hlo-opt FILE|- [--format=hlo|pb] [--emit=hlo|pb|dot|html] [-o OUT] "
      "[--platform=cpu|cuda|rocm] [--target=host|aarch64] [--stage=S] "
      "[--gpu-arch=sm_80|sm_90|gfx90a|gfx942|gfx1100] [--cuda-path=DIR] "
      "[--rocm-device-libs=DIR] [--cpu=NAME] "
      "[--features=+F,-G] [--fallback|--no-fallback] "
      "[--drop-debug-callbacks] "
      "[--passes=a,b,c] [--disable-passes=a,b] [--fusion-report] "
      "[--dump-dir=D [--dump-changed-only]] "
      "[--graph-max-nodes=N] [--graph-compare]";
  absl::StatusOr<ParsedFlags> parsed = ParseFlags(argc, argv, Specs());
  if (!parsed.ok()) return Fail(2, parsed.status().message());
  const ParsedFlags& flags = *parsed;
  if (flags.Has("help")) {
    std::cout << FlagHelp(usage, Specs());
    return 0;
  }
  if (flags.Has("list-passes")) {
    std::cout << DescribePasses();
    return 0;
  }
  if (flags.Has("list-stages")) {
    for (const auto& [stage, help] : CommonStages()) {
      std::cout << stage << "\t" << help << "\n";
    }
    std::vector<std::string> platforms = ListPlatforms();
    if (flags.Has("platform")) platforms = {flags.Get("platform")};
    for (const std::string& platform : platforms) {
      for (const auto& [stage, help] : BackendStages(platform)) {
        std::cout << stage << "\t" << help << " (--platform=" << platform
                  << ")\n";
      }
    }
    return 0;
  }
  if (flags.positional.size() != 1) {
    return Fail(2, "expected exactly one input file (or - for stdin)\n" +
                       FlagHelp(usage, Specs()));
  }
  const std::string emit = flags.Get("emit", "hlo");
  if (emit != "hlo" && emit != "pb" && emit != "dot" && emit != "html") {
    return Fail(2, "--emit must be hlo, pb, dot or html, not '" + emit + "'");
  }
  const std::string stage = flags.Get("stage", "hlo");
  const bool graph = emit == "dot" || emit == "html";
  FusionGraphOptions graph_options;
  if (flags.Has("graph-max-nodes") &&
      (!absl::SimpleAtoi(flags.Get("graph-max-nodes"),
                         &graph_options.max_nodes) ||
       graph_options.max_nodes < 0)) {
    return Fail(2,
                "--graph-max-nodes must be a number >= 0 (0: no limit), "
                "not '" +
                    flags.Get("graph-max-nodes") + "'");
  }
  if ((flags.Has("graph-max-nodes") || flags.Has("graph-compare")) && !graph) {
    return Fail(2,
                "--graph-max-nodes and --graph-compare go with "
                "--emit=dot or --emit=html");
  }
  if (graph && !HasStage(CommonStages(), stage)) {
    return Fail(2, "--emit=" + emit +
                       " draws the HLO module: use it with "
                       "--stage=hlo (the default), not --stage=" +
                       stage);
  }
  if (flags.Has("graph-compare") &&
      (emit != "html" || !(flags.Has("passes") || flags.Has("platform")))) {
    return Fail(2,
                "--graph-compare needs --emit=html and --passes or "
                "--platform (it draws the module before and after them)");
  }
  const std::string platform = flags.Get("platform");
  bool known_stage = HasStage(CommonStages(), stage);
  for (const std::string& p : ListPlatforms()) {
    known_stage |= HasStage(BackendStages(p), stage);
  }
  if (!known_stage) {
    return Fail(2, "unknown stage '" + stage + "' (see --list-stages)");
  }
  const bool gpu_platform = platform == "cuda" || platform == "rocm";
  GpuCompileOptions gpu_options;
  gpu_options.platform = gpu_platform ? platform : "cuda";
  gpu_options.arch =
      flags.Get("gpu-arch", DefaultGpuArch(gpu_options.platform));
  gpu_options.cuda_path = flags.Get("cuda-path");
  gpu_options.rocm_device_libs = flags.Get("rocm-device-libs");
  if (flags.Has("gpu-arch")) {
    if (!gpu_platform) {
      return Fail(2, "--gpu-arch needs --platform=cuda or --platform=rocm");
    }
    absl::StatusOr<GpuDeviceInfo> device =
        GetGpuDeviceInfo(platform, gpu_options.arch);
    if (!device.ok()) return Fail(2, device.status().message());
  }
  if (flags.Has("rocm-device-libs") && platform != "rocm") {
    return Fail(2, "--rocm-device-libs needs --platform=rocm");
  }
  const std::string print_metadata = flags.Get("print-metadata", "true");
  if (print_metadata != "true" && print_metadata != "false") {
    return Fail(2, "--print-metadata must be true or false");
  }
  if (flags.Has("passes") && flags.Has("platform")) {
    return Fail(2, "give either --passes or --platform, not both");
  }
  const std::string excess = flags.Get("allow-excess-precision", "true");
  if (excess != "true" && excess != "false") {
    return Fail(2, "--allow-excess-precision must be true or false");
  }
  const std::string target = flags.Get("target", "host");
  if (target != "host" && target != "aarch64") {
    return Fail(2, "--target must be host or aarch64, not '" + target + "'");
  }
  // A stage past hlo belongs to the backends that declare it.
  if (!HasStage(CommonStages(), stage)) {
    if (!HasStage(BackendStages(platform), stage)) {
      std::vector<std::string> owners;
      for (const std::string& p : ListPlatforms()) {
        if (HasStage(BackendStages(p), stage)) owners.push_back(p);
      }
      return Fail(2, "--stage=" + stage +
                         " needs --platform=" + absl::StrJoin(owners, " or "));
    }
    if (target == "aarch64" && !IsAarch64Stage(stage)) {
      return Fail(2, "--stage=" + stage +
                         " is for the host; --target=aarch64 has the stages "
                         "llvm-opt, asm and object");
    }
  }
  if ((stage == "object" || stage == "hsaco") && !flags.Has("o")) {
    return Fail(2, "--stage=" + stage + " writes a binary file: give -o FILE");
  }
  // Whether instructions code generation declines may run in the
  // evaluator; unset: the target's default (CpuCompileOptions,
  // Aarch64AotOptions; the cuda backend has no fallback).
  absl::StatusOr<std::optional<bool>> allow_fallback =
      SwitchPair(flags, "fallback", "no-fallback");
  if (!allow_fallback.ok()) return Fail(2, allow_fallback.status().message());
  if (allow_fallback->has_value()) {
    const bool compiles = target == "aarch64"
                              ? platform == "cpu" && IsAarch64Stage(stage)
                              : StageCompilesEveryInstruction(platform, stage);
    if (!compiles) {
      return Fail(2,
                  "--fallback and --no-fallback choose how a backend stage "
                  "compiles: --platform=cpu with --stage=llvm-opt, asm, "
                  "object or executable, or any --platform=cuda or rocm "
                  "stage");
    }
    if (gpu_platform && **allow_fallback) {
      return Fail(2, "--fallback: the " + platform +
                         " backend has no evaluator fallback (it is always "
                         "strict)");
    }
  }
  // The CPU the host stages compile for, checked before any work.
  CpuCompileOptions cpu_options;
  cpu_options.allow_fallback =
      allow_fallback->value_or(cpu_options.allow_fallback);
  if (flags.Has("cpu") || flags.Has("features")) {
    if (!HasStage(BackendStages("cpu"), stage)) {
      return Fail(2,
                  "--cpu and --features choose the CPU of --platform=cpu "
                  "stages (llvm, llvm-opt, asm, object, executable)");
    }
    if (target != "host") {
      return Fail(2, "--cpu and --features are for --target=host");
    }
    absl::StatusOr<TargetCpu> cpu =
        ResolveTargetCpu(flags.Get("cpu"), flags.Get("features"));
    if (!cpu.ok()) return Fail(2, cpu.status().message());
    cpu_options.jit.cpu = cpu->name;
    cpu_options.jit.cpu_features = cpu->features;
    cpu_options.codegen.cpu_features = cpu->features;
  }

  // --time-passes: reading the module, each pass, the backend's phases.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  std::vector<PassTime> times;
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      LoadModule(flags.positional[0], flags.Get("format"));
  if (!module.ok()) return Fail(2, module.status().message());
  times.push_back({"(read and verify the module)", 1, seconds_since(start)});

  PipelineOptions options;
  options.verify = !flags.Has("no-verify-each");
  options.dump_dir = flags.Get("dump-dir");
  if (flags.Has("dump-changed-only") && options.dump_dir.empty()) {
    return Fail(2, "--dump-changed-only goes with --dump-dir");
  }
  options.dump_unchanged = !flags.Has("dump-changed-only");
  options.allow_excess_precision = excess == "true";
  options.drop_debug_callbacks = flags.Has("drop-debug-callbacks");
  if (options.drop_debug_callbacks && !flags.Has("platform")) {
    return Fail(2,
                "--drop-debug-callbacks needs --platform (its pipeline drops "
                "them); with --passes, name the drop-host-callbacks pass");
  }
  if (flags.Has("disable-passes")) {
    if (!flags.Has("passes") && !flags.Has("platform")) {
      return Fail(2,
                  "--disable-passes needs --platform or --passes (the "
                  "pipeline whose passes it skips)");
    }
    for (absl::string_view name :
         absl::StrSplit(flags.Get("disable-passes"), ',')) {
      name = absl::StripAsciiWhitespace(name);
      if (name.empty()) {
        return Fail(2, "--disable-passes: an empty pass name in '" +
                           flags.Get("disable-passes") + "'");
      }
      options.disabled_passes.insert(std::string(name));
    }
  }
  FusionReport report;
  std::optional<HloPassPipeline> pipeline;
  if (flags.Has("passes")) {
    absl::StatusOr<HloPassPipeline> p =
        PipelineFromPassList(flags.Get("passes"));
    if (!p.ok()) return Fail(2, p.status().message());
    pipeline.emplace(std::move(*p));
    pipeline->set_options(options);
  } else if (flags.Has("platform")) {
    absl::StatusOr<HloPassPipeline> p =
        MakePipeline(flags.Get("platform"), options, &report);
    if (!p.ok()) return Fail(2, p.status().message());
    pipeline.emplace(std::move(*p));
  }
  if (pipeline) {
    absl::Status names = pipeline->CheckDisabledPasses();
    if (!names.ok()) return Fail(2, names.message());
  }
  if (!options.dump_dir.empty()) {
    // A folder that cannot be made is a bad flag (exit 2, as every tool
    // does for bad input), found before any pass runs.
    std::error_code error;
    std::filesystem::create_directories(options.dump_dir, error);
    if (error) {
      return Fail(2, absl::StrCat("--dump-dir: cannot create '",
                                  options.dump_dir, "': ", error.message()));
    }
  }
  // --graph-compare's left panel: the module as read.
  std::unique_ptr<HloModule> before;
  if (flags.Has("graph-compare")) before = (*module)->Clone();
  if (pipeline) {
    ScopedFusionReportSink sink(&report);
    absl::StatusOr<bool> changed = pipeline->Run(module->get());
    // A module no platform can run (a Python host callback, say) is not a
    // crash either: exit 3, as the backends' refusals.
    if (!changed.ok()) {
      return Fail(absl::IsUnimplemented(changed.status()) ? 3 : 1,
                  changed.status().message());
    }
    if (flags.Has("stats")) std::cerr << pipeline->StatisticsReport();
    std::vector<PassTime> pass_times = pipeline->PassTimes();
    times.insert(times.end(), pass_times.begin(), pass_times.end());
  }
  CompilePhaseTimes backend_times;

  std::string output;
  if (target == "aarch64" && IsAarch64Stage(stage)) {
    absl::StatusOr<std::string> text =
        Aarch64StageOutput(**module, stage, *allow_fallback);
    if (!text.ok()) {
      return Fail(absl::IsUnimplemented(text.status()) ? 3 : 1,
                  text.status().message());
    }
    output = std::move(*text);
  } else if (!HasStage(CommonStages(), stage)) {
    StageOptions stage_options;
    stage_options.cpu = cpu_options;
    stage_options.gpu = gpu_options;
    stage_options.cpu.jit.phase_times = &backend_times;
    stage_options.gpu.phase_times = &backend_times;
    absl::StatusOr<std::string> text = BackendStageOutput(
        **module, platform, stage, !flags.Has("o"), stage_options);
    if (!text.ok()) {
      // A module the backend cannot compile (exit 3) is not a crash or a
      // bad input: it says which instructions and why.
      return Fail(absl::IsUnimplemented(text.status()) ? 3 : 1,
                  text.status().message());
    }
    output = std::move(*text);
  } else if (graph) {
    GraphRequest request;
    request.format = emit;
    request.module = module->get();
    request.heading = flags.Has("passes")
                          ? "after --passes=" + flags.Get("passes")
                      : flags.Has("platform")
                          ? "after --platform=" + platform + " --stage=hlo"
                          : "as read";
    request.before = before.get();
    request.before_heading = "before (as read)";
    request.report = &report;
    request.graph = graph_options;
    absl::StatusOr<std::string> text = WriteModuleGraph(request);
    if (!text.ok()) return Fail(2, text.status().message());
    output = std::move(*text);
  } else if (emit == "pb") {
    absl::StatusOr<std::string> bytes = SerializeHloModule(**module);
    if (!bytes.ok()) return Fail(1, bytes.status().message());
    output = std::move(*bytes);
  } else {
    PrintOptions print_options;
    print_options.print_metadata = print_metadata == "true";
    output = PrintModule(**module, print_options);
  }
  if (flags.Has("o")) {
    absl::Status written = WriteOutputFile(flags.Get("o"), output);
    if (!written.ok()) return Fail(2, written.message());
  } else {
    std::cout << output;
  }
  if (flags.Has("fusion-report")) std::cout << FormatFusionReport(report);
  if (flags.Has("time-passes")) {
    const std::pair<const char*, double> phases[] = {
        {"(backend: emit HLO -> LLVM IR)", backend_times.emit_s},
        {"(backend: LLVM O3)", backend_times.optimize_s},
        {"(backend: LLVM code generation)", backend_times.codegen_s},
        {"(backend: ptxas)", backend_times.assemble_s},
    };
    for (const auto& [name, seconds] : phases) {
      if (seconds > 0) times.push_back({name, 1, seconds});
    }
    std::cerr << FormatPassTimes(times, seconds_since(start));
  }
  // A full disk or closed pipe on stdout is a failure too, not exit 0.
  std::cout.flush();
  if (!std::cout) return Fail(2, "cannot write to standard output");
  return 0;
}

}  // namespace
}  // namespace hloc

int main(int argc, char** argv) {
  return hloc::ExitCleanlyOnOutOfMemory(
      "hlo-opt", [&] { return hloc::Main(argc, argv); });
}

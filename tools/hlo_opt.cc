// hlo-opt: reads an HLO module (text or HloModuleProto), verifies it, runs
// passes or a target's pipeline up to a stage, and prints the result. The
// flag surface follows XLA's hlo-opt: --platform picks a pipeline, --stage how
// far to go, --passes runs named passes instead.
//
// Exit codes: 0 success, 1 a pass or the verifier failed on a valid input,
// 2 bad input (unreadable file, parse error, unknown flag or pass).
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "absl/strings/str_join.h"
#include "backends/cpu/aarch64_aot.h"
#include "hlo/module.h"
#include "hlo/proto/proto_export.h"
#include "hlo/text/printer.h"
#include "passes/fusion/report.h"
#include "passes/pipelines.h"
#include "passes/registry.h"
#include "tools/cpu_stages.h"
#include "tools/flags.h"
#include "tools/module_loader.h"

namespace hloc {
namespace {

const std::vector<FlagSpec>& Specs() {
  static const auto* specs = new std::vector<FlagSpec>{
      {"format", true, "input format: hlo or pb (default: by extension)"},
      {"emit", true, "output format: hlo (default) or pb"},
      {"o", true, "write the output to this file instead of stdout"},
      {"platform", true, "run this target's pipeline: cpu, cuda or rocm"},
      {"target", true,
       "what --platform=cpu code is for: host (default) or aarch64 (NEON; "
       "stages llvm-opt, asm, object)"},
      {"stage", true, "how far to compile (see --list-stages); default hlo"},
      {"passes", true, "run these passes, comma-separated, instead"},
      {"list-passes", false, "print the passes --passes accepts"},
      {"list-stages", false, "print the stages --stage accepts"},
      {"dump-dir", true, "write the module after every pass into this folder"},
      {"fusion-report", false,
       "print why every producer/consumer pair fused or not"},
      {"stats", false, "print pass statistics to stderr"},
      {"no-verify-each", false, "skip the verifier between passes"},
      {"print-metadata", true, "print metadata={...} (true/false)"},
      {"help", false, "print this help"},
  };
  return *specs;
}

// --target=aarch64: the ahead-of-time compiler's optimized IR, assembly or
// object (backends/cpu/aarch64_aot.h).
bool IsAarch64Stage(const std::string& stage) {
  return stage == "llvm-opt" || stage == "asm" || stage == "object";
}

absl::StatusOr<std::string> Aarch64StageOutput(const HloModule& module,
                                               const std::string& stage) {
  Aarch64AotOptions options;
  options.keep_ir = stage == "llvm-opt";
  options.keep_asm = stage == "asm";
  absl::StatusOr<Aarch64AotModule> compiled =
      CompileForAarch64(module, options);
  if (!compiled.ok()) return compiled.status();
  for (const std::string& missing : compiled->missing) {
    std::cerr << "hlo-opt: aarch64: " << missing
              << " has no generated code, so the object has no entry\n";
  }
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
      "hlo-opt FILE|- [--format=hlo|pb] [--emit=hlo|pb] [-o OUT] "
      "[--platform=cpu|cuda|rocm] [--target=host|aarch64] [--stage=S] "
      "[--passes=a,b,c] [--fusion-report] [--dump-dir=D]";
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
    for (const auto& [stage, help] : CompileStages()) {
      std::cout << stage << "\t" << help << "\n";
    }
    return 0;
  }
  if (flags.positional.size() != 1) {
    return Fail(2, "expected exactly one input file (or - for stdin)\n" +
                       FlagHelp(usage, Specs()));
  }
  const std::string emit = flags.Get("emit", "hlo");
  if (emit != "hlo" && emit != "pb") {
    return Fail(2, "--emit must be hlo or pb, not '" + emit + "'");
  }
  const std::string stage = flags.Get("stage", "hlo");
  bool known_stage = false;
  for (const auto& entry : CompileStages()) known_stage |= entry.first == stage;
  if (!known_stage) {
    return Fail(2, "unknown stage '" + stage + "' (see --list-stages)");
  }
  const std::string print_metadata = flags.Get("print-metadata", "true");
  if (print_metadata != "true" && print_metadata != "false") {
    return Fail(2, "--print-metadata must be true or false");
  }
  if (flags.Has("passes") && flags.Has("platform")) {
    return Fail(2, "give either --passes or --platform, not both");
  }
  const std::string target = flags.Get("target", "host");
  if (target != "host" && target != "aarch64") {
    return Fail(2, "--target must be host or aarch64, not '" + target + "'");
  }
  if (target == "aarch64" && IsCpuStage(stage) && !IsAarch64Stage(stage)) {
    return Fail(2, "--stage=" + stage +
                       " is for the host; --target=aarch64 has the stages "
                       "llvm-opt, asm and object");
  }
  if (IsCpuStage(stage) && flags.Get("platform") != "cpu") {
    return Fail(2, "--stage=" + stage + " needs --platform=cpu");
  }
  if (stage == "object" && !flags.Has("o")) {
    return Fail(2, "--stage=object writes a binary file: give -o FILE");
  }

  absl::StatusOr<std::unique_ptr<HloModule>> module =
      LoadModule(flags.positional[0], flags.Get("format"));
  if (!module.ok()) return Fail(2, module.status().message());

  PipelineOptions options;
  options.verify = !flags.Has("no-verify-each");
  options.dump_dir = flags.Get("dump-dir");
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
    ScopedFusionReportSink sink(&report);
    absl::StatusOr<bool> changed = pipeline->Run(module->get());
    if (!changed.ok()) return Fail(1, changed.status().message());
    if (flags.Has("stats")) std::cerr << pipeline->StatisticsReport();
  }

  std::string output;
  if (target == "aarch64" && IsAarch64Stage(stage)) {
    absl::StatusOr<std::string> text = Aarch64StageOutput(**module, stage);
    if (!text.ok()) return Fail(1, text.status().message());
    output = std::move(*text);
  } else if (IsCpuStage(stage)) {
    absl::StatusOr<std::string> text =
        CpuStageOutput(**module, stage, !flags.Has("o"));
    if (!text.ok()) return Fail(1, text.status().message());
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
    std::ofstream out(flags.Get("o"), std::ios::binary);
    out << output;
    if (!out) return Fail(2, "cannot write " + flags.Get("o"));
  } else {
    std::cout << output;
  }
  if (flags.Has("fusion-report")) std::cout << FormatFusionReport(report);
  return 0;
}

}  // namespace
}  // namespace hloc

int main(int argc, char** argv) { return hloc::Main(argc, argv); }

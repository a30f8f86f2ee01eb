// hlo-cpu-codegen: prints what the CPU backend makes of an HLO module, for
// reading and for FileCheck tests (backends/cpu/tests):
//
//   hlo-cpu-codegen [--emit=llvm|llvm-opt|asm] [--pipeline] [--serial]
//                   [--streaming-min-bytes=N] [--cpu=NAME]
//                   [--features=+F,-G] FILE
//
//   --emit=llvm      the kernels' LLVM IR as emitted (default)
//   --emit=llvm-opt  the LLVM IR after the O3 pipeline for the target CPU
//   --emit=asm       the target CPU's assembly
//   --cpu=NAME       compile for this x86-64 CPU (LLVM's name: x86-64-v3,
//                    znver4, ...) instead of the host's, so tests check the
//                    same code on every host (target_cpu.h)
//   --features=LIST  CPU features to add or remove (+avx2,-avx512f)
//   --pipeline       run the CPU pass pipeline (simplify, fuse) first
//   --serial         no OpenMP: every loop runs on the calling thread
//   --streaming-min-bytes=N  outputs of N bytes or more use non-temporal
//                    stores (default: the host's last-level cache size;
//                    0: never), so tests do not depend on the host's cache
// FILE may be "-" for standard input. Errors go to stderr with exit code 1.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/target_cpu.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "hlo-cpu-codegen: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string emit = "llvm";
  std::string path;
  bool pipeline = false;
  hloc::CpuCompileOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--emit=", 0) == 0) {
      emit = arg.substr(7);
    } else if (arg == "--pipeline") {
      pipeline = true;
    } else if (arg == "--serial") {
      options.codegen.parallel = false;
    } else if (arg.rfind("--cpu=", 0) == 0) {
      options.jit.cpu = arg.substr(6);
      if (options.jit.cpu.empty()) return Fail("--cpu needs a CPU name");
    } else if (arg.rfind("--features=", 0) == 0) {
      options.jit.cpu_features = arg.substr(11);
    } else if (arg.rfind("--streaming-min-bytes=", 0) == 0) {
      const std::string value = arg.substr(22);
      char* end = nullptr;
      const long long bytes = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || bytes < 0) {
        return Fail("--streaming-min-bytes needs a byte count, not '" + value +
                    "'");
      }
      options.codegen.streaming_store_min_bytes = bytes;
    } else if (arg == "--help" || arg == "-h") {
      std::printf(
          "usage: hlo-cpu-codegen [--emit=llvm|llvm-opt|asm] [--pipeline] "
          "[--serial] [--streaming-min-bytes=N] [--cpu=NAME] "
          "[--features=+F,-G] FILE\n");
      return 0;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      return Fail("unknown flag " + arg);
    } else if (path.empty()) {
      path = arg;
    } else {
      return Fail("more than one input file");
    }
  }
  if (emit != "llvm" && emit != "llvm-opt" && emit != "asm") {
    return Fail("--emit must be llvm, llvm-opt or asm, not '" + emit + "'");
  }
  if (path.empty()) return Fail("no input file (use - for stdin)");
  std::stringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream file(path);
    if (!file) return Fail("cannot read " + path);
    text << file.rdbuf();
  }
  auto module = hloc::ParseHloModule(text.str(), path);
  if (!module.ok()) return Fail(std::string(module.status().message()));
  if (pipeline) {
    auto passes = hloc::MakePipeline("cpu", hloc::PipelineOptions{});
    if (!passes.ok()) return Fail(std::string(passes.status().message()));
    auto changed = passes->Run(module->get());
    if (!changed.ok()) return Fail(std::string(changed.status().message()));
    for (hloc::HloComputation* c : (*module)->computations()) {
      c->SortInstructionsInPostOrder();
    }
  }
  // Checked before anything is emitted: a bad name is the user's error.
  auto cpu = hloc::ResolveTargetCpu(options.jit.cpu, options.jit.cpu_features);
  if (!cpu.ok()) return Fail(std::string(cpu.status().message()));
  if (emit == "llvm") {
    options.codegen.cpu_features = cpu->features;
    auto ir = hloc::EmitCpuLlvmIr(**module, options.codegen);
    if (!ir.ok()) return Fail(std::string(ir.status().message()));
    std::fputs(ir->c_str(), stdout);
    return 0;
  }
  options.jit.keep_ir = emit == "llvm-opt";
  options.jit.keep_asm = emit == "asm";
  auto executable = hloc::CompileForCpu(**module, options);
  if (!executable.ok()) return Fail(std::string(executable.status().message()));
  const std::string& out =
      emit == "asm" ? (*executable)->assembly() : (*executable)->optimized_ir();
  std::fputs(out.c_str(), stdout);
  return 0;
}

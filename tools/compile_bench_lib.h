// compile-bench: how long hloc takes from HLO text to device code, per
// module and per phase, on this machine (issue 10: HLO text to PTX for
// every corpus module; issue 16: the CPU backend on special functions and
// f64 maths).
//
// For every module (each corpus case's module.hlo and xla_gpu_opt.hlo, the
// modules in tools/testdata/compile_time, and any given on the command
// line) and every platform asked for, it compiles in-process, one warm-up
// and then N times, and prints the median of each phase:
//   parse    HLO text -> verified module
//   passes   the platform's HLO pipeline (simplification, fusion)
//   emit     the kernel emitters: HLO -> LLVM IR (with buffer assignment)
//   opt      LLVM's O3 pipeline (cuda: after linking libdevice)
//   codegen  LLVM IR -> PTX (cuda) or x86 object code (cpu)
//   total    the whole compile, timed around everything
// then the median and maximum of the totals over the modules, against the
// goals (cuda: median < 50 ms, max < 500 ms) and the figures of XLA the
// issues quote. A module a backend cannot compile gets a row saying why
// and is left out of the summary.
//
// A benchmark, not a timed test: the numbers depend on the machine and its
// load, which is why every figure is a median of several runs.
#ifndef TOOLS_COMPILE_BENCH_LIB_H_
#define TOOLS_COMPILE_BENCH_LIB_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hloc {

enum CompileBenchExitCode : int {
  kCompileBenchOk = 0,
  // A module could not be read (one that does not compile is a row; a goal
  // missed is a line of the output, not a failure: the figures depend on
  // the machine's load).
  kCompileBenchFailed = 1,
  kCompileBenchBadFlags = 2,
};

struct CompileBenchOptions {
  std::vector<std::string> platforms = {"cuda", "cpu"};
  int reps = 5;  // Timed compiles per module after the warm-up.
  // Comma-separated substrings; a module runs if its name contains one.
  std::vector<std::string> only;
  // More HLO text files to time (rows named by their file name).
  std::vector<std::string> modules;
  // Leave out the corpus and tools/testdata/compile_time.
  bool no_defaults = false;
  bool help = false;
};

absl::StatusOr<CompileBenchOptions> ParseCompileBenchOptions(
    const std::vector<std::string>& args);
std::string CompileBenchUsage();

// Wall seconds of each phase of one compile (see the header comment).
struct CompilePhases {
  double parse_s = 0;
  double passes_s = 0;
  double emit_s = 0;
  double optimize_s = 0;
  double codegen_s = 0;
  double total_s = 0;
};

// Compiles HLO text once for `platform` ("cuda": to PTX; "cpu": to object
// code for this host) and says how long each phase took. `name` labels
// errors.
absl::StatusOr<CompilePhases> TimeCompile(const std::string& hlo_text,
                                          const std::string& name,
                                          const std::string& platform);

int CompileBenchMain(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err);

}  // namespace hloc

#endif  // TOOLS_COMPILE_BENCH_LIB_H_

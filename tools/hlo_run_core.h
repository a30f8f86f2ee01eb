// hlo-run's platform-neutral half: flags, inputs (.npy or random), running
// on a platform given as data (HloRunPlatform), writing outputs, the
// comparison table and the exit codes. It links no code generator: hlo-run
// (tools/hlo_run_lib.h) adds the cpu and cuda platforms with their
// compilers, hlo-run-gpu (tools/hlo_run_gpu.cc) only the cuda runtime.
//
//   hlo-run MODULE.{hlo,pb,hloexe} [--inputs=DIR | --random-inputs=SEED]
//           [--platform=interpreter|cpu|cuda] [--target=host|aarch64]
//           [--expect=DIR] [--rtol=R] [--atol=A] [--expect-tf32]
//           [--allow-excess-precision=true|false] [--denormals=flush|keep]
//           [--output=DIR] [--format=hlo|pb|hloexe] [--profile]
//           [--reference=PLATFORM] [--disable-passes=a,b] [--iterations=N]
//           [--max-while-iterations=N]
//
// A .hloexe file (hlo-opt --platform=cpu|cuda --stage=executable -o F.hloexe)
// is a saved executable: with its --platform it is loaded (object code
// linked, or device code loaded; nothing compiled) and run; its embedded
// module gives the inputs' shapes and the tolerances. --profile prints
// per-kernel device times (cuda) to stderr.
//
// Files follow the corpus convention (shared/corpus/README.md): in<i>.npy is
// entry parameter i, out<i>.npy is leaf i of the result (a tuple result
// flattened depth-first, in order). With --expect, one table row per output:
// name, shape, max abs error, max rel error, mismatches, tolerance used.
// Tolerances default per element type -- the least precise float type the
// module computes in -- wider for modules with accumulating ops
// (runtime/compare.h); --rtol / --atol override them for float outputs
// (integers and predicates always compare exactly). --expect-tf32 says the
// expected outputs came from a GPU that ran default-precision f32 dots and
// convolutions in TF32 (XLA:GPU on NVIDIA, e.g. the shared corpus): their f32
// outputs then also allow 2^-8 of the largest |expected| value.
//
// Numerics as XLA's by default: the compiling platforms run their pipeline
// with excess precision allowed (passes/simplify_fp_conversions.h;
// --allow-excess-precision=false keeps every bf16/f16 rounding), and the
// interpreter and cpu flush f32/f64 denormals to zero (runtime/denormals.h;
// the interpreter gets flushed inputs and runs in flush-to-zero mode);
// --denormals=keep gives IEEE gradual underflow instead.
//
// --reference=PLATFORM runs the module on that platform too (the
// interpreter, say) and compares --platform's outputs with its outputs as
// with --expect's files: the same tolerances, table and exit statuses.
// --disable-passes skips passes of a compiling platform's pipeline (cpu).
// --iterations=N times N more runs after the first (cuda: device time;
// interpreter and cpu: wall time of whole runs, nothing recompiled).
// --max-while-iterations=N stops a while loop that runs more than N
// iterations, with an error naming it (interpreter, cpu host).
//
// Random inputs (--random-inputs=SEED) depend only on the seed, the
// parameter number and its shape: floats uniform in [-1, 1) (complex: both
// parts), signed integers in [-8, 8], unsigned in [0, 15], pred fair coins.
//
// --replicas=N runs the N devices of a module with collectives: the
// interpreter through hlo/evaluator/evaluator.h's EvaluateReplicated, the cpu
// (host) compiles once and runs each device on a thread of its own, the
// collectives meeting in host memory (runtime/host_collectives.h). N must be
// the module's replica_count x num_partitions; a module that gives neither
// runs N replicas. Device k reads parameter i from in<i>.r<k>.npy when the
// parameter has per-device files (in<i>.r0.npy exists), else the shared
// in<i>.npy; --random-inputs gives device k the inputs of seed SEED+k. Device
// k writes and compares out<i>.r<k>.npy, one table per device.
//
// Exit status: 0 all outputs match (or nothing to compare), 1 some output
// does not match, 2 bad input (flags, files, module, shapes), 3 the platform
// failed to run the module (e.g. an op it does not implement, no GPU).
#ifndef TOOLS_HLO_RUN_CORE_H_
#define TOOLS_HLO_RUN_CORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "runtime/denormals.h"

namespace hloc {

enum HloRunExitCode : int {
  kHloRunMatch = 0,
  kHloRunMismatch = 1,
  kHloRunBadInput = 2,
  kHloRunFailed = 3,
};

struct HloRunOptions {
  std::string module_path;
  std::string format;  // "", "hlo", "pb" (see LoadModule) or "hloexe".
  std::string inputs_dir;
  std::optional<uint64_t> random_seed;
  std::string platform = "interpreter";
  // What --platform=cpu compiles for: "host" (JIT) or "aarch64" (AOT, run
  // under qemu-aarch64; backends/cpu/aarch64_aot.h).
  std::string target = "host";
  std::string expect_dir;
  // Another platform whose outputs --platform's are compared with (instead
  // of --expect's files); empty: none.
  std::string reference;
  // Passes the compiling platform's pipeline skips (PipelineOptions).
  std::set<std::string> disabled_passes;
  std::optional<double> rtol;
  std::optional<double> atol;
  // The expected outputs came from a GPU that used TF32 (see above).
  bool expect_tf32 = false;
  // --fallback / --no-fallback: whether --platform=cpu may run what code
  // generation declines in the reference evaluator; unset: the target's
  // default (the host allows it, aarch64 does not; cuda never does).
  std::optional<bool> allow_fallback;
  // PipelineOptions::allow_excess_precision for the compiling platforms.
  bool allow_excess_precision = true;
  // Drop JAX's Python host callbacks whose results are unused before any
  // platform runs the module (passes/host_callbacks.h); without it every
  // platform refuses a module that has one.
  bool drop_debug_callbacks = false;
  DenormalMode denormals = DenormalMode::kFlush;
  std::string output_dir;
  // Per-kernel device times on stderr (platforms that can time steps).
  bool profile = false;
  // cuda: launch kernels as programmatic dependents where the executable
  // allows it (CudaExecutorOptions::programmatic_launch).
  bool programmatic_launch = true;
  // cuda: run loops and conditionals as conditional graph nodes where the
  // driver has them (CudaExecutorOptions::conditional_nodes).
  bool conditional_nodes = true;
  // cuda: the streams a graph is captured on
  // (CudaExecutorOptions::graph_streams).
  int64_t graph_streams = 4;
  // cuda: time runs with graphs on their branches against runs with one
  // chain each and keep the faster (CudaExecutorOptions::time_graph_branches).
  bool time_graph_branches = true;
  // Timed repetitions after the run; 0: none.
  int64_t iterations = 0;
  // Time those repetitions as whole runs, not as sums of per-step times.
  bool time_run = false;
  // A while loop that runs more iterations than this stops the run with an
  // error naming it (0: no limit); the interpreter and cpu (host) honour it.
  int64_t max_while_iterations = 0;
  // --replicas=N: run N devices (0: the usual one-device run).
  int64_t replicas = 0;
  bool help = false;
};

// Parses the command line (without the program name). Errors say what is
// wrong with which flag.
absl::StatusOr<HloRunOptions> ParseHloRunOptions(
    const std::vector<std::string>& args);

// A saved executable loaded by a platform: its module (inputs, tolerances)
// and how to run it. A failure to load is bad input (exit 2); a failure of
// `run` (no device, say) is the platform's (exit 3).
struct SavedExecutable {
  std::unique_ptr<HloModule> module;
  std::function<absl::StatusOr<Literal>(absl::Span<const Literal> arguments)>
      run;
  // Every device of a replicated run, one argument list each (empty when
  // the platform runs one device).
  std::function<absl::StatusOr<std::vector<Literal>>(
      absl::Span<const std::vector<Literal>> arguments)>
      run_replicated;
};

// A --platform: how it runs a module, and how it loads a saved executable
// (empty when it cannot).
struct HloRunPlatform {
  std::string name;
  std::function<absl::StatusOr<Literal>(const HloModule& module,
                                        absl::Span<const Literal> arguments,
                                        const HloRunOptions& options)>
      run_module;
  std::function<absl::StatusOr<SavedExecutable>(const HloRunOptions& options)>
      load_executable;
  // Rejects options this platform cannot honour (bad input, exit 2), before
  // anything is read. Unset: the platform takes none of
  // --disable-passes, --max-while-iterations.
  std::function<absl::Status(const HloRunOptions& options)> check_options;
  // Runs every device of the module's replica_count x num_partitions, one
  // argument list per device (empty when the platform cannot).
  std::function<absl::StatusOr<std::vector<Literal>>(
      const HloModule& module, absl::Span<const std::vector<Literal>> arguments,
      const HloRunOptions& options)>
      run_replicated;
};
using HloRunPlatforms = std::vector<HloRunPlatform>;

// The reference evaluator.
HloRunPlatform InterpreterPlatform();

std::string HloRunUsage(const HloRunPlatforms& platforms);

// Prints rows of cells as left-aligned columns two spaces apart (hlo-run's
// comparison table, hlo-bench's tables).
void PrintTable(const std::vector<std::vector<std::string>>& rows,
                std::ostream& out);

// Reads DIR/in<i>.npy for every entry parameter, checking the count, element
// types and shapes; errors name the parameter.
absl::StatusOr<std::vector<Literal>> ReadInputs(const HloModule& module,
                                                const std::string& dir);

// The same for device `device` of a run of `num_devices`: a parameter with
// per-device files (DIR/in<i>.r0.npy exists) is read from in<i>.r<device>.npy,
// others from in<i>.npy, shared by every device.
absl::StatusOr<std::vector<Literal>> ReadDeviceInputs(const HloModule& module,
                                                      const std::string& dir,
                                                      int64_t device,
                                                      int64_t num_devices);

// Deterministic random arguments for the entry parameters (see above).
absl::StatusOr<std::vector<Literal>> RandomInputs(const HloModule& module,
                                                  uint64_t seed);

// --iterations on a host platform: runs `run` `iterations` times and prints
// "<platform>: N more runs: median X ms, min Y ms, max Z ms" to `err`
// (wall time of whole runs). The first error stops it.
absl::Status TimeRepeatedRuns(absl::string_view platform, int64_t iterations,
                              const std::function<absl::Status()>& run,
                              std::ostream& err);

// The array leaves of a result, depth-first.
std::vector<Literal> FlattenResult(Literal result);

// DIR/out<i><suffix>.npy for each of `outputs` (its element type); an extra
// file is an error too. `suffix` names a device's files (--replicas).
absl::StatusOr<std::vector<Literal>> ReadExpected(
    const std::string& dir, const std::vector<Literal>& outputs,
    absl::string_view suffix = "");

// Runs hlo-run with parsed options on one of `platforms`, printing to `out`
// (results, the table) and `err` (errors, timings); returns the exit status.
int RunHloRun(const HloRunOptions& options, const HloRunPlatforms& platforms,
              std::ostream& out, std::ostream& err);

// The whole tool: parses `args` (without the program name) and runs.
int HloRunMain(const std::vector<std::string>& args,
               const HloRunPlatforms& platforms, std::ostream& out,
               std::ostream& err);

}  // namespace hloc

#endif  // TOOLS_HLO_RUN_CORE_H_

// hlo-bench: how fast the CPU backend's code and compiler are, measured
// against a parallel memcpy, OpenBLAS and XLA:CPU in one run.
//
// Three tables:
//  1. Memory-bound modules over SIZE x SIZE f32 (chain5: the corpus's five-op
//     elementwise chain; softmax over the last dimension; layernorm over the
//     last dimension): best and median time of N reps after a warm-up, GB/s
//     (bytes of the parameters read plus the results written, once each)
//     and the fraction of an OpenMP memcpy of the same bytes (copying B/2
//     bytes reads and writes B, counted the same way), for
//       hloc kernels  the compiled kernels on buffers allocated once: the
//                     code generator's speed;
//       hloc Run      CpuExecutable::Run: what a caller gets, including the
//                     run's fresh arena/output block and the result Literal;
//       XLA:CPU       JAX's XLA on the same module proto and inputs.
//     Our results are checked against XLA's ("check").
//  2. A DOT_SIZE^3 f32 dot: GFLOP/s of hloc (labelled with whether the dot
//     is generated code or an evaluator fallback), OpenBLAS sgemm (dlopen
//     of libopenblas.so.0) and XLA:CPU.
//  3. Issue 16's operations (cumsum, top-k, argmax, fft, cholesky) as JAX
//     lowers them, sized from SIZE: hloc Run against XLA:CPU, checked.
//  4. Compile time per corpus case (shared/corpus/jax): parse, verify, cpu
//     pipeline, LLVM, JIT until the kernels are callable; median of a few
//     reps, beside XLA:CPU compiling the case's module.pb.
//
// --plot=FILE.svg also draws tables 1 and 2 as a bar chart (bench_plot.h):
// per case, the copy bound, hloc kernels, hloc Run, OpenBLAS and XLA:CPU.
//
// XLA:CPU is driven by tools/hlo_bench_xla.py (see its header), started
// once as a co-process that answers one JSON line per request
// (hlo_bench_xla_client.h). Without
// python3 or JAX the XLA columns say "n/a" and why.
//
// Timing: every contender of a case (copy, hloc kernels, hloc Run, XLA;
// or hloc and XLA compiling) gets one warm-up call, then the reps are taken
// in rounds (A, B, C, A, B, C, ...), so that a busy machine's load falls on
// all of them alike. A contender whose warm-up says its reps would take
// more than its share of --budget seconds does fewer (at least one); the
// tables show the reps taken.
#ifndef TOOLS_HLO_BENCH_LIB_H_
#define TOOLS_HLO_BENCH_LIB_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloc {

enum HloBenchExitCode : int {
  kHloBenchOk = 0,
  // One of our compiles or runs failed, or a result differs from XLA's.
  kHloBenchFailed = 1,
  kHloBenchBadFlags = 2,
};

struct HloBenchOptions {
  int reps = 20;  // Rounds after the warm-up.
  int compile_reps = 5;
  // Comma-separated substrings; a case runs if its name contains one.
  std::vector<std::string> only;
  bool no_xla = false;
  // OpenMP threads for hloc and the copy; OpenBLAS's and XLA's threads
  // follow. 0: OpenMP's default (OMP_NUM_THREADS, else every core).
  int threads = 0;
  int64_t size = 4096;
  int64_t dot_size = 1024;
  // Seconds one measurement (warm-up and reps) should take at most.
  double budget_s = 20;
  std::string python = "python3";
  // Path of hlo_bench_xla.py; empty: found in the runfiles or the checkout.
  std::string xla_helper;
  // Also write the memory-bound and dot tables as an SVG bar chart here.
  std::string plot;
  bool help = false;
};

// Parses the command line (without the program name).
absl::StatusOr<HloBenchOptions> ParseHloBenchOptions(
    const std::vector<std::string>& args);
std::string HloBenchUsage();

// The HLO text of the memory-bound case `name` ("chain5", "softmax",
// "layernorm") over f32[rows, cols], or of the f32[m,k] x f32[k,n] dot.
absl::StatusOr<std::string> MemoryBoundModuleText(absl::string_view name,
                                                  int64_t rows, int64_t cols);
std::string DotModuleText(int64_t m, int64_t k, int64_t n);
// The HLO text of the operation case `name` ("cumsum", "topk", "argmax",
// "fft", "cholesky") at --size `size`.
absl::StatusOr<std::string> OpModuleText(absl::string_view name, int64_t size);

int HloBenchMain(const std::vector<std::string>& args, std::ostream& out,
                 std::ostream& err);

}  // namespace hloc

#endif  // TOOLS_HLO_BENCH_LIB_H_

#include "tools/hlo_run_cuda.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/cuda_executor.h"
#include "runtime/device_threads.h"
#include "runtime/graph_choice.h"

namespace hloc {
namespace {

// Runs per sample of --time-run, as many as the peers' timing loop calls.
constexpr int kRunsPerSample = 20;

// The executor's options hlo-run's flags set (one device's; a replicated
// run adds its device and collectives).
CudaExecutorOptions ExecutorOptions(const HloRunOptions& options) {
  CudaExecutorOptions executor_options;
  executor_options.programmatic_launch = options.programmatic_launch;
  executor_options.conditional_nodes = options.conditional_nodes;
  executor_options.graph_streams = static_cast<int>(options.graph_streams);
  executor_options.time_graph_branches = options.time_graph_branches;
  return executor_options;
}

// The median over `iterations` samples (after warm-up) of the device time of
// one run, the argument copies to the device and the results back not
// counted. By default a sample is one run, its time the sum of its steps'
// CUDA-event times (graphs off, so kernels are bracketed one by one). With
// `time_run` a sample is kRunsPerSample runs back to back with the inputs
// resident on the device, one pair of events around them all, graphs as
// usual: what a caller's loop waits for per call, launch gaps included,
// measured the way the benchmark's peers are (tools/gpu_bench times
// jax.jit and torch.compile over 20 calls a round). A single run after the
// 256 MB argument copy measured up to 10% slower than the same kernel back
// to back (H100, 8192x8192 f32 chain5: 211 against 183 us), so only the
// loop compares with the peers. `last` receives the last sample's
// statistics (its per-step times when not `time_run`).
absl::StatusOr<double> MedianDeviceMilliseconds(
    CudaExecutor& executor, absl::Span<const Literal> arguments,
    int64_t iterations, bool time_run, CudaRunStats* last) {
  // Module load, first-touch page faults, clock ramp-up and the runs that
  // time graphs on their branches against one chain (graph_choice.h: with
  // the run before, these finish the timing) stay out of the samples.
  constexpr int kWarmupRuns = std::max(3, 2 * GraphChoice::kTrials);
  CudaRunOptions timed;
  timed.time_steps = !time_run;
  timed.time_run = time_run;
  timed.repeat = time_run ? kRunsPerSample : 1;
  std::vector<double> samples;
  for (int64_t i = 0; i < kWarmupRuns + iterations; ++i) {
    absl::StatusOr<Literal> result = executor.Run(arguments, timed, last);
    if (!result.ok()) return result.status();
    double total = last->run_milliseconds;
    if (!time_run) {
      total = 0;
      for (const CudaStepTime& t : last->step_times) total += t.milliseconds;
    }
    if (i >= kWarmupRuns) samples.push_back(total);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// Loads the executable onto the GPU and runs it once. Times and (with
// --profile) the per-kernel table go to stderr, so the result table on
// stdout stays comparable with other platforms.
absl::StatusOr<Literal> RunOnGpu(const Executable& executable,
                                 absl::Span<const Literal> arguments,
                                 const HloRunOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const CudaExecutorOptions executor_options = ExecutorOptions(options);
  absl::StatusOr<std::unique_ptr<CudaExecutor>> executor =
      CudaExecutor::Create(executable, executor_options);
  if (!executor.ok()) return executor.status();
  const double load_ms = MillisecondsSince(start);
  CudaRunOptions run_options;
  run_options.time_steps = options.profile;
  CudaRunStats stats;
  const auto run_start = std::chrono::steady_clock::now();
  absl::StatusOr<Literal> result =
      (*executor)->Run(arguments, run_options, &stats);
  if (!result.ok()) return result.status();
  std::cerr << absl::StrFormat(
      "cuda: %s (%s), %s loaded in %.1f ms, ran in %.3f ms (%d kernel "
      "launches, %d graph launches)\n",
      (*executor)->device_info().name, (*executor)->device_info().Arch(),
      (*executor)->loaded_code(), load_ms, MillisecondsSince(run_start),
      stats.kernel_launches, stats.graph_launches);
  if (stats.evaluator_steps > 0) {
    std::cerr << "cuda: " << stats.evaluator_steps
              << " evaluator fallback step(s) ran on the host\n";
  }
  if (stats.host_library_steps > 0) {
    std::cerr << "cuda: " << stats.host_library_steps
              << " LAPACK call(s) ran on the host (as jaxlib's hybrid "
                 "kernels)\n";
  }
  if (options.profile) std::cerr << FormatStepTimes(stats.step_times);
  if (options.iterations > 0) {
    CudaRunStats last;
    absl::StatusOr<double> median = MedianDeviceMilliseconds(
        **executor, arguments, options.iterations, options.time_run, &last);
    if (!median.ok()) return median.status();
    if (options.time_run) {
      std::cerr << absl::StrFormat(
          "cuda: median run time %.4f ms over %d samples of %d runs back "
          "to back (whole runs, %d kernel and %d graph launches each)\n",
          *median, options.iterations, kRunsPerSample, last.kernel_launches,
          last.graph_launches);
      const CudaExecutor::GraphChoices g = (*executor)->graph_choices();
      if (g.branched > 0) {
        std::cerr << absl::StrFormat(
            "cuda: %d of %d graphs have branches; runs launch %s (best run "
            "%.4f ms on branches, %.4f ms as one chain)\n",
            g.branched, g.graphs, g.runs, g.best_branched_ms, g.best_chain_ms);
      }
    } else {
      std::cerr << absl::StrFormat(
          "cuda: median device time %.4f ms over %d runs\n", *median,
          options.iterations);
      // The first run's table above includes cold-start costs; this one is
      // warm.
      if (options.profile) {
        std::cerr << "cuda: steps of the last timed run\n"
                  << FormatStepTimes(last.step_times);
      }
    }
  }
  return result;
}

// Runs `executable` on GPUs 0..n-1, one per argument list, each from its
// own thread with its own executor, the collectives between them through
// NCCL. With --iterations, the median wall time of whole replicated runs
// (arguments in and results out included) goes to stderr.
absl::StatusOr<std::vector<Literal>> RunOnGpus(
    const Executable& executable,
    absl::Span<const std::vector<Literal>> arguments,
    const HloRunOptions& options) {
  const int n = static_cast<int>(arguments.size());
  absl::StatusOr<cuda::CudaDriver*> driver = cuda::CudaDriver::Get();
  if (!driver.ok()) return driver.status();
  int count = 0;
  absl::Status status = HLOC_CUDA_CALL(*driver, "counting GPUs",
                                       cuDeviceGetCount, &count);
  if (!status.ok()) return status;
  if (count < n) {
    return absl::FailedPreconditionError(absl::StrCat(
        "a run of ", n, " devices needs ", n, " GPUs; this machine has ",
        count));
  }
  std::vector<int> ordinals(n);
  for (int k = 0; k < n; ++k) ordinals[k] = k;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<cuda::NcclCollectives>> collectives =
      cuda::NcclCollectives::Create(*driver, ordinals);
  if (!collectives.ok()) return collectives.status();
  // Executors are made in turn: the first to meet a group layout makes its
  // communicators for every GPU.
  std::vector<std::unique_ptr<CudaExecutor>> executors;
  for (int k = 0; k < n; ++k) {
    CudaExecutorOptions executor_options = ExecutorOptions(options);
    executor_options.device_ordinal = k;
    executor_options.device_id = k;
    executor_options.collectives = collectives->get();
    absl::StatusOr<std::unique_ptr<CudaExecutor>> executor =
        CudaExecutor::Create(executable, executor_options);
    if (!executor.ok()) {
      return absl::Status(executor.status().code(),
                          absl::StrCat("device ", k, ": ",
                                       executor.status().message()));
    }
    executors.push_back(*std::move(executor));
  }
  std::cerr << absl::StrFormat(
      "cuda: %d x %s, NCCL %d (%s), loaded in %.1f ms\n", n,
      executors[0]->device_info().name, (*collectives)->library().version(),
      (*collectives)->library().library(), MillisecondsSince(start));
  // One run: every device's thread; a device that fails says which.
  auto run_all = [&] {
    return RunOnDeviceThreads<Literal>(
        n, [&](int64_t k) { return executors[k]->Run(arguments[k]); });
  };
  absl::StatusOr<std::vector<Literal>> results = run_all();
  if (!results.ok() || options.iterations == 0) return results;
  std::vector<double> samples;
  for (int64_t i = 0; i < options.iterations; ++i) {
    const auto run_start = std::chrono::steady_clock::now();
    absl::StatusOr<std::vector<Literal>> again = run_all();
    if (!again.ok()) return again.status();
    samples.push_back(MillisecondsSince(run_start));
  }
  std::sort(samples.begin(), samples.end());
  std::cerr << absl::StrFormat(
      "cuda: median wall time %.4f ms over %d replicated runs (arguments in "
      "and results out included)\n",
      samples[samples.size() / 2], options.iterations);
  return results;
}

}  // namespace

HloRunPlatform CudaHloRunPlatform(CudaModuleCompiler compiler) {
  return DeviceHloRunPlatform("cuda", std::move(compiler), RunOnGpu,
                              RunOnGpus);
}

}  // namespace hloc

// CudaExecutor: runs a "cuda" Executable (executable.h) on an NVIDIA GPU
// through the driver API (cuda_driver.h); it compiles nothing and links no
// LLVM and no CUDA.
//
// Create loads the device code (a cubin for the device's exact arch if
// there is one, else the PTX through the driver's JIT, whose log is in the
// error when it fails), makes one device allocation for the whole buffer
// plan (every allocation at a 256-byte boundary), uploads the constants
// once, creates a stream, resolves every kernel and prepares every gemm.
// Because the plan's addresses never change, kernel arguments are computed
// once, and a run copies only the entry parameters in and the results out.
//
// Steps run in order on the stream. While loops without a known trip count
// and conditionals decide on the GPU inside a graph where the driver has
// conditional nodes and their nested steps can be captured
// (cuda_conditional_nodes.h); otherwise they read their predicate on the
// host (one small copy and a stream synchronisation per decision). Collective
// steps are NCCL calls on the stream (a replicated run, CudaExecutorOptions)
// or, alone, copies. Evaluator steps copy their slots to the host, run the
// reference evaluator and copy the results back; they are counted and reported
// (fallback_runs), never silent. A straight-line stretch of kernel, copy and
// gemm steps holding at least kMinGraphKernels kernels is captured into a CUDA
// graph the first time it runs and replayed afterwards, one launch instead of
// one per kernel; a loop with a known trip count whose body is such steps joins
// the stretch unrolled, or (too long for one graph) runs as graphs of many
// iterations each (graph_segments.h). A graph is captured on several streams,
// steps that share no memory on different ones, so independent chains of
// kernels are parallel branches of it (graph_streams.h); the first runs
// alternate between those graphs and one-chain captures of the same steps,
// and later runs launch whichever made runs faster (graph_choice.h).
//
// RunOnDevice runs on the caller's device memory instead: parameters read
// in place, results written into buffers the caller provides.
//
// Runs are serialised (one buffer plan on the device); any thread may run.
#ifndef RUNTIME_CUDA_EXECUTOR_H_
#define RUNTIME_CUDA_EXECUTOR_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/literal.h"
#include "runtime/cublas_gemm.h"
#include "runtime/cuda_conditional_nodes.h"
#include "runtime/cuda_device.h"
#include "runtime/cudnn_conv.h"
#include "runtime/cufft_fft.h"
#include "runtime/cusolver_solver.h"
#include "runtime/executable.h"
#include "runtime/graph_choice.h"
#include "runtime/graph_streams.h"
#include "runtime/nccl_collectives.h"

namespace hloc {

struct CudaExecutorOptions {
  int device_ordinal = 0;
  // A replicated run: this executor's device (replica * num_partitions +
  // partition) and the run's NCCL communicators (runtime/nccl_collectives.h),
  // shared by the executors of every device and outliving them. Without
  // them the executor is the one device of a run of one: a collective is
  // then its group of one (a copy) and a collective of a bigger run is an
  // error.
  int64_t device_id = 0;
  cuda::NcclCollectives* collectives = nullptr;
  // Capture straight-line kernel sequences into CUDA graphs.
  bool use_graphs = true;
  // Launch the kernels the executable marks programmatic
  // (LaunchDims::programmatic) as programmatic dependents of the kernel
  // before them (cuLaunchKernelEx): the next kernel's blocks are resident
  // and waiting at griddepcontrol.wait while the last blocks of the one
  // before drain, which saves 1.3-1.8 us a launch on an H200
  // (tools/gpu_bench/RESULTS.md, session 21). Off: every kernel starts after
  // the one before has ended (cuLaunchKernel; the wait returns at once).
  bool programmatic_launch = true;
  // With use_graphs, on a driver that has conditional nodes: run while
  // loops without a trip count and conditionals inside graphs, deciding
  // on the GPU (cuda_conditional_nodes.h). Off: the host reads each
  // predicate.
  bool conditional_nodes = true;
  // With use_graphs: how many streams a graph is captured on. Steps that
  // share no memory are issued on different streams and become parallel
  // branches of the graph (graph_streams.h), so independent chains of small
  // kernels run side by side instead of one after another. 1: every graph
  // is one chain.
  int graph_streams = 4;
  // With graph_streams > 1: the first runs alternate between launching
  // graphs on their branches and as one chain, and the faster is kept
  // (graph_choice.h). Off: graphs always run on their branches.
  bool time_graph_branches = true;
};

struct CudaRunOptions {
  // Time every kernel, copy and library call with CUDA events (graphs are
  // not used then, so each step is bracketed on its own).
  bool time_steps = false;
  // Time the run as a whole: one pair of events around all its steps
  // (graphs as usual), so launch gaps count and the argument and result
  // copies do not; what a training loop waits for per call.
  bool time_run = false;
  // The steps run this many times back to back between the argument
  // copies in and the result copies out: a benchmark's loop with its inputs
  // resident on the device, as a framework's timing loop calls a jitted
  // function. Entry parameters are never written by the steps, so every
  // repeat computes the same results. With time_run, run_milliseconds is
  // the time of all repeats over their number; launch counts are per run.
  int64_t repeat = 1;
};

// One step's device time over a run (a step inside a loop adds up).
struct CudaStepTime {
  // "step 3 (fusion.1)", "step 2 (while.1) body step 0 (add.2)".
  std::string step;
  // The kernel's name, "copy" or the library ("cublas.gemm").
  std::string what;
  int64_t count = 0;
  double milliseconds = 0;
};

struct CudaRunStats {
  // With CudaRunOptions::time_steps: per step, in the executable's order.
  std::vector<CudaStepTime> step_times;
  int64_t kernel_launches = 0;
  int64_t graph_launches = 0;
  int64_t evaluator_steps = 0;
  // LAPACK calls run on the host (lapack_step.h), between copies.
  int64_t host_library_steps = 0;
  // With CudaRunOptions::time_run: the device time from the first step's
  // start to the last step's end (of one run: over repeats, their mean).
  double run_milliseconds = 0;
};

// One parameter leaf of a device run (CudaExecutor::RunOnDevice): its
// bytes on the executor's device, row-major and 16-byte aligned, read in
// place; or in host memory, copied in (and counted as a host transfer).
struct CudaRunArgument {
  cuda::CUdeviceptr device = 0;
  const void* host = nullptr;
};

// A table of step times, slowest first, with each one's share.
std::string FormatStepTimes(const std::vector<CudaStepTime>& times);

class CudaExecutor {
 public:
  // How many kernels a straight-line stretch needs to become a graph.
  static constexpr int kMinGraphKernels = 2;

  static absl::StatusOr<std::unique_ptr<CudaExecutor>> Create(
      Executable executable, const CudaExecutorOptions& options = {});
  ~CudaExecutor();

  // One argument per entry parameter, shapes compatible with the
  // parameters'. `stats` may be null.
  absl::StatusOr<Literal> Run(absl::Span<const Literal> arguments,
                              const CudaRunOptions& options = {},
                              CudaRunStats* stats = nullptr);

  // A run on the caller's device memory (DLPack arrays, a framework's
  // buffers): `parameter_leaves` has one entry per leaf of every entry
  // parameter (depth-first, parameter after parameter), `results` one
  // device address per result leaf, row-major, of its leaf's size. The
  // kernels read the parameters and write the results where they are: no
  // host copy and no device copy, except a result that is a parameter, a
  // constant or a repeated leaf (copied on the device). Graph segments that
  // touch parameters or outputs run step by step (their captured addresses
  // are the plan's). Returns once the results are written (the stream is
  // synchronised), so the caller's buffers are free to use on any stream.
  absl::Status RunOnDevice(absl::Span<const CudaRunArgument> parameter_leaves,
                           absl::Span<const cuda::CUdeviceptr> results,
                           CudaRunStats* stats = nullptr);

  // Copies between host and device memory issued so far, over all runs:
  // arguments and results of Run, host arguments of RunOnDevice, loop and
  // conditional predicates, evaluator steps.
  int64_t host_transfers() const { return host_transfers_.load(); }
  // The device address each parameter leaf was read from in the last
  // RunOnDevice (tests check zero-copy against the caller's buffers).
  const std::vector<cuda::CUdeviceptr>& last_parameter_addresses() const {
    return last_parameter_addresses_;
  }
  const cuda::CudaDevice& device() const { return *device_; }
  // The stream every run issues its work on. A producer of device
  // arguments orders its writes before it (DLPack's
  // __dlpack__(stream=...)).
  cuda::CUstream stream() const { return stream_; }

  const Executable& executable() const { return executable_; }
  const cuda::CudaDeviceInfo& device_info() const;
  // Which device code was loaded: "cubin sm_90" or "ptx sm_90 (JIT)".
  const std::string& loaded_code() const { return loaded_code_; }
  // Bytes of the one device allocation for the buffer plan.
  int64_t device_bytes() const { return device_bytes_; }
  // Evaluator steps run so far, over all runs.
  int64_t fallback_runs() const { return fallback_runs_.load(); }
  // Whether loops and conditionals may run as conditional nodes
  // (CudaExecutorOptions::conditional_nodes on a driver that has them, for
  // an executable with a loop without a trip count or a conditional).
  bool uses_conditional_nodes() const { return conditional_nodes_ != nullptr; }
  // How graphs run (graph_choice.h): of the graphs launched so far, how
  // many have branches when captured on several streams; whether runs
  // launch those ("branches"), one-chain captures ("one chain") or are
  // still timing both ("being timed"); and the best timed run of each
  // (0: not timed).
  struct GraphChoices {
    int64_t graphs = 0, branched = 0;
    std::string runs;
    double best_branched_ms = 0, best_chain_ms = 0;
  };
  GraphChoices graph_choices() const;

 private:
  struct Thunk;
  struct ThunkList;
  struct ChosenGraph;
  class Runner;

  CudaExecutor() = default;
  absl::Status LoadModule();
  absl::Status AllocateAndUpload();
  // Builds the thunks of `steps` (kernels resolved, gemms and convs
  // planned, evaluator modules parsed); `prefix` names nested steps in
  // errors.
  absl::Status Prepare(const std::vector<ExecutableStep>& steps,
                       const std::string& prefix, ThunkList* list);
  // Times every gemm's candidate algorithms (cuBLASLt autotuning) on the
  // plan's buffers before the first run, when no buffer holds a value yet:
  // tuning runs a gemm and writes its output, which a graph capture
  // forbids and a live value would not survive, and graphs record gemms.
  absl::Status TuneGemms();
  // Checks a collective step and makes its communicators.
  absl::Status PrepareCollective(const ExecutableStep& step,
                                 const std::string& what, Thunk* thunk);
  // A library call's plan (cuBLASLt gemm, cuDNN conv), loading the library
  // on first use.
  absl::Status PrepareLibraryCall(const ExecutableStep& step,
                                  const std::string& what, Thunk* thunk);
  absl::Status CheckDeviceRun(absl::Span<const CudaRunArgument> parameter_leaves,
                              absl::Span<const cuda::CUdeviceptr> results) const;
  // The streams, events and planner of graphs captured on several
  // streams (CudaExecutorOptions::graph_streams).
  absl::Status CreateBranchStreams();
  // Records run_events_[i] (created on first use) on the stream.
  absl::Status RecordRunEvent(int i);
  // The device time between run_events_[0] and [1] (both recorded, the
  // stream synchronised since); `what` names the run in an error.
  absl::StatusOr<double> RunEventMilliseconds(const char* what);
  // Which captures this run launches, whether it is a timed run of the
  // choice between them (`graphs`: the run may launch graphs), and a timed
  // run's time (graph_choice.h).
  GraphChoice::Variant RunVariant() const;
  bool TimesThisRun(bool graphs) const;
  void RecordTrial(double milliseconds);
  absl::StatusOr<cuda::CUfunction> Kernel(const ExecutableStep& step,
                                          const std::string& what);

  Executable executable_;
  CudaExecutorOptions options_;
  std::unique_ptr<cuda::CudaDevice> device_;
  cuda::CudaDriver* driver_ = nullptr;
  cuda::CUmodule module_ = nullptr;
  cuda::CUstream stream_ = nullptr;
  cuda::CUdeviceptr block_ = 0;
  int64_t device_bytes_ = 0;
  std::string loaded_code_;
  // Per buffer slot: its device address.
  std::vector<cuda::CUdeviceptr> slot_address_;
  std::unique_ptr<ThunkList> steps_;
  // Kernels by name, with the dynamic shared memory each was allowed.
  struct KernelEntry {
    cuda::CUfunction function = nullptr;
    int64_t shared_memory_limit = 48 * 1024;
  };
  std::vector<std::pair<std::string, KernelEntry>> kernels_;
  // Created when a step calls cuBLAS.
  std::unique_ptr<cuda::CublasGemm> gemm_;
  std::unique_ptr<cuda::CudnnConv> cudnn_;
  std::unique_ptr<cuda::CufftFft> fft_;
  std::unique_ptr<cuda::CusolverSolver> solver_;
  // Per timed step (kernel, copy, library call): its name and kind.
  std::vector<CudaStepTime> timed_steps_;
  // With graph_streams > 1: the streams a graph's branches are captured
  // on besides stream_, the events recorded after their steps (one per
  // step of the largest graph), the event every branch starts from, and
  // the planner.
  std::vector<cuda::CUstream> branch_streams_;
  std::vector<cuda::CUevent> branch_events_;
  cuda::CUevent fork_event_ = nullptr;
  std::unique_ptr<GraphStreams> graph_streams_;
  // Loaded when loops and conditionals run as conditional nodes.
  std::unique_ptr<cuda::CudaConditionalNodes> conditional_nodes_;
  // Instantiated graphs, destroyed with the executor.
  std::vector<cuda::CUgraphExec> graphs_;
  // Whether runs launch graphs on their branches or as one chain, timed
  // on the first runs (CudaExecutorOptions::time_graph_branches); how many
  // graphs were made, and how many of them have branches.
  GraphChoice branch_choice_;
  int64_t graph_count_ = 0, branched_graphs_ = 0;
  // Events for timed runs, reused.
  std::vector<cuda::CUevent> events_;
  // The start and end of a run timed as a whole, reused.
  cuda::CUevent run_events_[2] = {nullptr, nullptr};
  mutable std::mutex run_mutex_;
  std::atomic<int64_t> fallback_runs_{0};
  std::atomic<int64_t> host_transfers_{0};
  std::vector<cuda::CUdeviceptr> last_parameter_addresses_;
};

}  // namespace hloc

#endif  // RUNTIME_CUDA_EXECUTOR_H_

#include "runtime/cuda_executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"
#include "runtime/cuda_conditional_nodes.h"
#include "runtime/dense_buffer.h"
#include "runtime/device_run_staging.h"
#include "runtime/evaluator_step.h"
#include "runtime/graph_segments.h"
#include "runtime/lapack_step.h"
#include "runtime/solver_check.h"

namespace hloc {

using cuda::CUdeviceptr;
using cuda::CUfunction;
using cuda::CUgraphExec;

namespace {

// Every allocation starts at this boundary (cudaMalloc's own alignment,
// enough for any vector access a kernel makes).
constexpr int64_t kDeviceAlignment = 256;
// Dynamic shared memory a kernel gets without opting in.
constexpr int64_t kDefaultSharedMemory = 48 * 1024;
// The driver JIT's log buffers.
constexpr size_t kJitLogBytes = 16 * 1024;

}  // namespace

// A graph's two captures (graph_choice.h), each made when a run first
// launches it that way: on several streams (graph_streams.h) and as one
// chain.
struct CudaExecutor::ChosenGraph {
  CUgraphExec branched = nullptr, chain = nullptr;
  // The capture on several streams put every step on one stream: it is
  // the chain as well.
  bool single_stream = false;
};

// A step ready to run: its kernel, arguments, plan or module, and its
// nested steps.
struct CudaExecutor::Thunk {
  const ExecutableStep* step = nullptr;
  std::string what;  // "step 3 (fusion.1)"
  CUfunction function = nullptr;
  std::vector<CUdeviceptr> arguments;
  std::unique_ptr<EvaluatorStep> evaluator;
  // A "lapack.<routine>" step: LAPACK on the host (the CUDA lowering's
  // eig, pivoted QR and tridiagonal; backends/gpu/solver_lowering.h),
  // between copies of its slots.
  std::unique_ptr<LapackStep> host_lapack;
  cuda::GemmPlanPtr gemm;
  cuda::ConvPlanPtr conv;
  cuda::FftPlanPtr fft;
  cuda::SolverPlanPtr solver;
  // A collective's clique and NCCL element type (a replicated run).
  cuda::NcclCollectives::PreparedStep collective;
  std::unique_ptr<ThunkList> condition, body;
  std::vector<std::unique_ptr<ThunkList>> branches;
  // A counted loop whose body stream capture can record
  // (graph_segments.h): iterations per graph (0: none), and whether a
  // step of it reads a parameter or writes an output (as a segment's
  // touches_entry_io). Its graphs of that many iterations and of the
  // remainder are captured on first use.
  int64_t iterations_per_graph = 0;
  bool touches_entry_io = false;
  std::unique_ptr<ChosenGraph> loop_graph, remainder_graph;
  // Index into timed_steps_ (kernels, copies, library calls), else -1.
  int64_t timed = -1;
};

// A list of thunks cut into segments (graph_segments.h): a stretch of
// kernels, copies and capturable counted loops with enough kernels becomes
// a graph.
struct CudaExecutor::ThunkList {
  // A graph bakes in the plan's addresses, so a device run (RunOnDevice),
  // which moves parameters and results onto the caller's memory, issues a
  // segment that touches_entry_io step by step instead.
  struct Segment : GraphSegment {
    std::unique_ptr<ChosenGraph> chosen;  // Made on first use.
  };
  std::vector<Thunk> thunks;
  std::vector<Segment> segments;
};

const cuda::CudaDeviceInfo& CudaExecutor::device_info() const {
  return device_->info();
}

absl::StatusOr<std::unique_ptr<CudaExecutor>> CudaExecutor::Create(
    Executable executable, const CudaExecutorOptions& options) {
  absl::Status status = ValidateExecutable(executable);
  if (!status.ok()) return status;
  if (executable.platform != "cuda") {
    return absl::InvalidArgumentError(
        absl::StrCat("the executable is for platform '", executable.platform,
                     "', not cuda"));
  }
  absl::StatusOr<cuda::CudaDriver*> driver = cuda::CudaDriver::Get();
  if (!driver.ok()) return driver.status();
  std::unique_ptr<CudaExecutor> executor(new CudaExecutor());
  executor->executable_ = std::move(executable);
  executor->options_ = options;
  executor->driver_ = *driver;
  absl::StatusOr<std::unique_ptr<cuda::CudaDevice>> device =
      cuda::CudaDevice::Open(*driver, options.device_ordinal);
  if (!device.ok()) return device.status();
  executor->device_ = *std::move(device);
  status = HLOC_CUDA_CALL(executor->driver_, "creating the executor's stream",
                          cuStreamCreate, &executor->stream_,
                          cuda::CU_STREAM_NON_BLOCKING);
  if (status.ok()) status = executor->LoadModule();
  if (status.ok()) status = executor->AllocateAndUpload();
  // The set kernel is loaded only for an executable with a decision to
  // make on the device: a loop without a trip count or a conditional.
  bool decides = false;
  ForEachStep(executor->executable_.steps, [&](const ExecutableStep& step) {
    decides |=
        step.kind == ExecutableStep::Kind::kConditional ||
        (step.kind == ExecutableStep::Kind::kWhile && step.trip_count < 0);
  });
  if (status.ok() && decides && options.use_graphs &&
      options.conditional_nodes && (*driver)->SupportsConditionalNodes()) {
    absl::StatusOr<std::unique_ptr<cuda::CudaConditionalNodes>> nodes =
        cuda::CudaConditionalNodes::Create(*driver,
                                           executor->device_->context());
    if (nodes.ok()) executor->conditional_nodes_ = *std::move(nodes);
    status = nodes.status();
  }
  if (status.ok() && options.use_graphs && options.graph_streams > 1) {
    status = executor->CreateBranchStreams();
    if (!options.time_graph_branches) {
      executor->branch_choice_.Fix(GraphChoice::Variant::kBranched);
    }
  } else {
    executor->branch_choice_.Fix(GraphChoice::Variant::kChain);
  }
  if (!status.ok()) return status;
  executor->steps_ = std::make_unique<ThunkList>();
  status = executor->Prepare(executor->executable_.steps, "",
                             executor->steps_.get());
  if (status.ok()) status = executor->TuneGemms();
  if (!status.ok()) return status;
  return executor;
}

CudaExecutor::~CudaExecutor() {
  if (driver_ == nullptr || device_ == nullptr) return;
  // Errors cannot be reported from here; the context outlives these.
  device_->MakeCurrent().IgnoreError();
  if (stream_ != nullptr) driver_->cuStreamSynchronize(stream_);
  for (CUgraphExec graph : graphs_) driver_->cuGraphExecDestroy(graph);
  for (cuda::CUevent event : events_) driver_->cuEventDestroy(event);
  for (cuda::CUevent event : branch_events_) driver_->cuEventDestroy(event);
  if (fork_event_ != nullptr) driver_->cuEventDestroy(fork_event_);
  for (cuda::CUstream stream : branch_streams_) {
    driver_->cuStreamDestroy(stream);
  }
  for (cuda::CUevent event : run_events_) {
    if (event != nullptr) driver_->cuEventDestroy(event);
  }
  steps_.reset();  // Library plans go before their libraries.
  conditional_nodes_.reset();
  gemm_.reset();
  cudnn_.reset();
  fft_.reset();
  solver_.reset();
  if (block_ != 0) driver_->cuMemFree(block_);
  if (module_ != nullptr) driver_->cuModuleUnload(module_);
  if (stream_ != nullptr) driver_->cuStreamDestroy(stream_);
}

absl::Status CudaExecutor::LoadModule() {
  const std::string arch = device_->info().Arch();
  const DeviceCode* cubin = nullptr;
  const DeviceCode* ptx = nullptr;
  std::string available;
  for (const DeviceCode& code : executable_.device_code) {
    absl::StrAppend(&available, available.empty() ? "" : ", ", code.format, " ",
                    code.arch);
    if (code.format == "cubin" && code.arch == arch && cubin == nullptr) {
      cubin = &code;
    }
    if (code.format == "ptx" && ptx == nullptr) ptx = &code;
  }
  bool has_kernels = false;
  ForEachStep(executable_.steps, [&](const ExecutableStep& step) {
    has_kernels |= step.kind == ExecutableStep::Kind::kKernel;
  });
  if (!has_kernels) return absl::OkStatus();
  const DeviceCode* code = cubin != nullptr ? cubin : ptx;
  if (code == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no device code this GPU can load: the device ", device_->info().name,
        " is ", arch, ", the executable carries ",
        available.empty() ? "nothing" : available,
        " (a cubin must match the arch exactly; PTX is compiled by the "
        "driver)"));
  }
  loaded_code_ =
      absl::StrCat(code->format, " ", code->arch, code == ptx ? " (JIT)" : "");
  // The JIT (and the cubin loader) write what went wrong into these.
  std::string error_log(kJitLogBytes, '\0');
  std::string info_log(kJitLogBytes, '\0');
  cuda::CUjit_option options[] = {
      cuda::CU_JIT_ERROR_LOG_BUFFER, cuda::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      cuda::CU_JIT_INFO_LOG_BUFFER, cuda::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log.data(), reinterpret_cast<void*>(kJitLogBytes),
                    info_log.data(), reinterpret_cast<void*>(kJitLogBytes)};
  // PTX is text the JIT reads up to its NUL; std::string provides one.
  const absl::Status status = HLOC_CUDA_CALL(
      driver_,
      absl::StrCat("loading the ", code->format, " for ", code->arch, " on ",
                   device_->info().name, " (", arch, ")"),
      cuModuleLoadDataEx, &module_, code->code.c_str(), 4, options, values);
  if (!status.ok()) {
    error_log.resize(std::strlen(error_log.c_str()));
    return absl::Status(
        status.code(),
        absl::StrCat(status.message(),
                     error_log.empty() ? "" : "; the JIT says:\n", error_log));
  }
  return absl::OkStatus();
}

absl::Status CudaExecutor::AllocateAndUpload() {
  const Executable& e = executable_;
  std::vector<int64_t> offset(e.allocations.size());
  for (size_t a = 0; a < e.allocations.size(); ++a) {
    offset[a] = device_bytes_;
    device_bytes_ += RoundUpTo(std::max<int64_t>(e.allocations[a].size, 1),
                               kDeviceAlignment);
  }
  absl::Status status = HLOC_CUDA_CALL(
      driver_,
      absl::StrCat("allocating ", device_bytes_, " bytes for the buffer plan"),
      cuMemAlloc, &block_, static_cast<size_t>(device_bytes_));
  if (!status.ok()) return status;
  for (const ExecutableBuffer& slot : e.buffers) {
    slot_address_.push_back(block_ + offset[slot.allocation] + slot.offset);
  }
  for (size_t a = 0; a < e.allocations.size(); ++a) {
    const ExecutableAllocation& allocation = e.allocations[a];
    if (allocation.kind != BufferAllocation::Kind::kConstant ||
        allocation.constant_data.empty()) {
      continue;
    }
    status = HLOC_CUDA_CALL(
        driver_, absl::StrCat("uploading constant allocation ", a),
        cuMemcpyHtoDAsync, block_ + offset[a], allocation.constant_data.data(),
        allocation.constant_data.size(), stream_);
    if (!status.ok()) return status;
  }
  return HLOC_CUDA_CALL(driver_, "uploading constants", cuStreamSynchronize,
                        stream_);
}

absl::StatusOr<CUfunction> CudaExecutor::Kernel(const ExecutableStep& step,
                                                const std::string& what) {
  auto entry = std::find_if(
      kernels_.begin(), kernels_.end(),
      [&](const auto& named) { return named.first == step.kernel_name; });
  if (entry == kernels_.end()) {
    KernelEntry kernel;
    absl::Status status = HLOC_CUDA_CALL(
        driver_,
        absl::StrCat(what, ": looking up kernel '", step.kernel_name, "'"),
        cuModuleGetFunction, &kernel.function, module_,
        step.kernel_name.c_str());
    if (!status.ok()) return status;
    kernels_.emplace_back(step.kernel_name, kernel);
    entry = kernels_.end() - 1;
  }
  KernelEntry& kernel = entry->second;
  const int64_t shared = step.launch.shared_memory_bytes;
  if (shared > kernel.shared_memory_limit) {
    const int limit = device_->info().max_shared_memory_per_block_optin;
    if (shared > limit) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": kernel ", step.kernel_name, " asks for ",
                       shared, " bytes of dynamic shared memory; ",
                       device_->info().name, " allows ", limit));
    }
    absl::Status status = HLOC_CUDA_CALL(
        driver_,
        absl::StrCat(what, ": raising kernel ", step.kernel_name,
                     "'s dynamic shared memory to ", shared, " bytes"),
        cuFuncSetAttribute, kernel.function,
        cuda::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        static_cast<int>(shared));
    if (!status.ok()) return status;
    kernel.shared_memory_limit = shared;
  }
  return kernel.function;
}

absl::Status CudaExecutor::Prepare(const std::vector<ExecutableStep>& steps,
                                   const std::string& prefix, ThunkList* list) {
  using Kind = ExecutableStep::Kind;
  for (size_t s = 0; s < steps.size(); ++s) {
    const ExecutableStep& step = steps[s];
    Thunk thunk;
    thunk.step = &step;
    thunk.what = absl::StrCat(prefix, "step ", s, " (", step.instruction, ")");
    const std::string& what = thunk.what;
    absl::Status status;
    switch (step.kind) {
      case Kind::kKernel: {
        absl::StatusOr<CUfunction> function = Kernel(step, what);
        if (!function.ok()) return function.status();
        thunk.function = *function;
        for (int64_t slot : step.buffers) {
          thunk.arguments.push_back(slot_address_[slot]);
        }
        break;
      }
      case Kind::kCopy:
        break;
      case Kind::kLibraryCall:
        status = PrepareLibraryCall(step, what, &thunk);
        break;
      case Kind::kCollective:
        status = PrepareCollective(step, what, &thunk);
        for (int64_t slot : step.buffers) {
          thunk.arguments.push_back(slot_address_[slot]);
        }
        break;
      case Kind::kEvaluator: {
        absl::StatusOr<std::unique_ptr<EvaluatorStep>> evaluator =
            EvaluatorStep::Create(executable_, step, what);
        if (!evaluator.ok()) return evaluator.status();
        thunk.evaluator = *std::move(evaluator);
        break;
      }
      case Kind::kWhile:
        thunk.condition = std::make_unique<ThunkList>();
        thunk.body = std::make_unique<ThunkList>();
        status = Prepare(step.condition, what + " condition ",
                         thunk.condition.get());
        if (status.ok()) {
          status = Prepare(step.body, what + " body ", thunk.body.get());
        }
        if (options_.use_graphs) {
          thunk.iterations_per_graph =
              LoopIterationsPerGraph(step, conditional_nodes_ != nullptr);
          thunk.touches_entry_io = TouchesEntryIo(executable_, step);
        }
        break;
      case Kind::kConditional:
        for (size_t b = 0; status.ok() && b < step.branches.size(); ++b) {
          thunk.branches.push_back(std::make_unique<ThunkList>());
          status =
              Prepare(step.branches[b], absl::StrCat(what, " branch ", b, " "),
                      thunk.branches.back().get());
        }
        break;
    }
    if (!status.ok()) return status;
    // A host LAPACK call, like an evaluator step, has no span on the
    // stream to time.
    if (step.kind == Kind::kKernel || step.kind == Kind::kCopy ||
        (step.kind == Kind::kLibraryCall && thunk.host_lapack == nullptr) ||
        step.kind == Kind::kCollective) {
      thunk.timed = static_cast<int64_t>(timed_steps_.size());
      CudaStepTime time;
      time.step = what;
      time.what = step.kind == Kind::kKernel ? step.kernel_name
                  : step.kind == Kind::kCopy ? "copy"
                  : step.kind == Kind::kCollective
                      ? absl::StrCat("nccl.",
                                     CollectiveOpString(step.collective.op))
                      : step.library;
      timed_steps_.push_back(time);
    }
    list->thunks.push_back(std::move(thunk));
  }
  // Segments (graph_segments.h): stretches stream capture can record, a
  // graph where they hold enough kernels; the rest run step by step.
  for (const GraphSegment& planned :
       PlanGraphSegments(executable_, steps, options_.use_graphs,
                         kMinGraphKernels, conditional_nodes_ != nullptr)) {
    ThunkList::Segment segment;
    static_cast<GraphSegment&>(segment) = planned;
    list->segments.push_back(std::move(segment));
  }
  return absl::OkStatus();
}

absl::Status CudaExecutor::PrepareCollective(const ExecutableStep& step,
                                             const std::string& what,
                                             Thunk* thunk) {
  const CollectiveConfig& c = step.collective;
  const int64_t devices = c.replica_count * c.num_partitions;
  if (options_.collectives == nullptr) {
    if (devices != 1) {
      return absl::FailedPreconditionError(absl::StrCat(
          what, ": a collective of a run of ", devices,
          " devices; run the module on that many (hlo-run --replicas=",
          devices, ")"));
    }
    return absl::OkStatus();
  }
  if (options_.device_id < 0 || options_.device_id >= devices) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": device ", options_.device_id,
                     " is not in a run of ", devices));
  }
  absl::StatusOr<cuda::NcclCollectives::PreparedStep> prepared =
      options_.collectives->Prepare(executable_, step, what);
  // Making communicators switches this thread between the run's GPUs.
  absl::Status current = device_->MakeCurrent();
  if (!prepared.ok()) return prepared.status();
  thunk->collective = *prepared;
  return current;
}

namespace {

// Opens `library` (cuBLASLt, cuDNN, cuFFT) for the first step that calls
// it; the error names that step.
template <typename Library>
absl::Status OpenLibraryOnce(std::unique_ptr<Library>* library,
                             cuda::CudaDriver* driver,
                             const std::string& what) {
  if (*library != nullptr) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<Library>> opened = Library::Create(driver);
  if (!opened.ok()) {
    return absl::Status(opened.status().code(),
                        absl::StrCat(what, ": ", opened.status().message()));
  }
  *library = *std::move(opened);
  return absl::OkStatus();
}

}  // namespace

absl::Status CudaExecutor::PrepareLibraryCall(const ExecutableStep& step,
                                              const std::string& what,
                                              Thunk* thunk) {
  // Each step is checked before its library is loaded, so a bad step says
  // so even on a machine without the library.
  if (step.library == "cublas.gemm") {
    HLOC_RETURN_IF_ERROR(cuda::CheckGemmStep(executable_, step, what));
    HLOC_RETURN_IF_ERROR(OpenLibraryOnce(&gemm_, driver_, what));
    HLOC_ASSIGN_OR_RETURN(thunk->gemm, gemm_->Plan(executable_, step, what));
    return absl::OkStatus();
  }
  if (step.library == "cudnn.conv") {
    HLOC_RETURN_IF_ERROR(cuda::CheckConvStep(executable_, step, what));
    HLOC_RETURN_IF_ERROR(OpenLibraryOnce(&cudnn_, driver_, what));
    HLOC_ASSIGN_OR_RETURN(thunk->conv, cudnn_->Plan(executable_, step, what));
    return absl::OkStatus();
  }
  if (step.library == "cufft") {
    HLOC_RETURN_IF_ERROR(cuda::CheckFftStep(executable_, step, what));
    HLOC_RETURN_IF_ERROR(OpenLibraryOnce(&fft_, driver_, what));
    HLOC_ASSIGN_OR_RETURN(thunk->fft, fft_->Plan(executable_, step, what));
    return absl::OkStatus();
  }
  if (SolverRoutineOfLibrary(step.library).has_value()) {
    HLOC_RETURN_IF_ERROR(cuda::CheckSolverStep(executable_, step, what));
    HLOC_RETURN_IF_ERROR(OpenLibraryOnce(&solver_, driver_, what));
    HLOC_ASSIGN_OR_RETURN(thunk->solver,
                          solver_->Plan(executable_, step, what));
    return absl::OkStatus();
  }
  if (LapackStep::Handles(step.library)) {
    HLOC_ASSIGN_OR_RETURN(thunk->host_lapack,
                          LapackStep::Create(executable_, step, what));
    return absl::OkStatus();
  }
  return absl::UnimplementedError(absl::StrCat(
      what, ": library '", step.library,
      "' is not supported by the cuda runtime (it knows "
      "cublas.gemm, cublas.trsm, cudnn.conv, cufft, cusolver.* and, on the "
      "host, lapack.*)"));
}

absl::Status CudaExecutor::CreateBranchStreams() {
  const std::string what = "creating the streams of a graph's branches";
  const int k = options_.graph_streams;
  while (static_cast<int>(branch_streams_.size()) < k - 1) {
    cuda::CUstream stream = nullptr;
    HLOC_RETURN_IF_ERROR(HLOC_CUDA_CALL(driver_, what, cuStreamCreate, &stream,
                                        cuda::CU_STREAM_NON_BLOCKING));
    branch_streams_.push_back(stream);
  }
  HLOC_RETURN_IF_ERROR(HLOC_CUDA_CALL(driver_, what, cuEventCreate,
                                      &fork_event_,
                                      cuda::CU_EVENT_DISABLE_TIMING));
  graph_streams_ = std::make_unique<GraphStreams>(executable_, k);
  return absl::OkStatus();
}

// One run: the steps on the stream, timing and counting as asked.
class CudaExecutor::Runner {
 public:
  // `address`: every slot's device address for this run (the plan's, or
  // a device run's with parameters and results moved onto the caller's
  // memory: `moved`).
  Runner(CudaExecutor* executor, const CudaRunOptions& options,
         CudaRunStats* stats, const std::vector<CUdeviceptr>& address,
         bool moved)
      : e_(*executor),
        options_(options),
        stats_(stats),
        address_(address),
        moved_(moved),
        stream_(executor->stream_),
        branched_(executor->graph_streams_ != nullptr &&
                  executor->RunVariant() == GraphChoice::Variant::kBranched) {}

  absl::Status RunList(ThunkList* list) {
    for (ThunkList::Segment& segment : list->segments) {
      absl::Status status;
      if (segment.graph && !options_.time_steps &&
          !(moved_ && segment.touches_entry_io)) {
        status = RunGraph(list, &segment);
      } else {
        for (size_t i = segment.begin; status.ok() && i < segment.end; ++i) {
          status = RunThunk(list->thunks[i]);
        }
      }
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

  // Tunes every gemm of `list`, nested ones included (TuneGemms).
  absl::Status TuneGemms(const ThunkList& list) {
    for (const Thunk& t : list.thunks) {
      if (t.gemm != nullptr) HLOC_RETURN_IF_ERROR(TuneLibraryCall(t));
      for (const ThunkList* nested : {t.condition.get(), t.body.get()}) {
        if (nested != nullptr) HLOC_RETURN_IF_ERROR(TuneGemms(*nested));
      }
      for (const auto& branch : t.branches) {
        HLOC_RETURN_IF_ERROR(TuneGemms(*branch));
      }
    }
    return absl::OkStatus();
  }

  // With time_steps: waits for the events and adds up each step's time.
  absl::Status CollectTimes() {
    if (!options_.time_steps || stats_ == nullptr) return absl::OkStatus();
    stats_->step_times = e_.timed_steps_;
    for (const auto& [timed, first_event] : timings_) {
      float milliseconds = 0;
      absl::Status status = HLOC_CUDA_CALL(
          e_.driver_, stats_->step_times[timed].step, cuEventElapsedTime,
          &milliseconds, e_.events_[first_event], e_.events_[first_event + 1]);
      if (!status.ok()) return status;
      stats_->step_times[timed].count += 1;
      stats_->step_times[timed].milliseconds += milliseconds;
    }
    return absl::OkStatus();
  }

 private:
  absl::Status RunGraph(ThunkList* list, ThunkList::Segment* segment) {
    const std::string what =
        absl::StrCat("the graph of ", list->thunks[segment->begin].what, " to ",
                     list->thunks[segment->end - 1].what);
    // The only library calls a graph records, gemms, were tuned when the
    // executor was made (TuneGemms): tuning runs them, which capture
    // forbids.
    return LaunchChosen(what, &segment->chosen, [&]() {
      absl::Status status;
      for (size_t i = segment->begin; status.ok() && i < segment->end; ++i) {
        status = Issue(list->thunks[i]);
      }
      return status;
    });
  }

  // A counted loop as graphs of whole iterations (graph_segments.h:
  // LoopIterationsPerGraph): as many launches of the graph of
  // iterations_per_graph iterations as fit the trip count, then the
  // remainder's graph once.
  absl::Status RunLoopInGraphs(Thunk& thunk) {
    const int64_t trips = thunk.step->trip_count;
    const int64_t per_graph = thunk.iterations_per_graph;
    auto launch = [&](int64_t iterations, std::unique_ptr<ChosenGraph>* graph) {
      return LaunchChosen(
          absl::StrCat(thunk.what, ", ", iterations, " iterations"), graph,
          [&]() { return IssueIterations(thunk, iterations); });
    };
    for (int64_t i = 0; i + per_graph <= trips; i += per_graph) {
      HLOC_RETURN_IF_ERROR(launch(per_graph, &thunk.loop_graph));
    }
    const int64_t rest = trips % per_graph;
    if (rest == 0) return absl::OkStatus();
    return launch(rest, &thunk.remainder_graph);
  }

  // Launches the graph of what `issue` enqueues, as this run's variant
  // (branched_ or one chain), capturing it that way on its first such
  // launch.
  absl::Status LaunchChosen(const std::string& what,
                            std::unique_ptr<ChosenGraph>* slot,
                            const std::function<absl::Status()>& issue) {
    if (*slot == nullptr) {
      *slot = std::make_unique<ChosenGraph>();
      ++e_.graph_count_;
    }
    ChosenGraph& g = **slot;
    if (branched_ && g.branched == nullptr && !g.single_stream) {
      HLOC_ASSIGN_OR_RETURN(CUgraphExec captured,
                            Capture(what, issue, /*branches=*/true));
      // The planner's streams still hold this capture's placements.
      if (e_.graph_streams_->Branched()) {
        g.branched = captured;
        ++e_.branched_graphs_;
      } else {
        g.chain = captured;
        g.single_stream = true;
      }
    }
    if (branched_ && g.branched != nullptr) {
      return LaunchGraph(what, g.branched);
    }
    if (g.chain == nullptr) {
      HLOC_ASSIGN_OR_RETURN(g.chain, Capture(what, issue, /*branches=*/false));
    }
    return LaunchGraph(what, g.chain);
  }

  // Records what `issue` enqueues on the stream into a graph, and
  // instantiates it (owned by the executor from then on). `branches`: on
  // several streams (graph_streams.h), placed by e_.graph_streams_.
  absl::StatusOr<CUgraphExec> Capture(
      const std::string& what, const std::function<absl::Status()>& issue,
      bool branches) {
    cuda::CudaDriver* d = e_.driver_;
    absl::Status status =
        HLOC_CUDA_CALL(d, what, cuStreamBeginCapture, stream_,
                       cuda::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    if (!status.ok()) return status;
    if (branches && capture_depth_ == 0) status = BeginBranches(what);
    if (status.ok()) status = issue();
    if (branching_) {
      // Joined even after a failure: capture ends only on a joined stream.
      const absl::Status joined = JoinBranches(what);
      if (status.ok()) status = joined;
    }
    cuda::CUgraph graph = nullptr;
    // Capture must end even after a failed launch, or the stream stays
    // in capture mode.
    const absl::Status ended =
        HLOC_CUDA_CALL(d, what, cuStreamEndCapture, stream_, &graph);
    if (status.ok()) status = ended;
    CUgraphExec executable = nullptr;
    if (status.ok()) {
      status =
          HLOC_CUDA_CALL(d, what, cuGraphInstantiate, &executable, graph, 0);
    }
    if (graph != nullptr) d->cuGraphDestroy(graph);
    if (!status.ok()) return status;
    e_.graphs_.push_back(executable);
    return executable;
  }

  // The start of a capture on several streams: every branch's first step
  // waits for fork_event_, recorded before anything else, which puts its
  // stream into the capture with no dependence.
  absl::Status BeginBranches(const std::string& what) {
    e_.graph_streams_->Reset();
    const int k = e_.graph_streams_->streams();
    tail_is_node_.assign(k, false);
    step_events_.assign(k, {});
    next_step_event_ = 0;
    origin_ = stream_;
    HLOC_RETURN_IF_ERROR(HLOC_CUDA_CALL(e_.driver_, what, cuEventRecord,
                                        e_.fork_event_, stream_));
    branching_ = true;
    return absl::OkStatus();
  }

  // The end of a capture on several streams: the capturing stream waits
  // for the last step of every other stream that took part.
  absl::Status JoinBranches(const std::string& what) {
    branching_ = false;
    absl::Status status;
    for (int s = 1; s < static_cast<int>(step_events_.size()); ++s) {
      if (step_events_[s].empty() || !status.ok()) continue;
      status = HLOC_CUDA_CALL(e_.driver_, what, cuStreamWaitEvent, origin_,
                              e_.branch_events_[step_events_[s].back()], 0);
    }
    return status;
  }

  cuda::CUstream BranchStream(int s) const {
    return s == 0 ? origin_ : e_.branch_streams_[s - 1];
  }

  // Records an event after the step just issued on stream `s`, for the
  // steps of other streams that will wait for it (created on first use;
  // one per step of a graph, reused by the next capture).
  absl::Status RecordStepEvent(int s, const std::string& what) {
    if (next_step_event_ == e_.branch_events_.size()) {
      cuda::CUevent event = nullptr;
      HLOC_RETURN_IF_ERROR(HLOC_CUDA_CALL(e_.driver_, what, cuEventCreate,
                                          &event,
                                          cuda::CU_EVENT_DISABLE_TIMING));
      e_.branch_events_.push_back(event);
    }
    step_events_[s].push_back(next_step_event_);
    return HLOC_CUDA_CALL(e_.driver_, what, cuEventRecord,
                          e_.branch_events_[next_step_event_++],
                          BranchStream(s));
  }

  absl::Status LaunchGraph(const std::string& what, CUgraphExec graph) {
    if (stats_ != nullptr) ++stats_->graph_launches;
    return HLOC_CUDA_CALL(e_.driver_, what, cuGraphLaunch, graph, stream_);
  }

  // Enqueues `iterations` runs of a counted loop's body, every step issued
  // in order (inside a capture: graph_segments.h).
  absl::Status IssueIterations(const Thunk& thunk, int64_t iterations) {
    for (int64_t i = 0; i < iterations; ++i) {
      HLOC_RETURN_IF_ERROR(IssueAll(*thunk.body));
    }
    return absl::OkStatus();
  }

  // A gemm's or conv's first call times its candidate algorithms on its
  // own buffers (autotuning); a no-op for other thunks and tuned calls.
  absl::Status TuneLibraryCall(const Thunk& thunk) {
    if (thunk.step->kind != ExecutableStep::Kind::kLibraryCall) {
      return absl::OkStatus();
    }
    const std::vector<int64_t>& b = thunk.step->buffers;
    const auto& address = address_;
    if (thunk.gemm != nullptr && cuda::CublasGemm::NeedsTuning(*thunk.gemm)) {
      return e_.gemm_->Autotune(thunk.gemm.get(), address[b[0]], address[b[1]],
                                b.size() == 4 ? address[b[2]] : 0,
                                address[b.back()], stream_);
    }
    if (thunk.conv != nullptr && cuda::CudnnConv::NeedsTuning(*thunk.conv)) {
      return e_.cudnn_->Autotune(thunk.conv.get(), address[b[0]], address[b[1]],
                                 address[b[2]], stream_);
    }
    return absl::OkStatus();
  }

  // Enqueues a step: in a capture on several streams, on the stream
  // GraphStreams places it on, after the other streams' steps it needs.
  absl::Status Issue(const Thunk& thunk) {
    const ExecutableStep& step = *thunk.step;
    // A counted loop inside a graph is its body's steps, each placed.
    const bool unrolled =
        step.kind == ExecutableStep::Kind::kWhile && step.trip_count >= 0;
    if (!branching_ || capture_depth_ > 0 || unrolled) {
      return IssueOnStream(thunk, /*plain=*/false);
    }
    const StepAccess access = AccessOf(step);
    const GraphStreams::Placement p = e_.graph_streams_->Place(access);
    const cuda::CUstream target = BranchStream(p.stream);
    cuda::CudaDriver* d = e_.driver_;
    const bool first = step_events_[p.stream].empty();
    if (first && p.stream != 0) {
      HLOC_RETURN_IF_ERROR(HLOC_CUDA_CALL(d, thunk.what, cuStreamWaitEvent,
                                          target, e_.fork_event_, 0));
    }
    for (const GraphStreams::Position& w : p.waits) {
      const size_t event = step_events_[w.stream][w.index - 1];
      HLOC_RETURN_IF_ERROR(HLOC_CUDA_CALL(d, thunk.what, cuStreamWaitEvent,
                                          target, e_.branch_events_[event], 0));
    }
    const cuda::CUstream outer = stream_;
    stream_ = target;
    after_conditional_node_ = tail_is_node_[p.stream];
    // A barrier (a loop or conditional as a conditional node) issues what
    // it holds on its own stream, as one step.
    branching_ = !access.barrier;
    // A kernel that waits for another stream, or starts a branch, is
    // launched plainly: programmatic edges are measured only along one
    // stream.
    absl::Status status = IssueOnStream(
        thunk, /*plain=*/(first && p.stream != 0) || !p.waits.empty());
    branching_ = true;
    tail_is_node_[p.stream] = after_conditional_node_;
    stream_ = outer;
    if (!status.ok()) return status;
    return RecordStepEvent(p.stream, thunk.what);
  }

  // Enqueues a kernel, a copy or a library call on stream_; `plain`: a
  // kernel is not a programmatic dependent.
  absl::Status IssueOnStream(const Thunk& thunk, bool plain) {
    const ExecutableStep& step = *thunk.step;
    cuda::CudaDriver* d = e_.driver_;
    const bool after_conditional_node =
        std::exchange(after_conditional_node_, false);
    switch (step.kind) {
      case ExecutableStep::Kind::kKernel: {
        const std::vector<CUdeviceptr>& arguments = Arguments(thunk);
        std::vector<void*> parameters;
        for (const CUdeviceptr& argument : arguments) {
          parameters.push_back(const_cast<CUdeviceptr*>(&argument));
        }
        const LaunchDims& l = step.launch;
        if (stats_ != nullptr) ++stats_->kernel_launches;
        const std::string what =
            absl::StrCat(thunk.what, ", kernel ", step.kernel_name);
        // Plain launches inside a conditional node's body, and right after
        // a node: programmatic edges follow kernels, and none has been
        // measured inside conditional bodies.
        if (!l.programmatic || !e_.options_.programmatic_launch ||
            after_conditional_node || capture_depth_ > 0 || plain) {
          return HLOC_CUDA_CALL(d, what, cuLaunchKernel, thunk.function,
                                static_cast<unsigned>(l.grid[0]),
                                static_cast<unsigned>(l.grid[1]),
                                static_cast<unsigned>(l.grid[2]),
                                static_cast<unsigned>(l.block[0]),
                                static_cast<unsigned>(l.block[1]),
                                static_cast<unsigned>(l.block[2]),
                                static_cast<unsigned>(l.shared_memory_bytes),
                                stream_, parameters.data(), nullptr);
        }
        cuda::CUlaunchConfig config;
        config.grid_x = static_cast<unsigned>(l.grid[0]);
        config.grid_y = static_cast<unsigned>(l.grid[1]);
        config.grid_z = static_cast<unsigned>(l.grid[2]);
        config.block_x = static_cast<unsigned>(l.block[0]);
        config.block_y = static_cast<unsigned>(l.block[1]);
        config.block_z = static_cast<unsigned>(l.block[2]);
        config.shared_memory_bytes =
            static_cast<unsigned>(l.shared_memory_bytes);
        config.stream = stream_;
        // A kernel that waits for the grid before it may start while that
        // grid's last blocks run (executable.h, LaunchDims::programmatic);
        // after anything but a kernel, the stream orders it as usual.
        cuda::CUlaunchAttribute programmatic;
        programmatic.id =
            cuda::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        programmatic.value.programmatic_stream_serialization_allowed = 1;
        config.attributes = &programmatic;
        config.num_attributes = 1;
        return HLOC_CUDA_CALL(d, what, cuLaunchKernelEx, &config,
                              thunk.function, parameters.data(), nullptr);
      }
      case ExecutableStep::Kind::kCopy: {
        const size_t bytes =
            static_cast<size_t>(e_.executable_.buffers[step.buffers[0]].size);
        if (bytes == 0) return absl::OkStatus();
        return HLOC_CUDA_CALL(d, thunk.what, cuMemcpyDtoDAsync,
                              address_[step.buffers[1]],
                              address_[step.buffers[0]], bytes, stream_);
      }
      case ExecutableStep::Kind::kLibraryCall: {
        const std::vector<int64_t>& b = step.buffers;
        const auto& address = address_;
        // Inside a graph capture the call was tuned before it began.
        absl::Status tuned = TuneLibraryCall(thunk);
        if (!tuned.ok()) return tuned;
        if (thunk.conv != nullptr) {
          return e_.cudnn_->Run(*thunk.conv, address[b[0]], address[b[1]],
                                address[b[2]], stream_);
        }
        if (thunk.fft != nullptr) {
          return e_.fft_->Run(*thunk.fft, address[b[0]], address[b[1]],
                              stream_);
        }
        if (thunk.solver != nullptr) {
          std::vector<cuda::CUdeviceptr> slots;
          for (int64_t slot : b) slots.push_back(address[slot]);
          return e_.solver_->Run(thunk.solver.get(), slots, stream_);
        }
        return e_.gemm_->Run(*thunk.gemm, address[b[0]], address[b[1]],
                             b.size() == 4 ? address[b[2]] : 0,
                             address[b.back()], stream_);
      }
      case ExecutableStep::Kind::kCollective:
        return IssueCollective(thunk);
      case ExecutableStep::Kind::kWhile:
        // Inside a graph's stretch (graph_segments.h): a counted loop
        // unrolled, one without a count as a while node.
        if (step.trip_count < 0) {
          if (e_.conditional_nodes_ == nullptr) break;
          return IssueWhileNode(thunk);
        }
        return IssueIterations(thunk, step.trip_count);
      case ExecutableStep::Kind::kConditional:
        if (e_.conditional_nodes_ == nullptr) break;
        return IssueSwitchNode(thunk);
      default:
        break;
    }
    return absl::InternalError(
        absl::StrCat(thunk.what, " cannot be issued on a stream"));
  }

  // Enqueues every step of `list` in order (inside a capture).
  absl::Status IssueAll(const ThunkList& list) {
    for (const Thunk& t : list.thunks) {
      absl::Status status = Issue(t);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

  // A loop without a trip count inside a capture, as a while node
  // (cuda_conditional_nodes.h): the condition and a set kernel, then the
  // node; its body graph runs the body, the condition and a set kernel
  // again for as long as the predicate holds.
  absl::Status IssueWhileNode(const Thunk& thunk) {
    cuda::CudaConditionalNodes& nodes = *e_.conditional_nodes_;
    const CUdeviceptr predicate = address_[thunk.step->predicate_buffer];
    constexpr cuda::ConditionKind kWhile = cuda::ConditionKind::kWhile;
    HLOC_RETURN_IF_ERROR(IssueAll(*thunk.condition));
    HLOC_ASSIGN_OR_RETURN(cuda::CudaConditionalNodes::Node node,
                          nodes.Add(stream_, kWhile, predicate, 1, thunk.what));
    after_conditional_node_ = true;
    return CaptureBody(node.bodies[0], thunk.what, [&]() -> absl::Status {
      HLOC_RETURN_IF_ERROR(IssueAll(*thunk.body));
      HLOC_RETURN_IF_ERROR(IssueAll(*thunk.condition));
      return nodes.Set(stream_, node.handle, kWhile, predicate, 1, thunk.what);
    });
  }

  // A conditional inside a capture, as a switch node over its branches
  // (the set kernel maps a pred or an out-of-range index as RunThunk
  // does).
  absl::Status IssueSwitchNode(const Thunk& thunk) {
    const ExecutableStep& step = *thunk.step;
    const bool pred =
        e_.executable_.buffers[step.predicate_buffer].shape.element_type() ==
        PRED;
    const int branches = static_cast<int>(thunk.branches.size());
    HLOC_ASSIGN_OR_RETURN(
        cuda::CudaConditionalNodes::Node node,
        e_.conditional_nodes_->Add(stream_,
                                   pred ? cuda::ConditionKind::kPredBranch
                                        : cuda::ConditionKind::kIndexBranch,
                                   address_[step.predicate_buffer], branches,
                                   thunk.what));
    after_conditional_node_ = true;
    for (int b = 0; b < branches; ++b) {
      HLOC_RETURN_IF_ERROR(
          CaptureBody(node.bodies[b], absl::StrCat(thunk.what, " branch ", b),
                      [&]() { return IssueAll(*thunk.branches[b]); }));
    }
    return absl::OkStatus();
  }

  // Captures what `issue` enqueues into a conditional node's body graph,
  // on the stream of the next nesting depth.
  absl::Status CaptureBody(cuda::CUgraph body, const std::string& what,
                           const std::function<absl::Status()>& issue) {
    const cuda::CUstream outer = stream_;
    const bool outer_after_node = after_conditional_node_;
    ++capture_depth_;
    absl::Status status = e_.conditional_nodes_->CaptureInto(
        body, capture_depth_,
        [&](cuda::CUstream inner) {
          stream_ = inner;
          after_conditional_node_ = false;
          return issue();
        },
        what);
    --capture_depth_;
    stream_ = outer;
    after_conditional_node_ = outer_after_node;
    return status;
  }

  // A device id, an NCCL call, or a collective's group of one (the
  // operands are the results; a permute with no source gives zeros).
  absl::Status IssueCollective(const Thunk& thunk) {
    const ExecutableStep& step = *thunk.step;
    const CollectiveConfig& c = step.collective;
    cuda::CudaDriver* d = e_.driver_;
    const std::vector<CUdeviceptr>& address = Arguments(thunk);
    const int64_t device = e_.options_.device_id;
    using Op = CollectiveConfig::Op;
    if (c.op == Op::kReplicaId || c.op == Op::kPartitionId) {
      const int64_t id = c.op == Op::kReplicaId ? device / c.num_partitions
                                                : device % c.num_partitions;
      return HLOC_CUDA_CALL(d, thunk.what, cuMemsetD32Async, address[0],
                            static_cast<unsigned>(id), 1, stream_);
    }
    const bool receives_nothing =
        c.op == Op::kCollectivePermute && c.sources[device] < 0;
    if (receives_nothing) {
      absl::Status status = HLOC_CUDA_CALL(
          d, thunk.what, cuMemsetD8Async, address[1], 0,
          static_cast<size_t>(e_.executable_.buffers[step.buffers[1]].size),
          stream_);
      // It may still send to others.
      if (!status.ok() || e_.options_.collectives == nullptr) return status;
    }
    if (e_.options_.collectives != nullptr) {
      return e_.options_.collectives->Issue(e_.executable_, step,
                                            thunk.collective, thunk.what,
                                            device, address, stream_);
    }
    const size_t operands = step.buffers.size() / 2;
    for (size_t i = 0; i < operands; ++i) {
      const size_t bytes =
          static_cast<size_t>(e_.executable_.buffers[step.buffers[i]].size);
      if (bytes == 0) continue;
      absl::Status status =
          HLOC_CUDA_CALL(d, thunk.what, cuMemcpyDtoDAsync,
                         address[operands + i], address[i], bytes, stream_);
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

  absl::Status RunThunk(Thunk& thunk) {
    switch (thunk.step->kind) {
      case ExecutableStep::Kind::kLibraryCall:
        if (thunk.host_lapack != nullptr) {
          if (stats_ != nullptr) ++stats_->host_library_steps;
          return OnHostCopies(thunk, thunk.host_lapack->num_operands(),
                              [&](const std::vector<uint8_t*>& address) {
                                return thunk.host_lapack->Run(
                                    e_.executable_, *thunk.step, address);
                              });
        }
        return options_.time_steps ? IssueTimed(thunk) : Issue(thunk);
      case ExecutableStep::Kind::kKernel:
      case ExecutableStep::Kind::kCopy:
      case ExecutableStep::Kind::kCollective:
        return options_.time_steps ? IssueTimed(thunk) : Issue(thunk);
      case ExecutableStep::Kind::kEvaluator:
        return Evaluate(thunk);
      case ExecutableStep::Kind::kWhile:
        // A counted loop (step.trip_count) enqueues its iterations without
        // running the condition or waiting for its predicate: the host
        // stays ahead of the GPU instead of a round trip per iteration;
        // where its body can be captured, as graphs of many iterations.
        if (thunk.iterations_per_graph > 0 && !options_.time_steps &&
            !(moved_ && thunk.touches_entry_io)) {
          return RunLoopInGraphs(thunk);
        }
        for (int64_t i = 0; i != thunk.step->trip_count; ++i) {
          if (thunk.step->trip_count < 0) {
            absl::Status status = RunList(thunk.condition.get());
            if (!status.ok()) return status;
            absl::StatusOr<int64_t> predicate = ReadPredicate(thunk);
            if (!predicate.ok()) return predicate.status();
            if (*predicate == 0) return absl::OkStatus();
          }
          absl::Status status = RunList(thunk.body.get());
          if (!status.ok()) return status;
        }
        return absl::OkStatus();
      case ExecutableStep::Kind::kConditional: {
        absl::StatusOr<int64_t> predicate = ReadPredicate(thunk);
        if (!predicate.ok()) return predicate.status();
        const int64_t n = static_cast<int64_t>(thunk.branches.size());
        int64_t branch = n - 1;
        if (e_.executable_.buffers[thunk.step->predicate_buffer]
                .shape.element_type() == PRED) {
          branch = *predicate != 0 ? 0 : 1;
        } else if (*predicate >= 0 && *predicate < n) {
          branch = *predicate;
        }
        return RunList(thunk.branches[std::min(branch, n - 1)].get());
      }
    }
    return absl::InternalError(absl::StrCat(thunk.what, ": unknown kind"));
  }

  absl::Status IssueTimed(const Thunk& thunk) {
    cuda::CudaDriver* d = e_.driver_;
    const size_t first = next_event_;
    next_event_ += 2;
    while (e_.events_.size() < next_event_) {
      cuda::CUevent event = nullptr;
      absl::Status status =
          HLOC_CUDA_CALL(d, "creating a timing event", cuEventCreate, &event,
                         cuda::CU_EVENT_DEFAULT);
      if (!status.ok()) return status;
      e_.events_.push_back(event);
    }
    absl::Status status = HLOC_CUDA_CALL(d, thunk.what, cuEventRecord,
                                         e_.events_[first], stream_);
    if (status.ok()) status = Issue(thunk);
    if (status.ok()) {
      status = HLOC_CUDA_CALL(d, thunk.what, cuEventRecord,
                              e_.events_[first + 1], stream_);
    }
    if (status.ok()) timings_.emplace_back(thunk.timed, first);
    return status;
  }

  // The predicate (pred or s32) of a while or conditional, read on the
  // host once the steps before it are done.
  absl::StatusOr<int64_t> ReadPredicate(const Thunk& thunk) {
    const int64_t slot = thunk.step->predicate_buffer;
    const Shape& shape = e_.executable_.buffers[slot].shape;
    int32_t value = 0;
    const size_t bytes = static_cast<size_t>(ByteWidth(shape.element_type()));
    const std::string what =
        absl::StrCat(thunk.what, ": reading its predicate");
    e_.host_transfers_.fetch_add(1);
    absl::Status status =
        HLOC_CUDA_CALL(e_.driver_, what, cuMemcpyDtoHAsync, &value,
                       address_[slot], bytes, stream_);
    if (status.ok()) {
      status = HLOC_CUDA_CALL(e_.driver_, what, cuStreamSynchronize, stream_);
    }
    if (!status.ok()) return status;
    if (shape.element_type() == PRED) {
      return (value & 0xff) != 0 ? 1 : 0;
    }
    return value;
  }

  // The reference evaluator on host copies of the step's slots.
  absl::Status Evaluate(const Thunk& thunk) {
    e_.fallback_runs_.fetch_add(1);
    if (stats_ != nullptr) ++stats_->evaluator_steps;
    return OnHostCopies(thunk, thunk.evaluator->num_operand_slots(),
                        [&](const std::vector<uint8_t*>& address) {
                          return thunk.evaluator->Run(e_.executable_,
                                                      *thunk.step, address);
                        });
  }

  // `run` on host copies of the step's slots: the first `operand_slots`
  // downloaded once the work before them is done, the others uploaded
  // after it. A slot that is an operand and a result is one copy.
  absl::Status OnHostCopies(
      const Thunk& thunk, size_t operand_slots,
      const std::function<absl::Status(const std::vector<uint8_t*>&)>& run) {
    const ExecutableStep& step = *thunk.step;
    const std::vector<ExecutableBuffer>& slots = e_.executable_.buffers;
    cuda::CudaDriver* d = e_.driver_;
    std::vector<std::unique_ptr<uint8_t[]>> host;
    std::vector<uint8_t*> address(slots.size(), nullptr);
    absl::Status status;
    for (size_t i = 0; status.ok() && i < step.buffers.size(); ++i) {
      const int64_t slot = step.buffers[i];
      if (address[slot] != nullptr) continue;
      host.push_back(HostStagingBytes(slots[slot].size));
      address[slot] = host.back().get();
      if (i < operand_slots && slots[slot].size > 0) {
        e_.host_transfers_.fetch_add(1);
        status = HLOC_CUDA_CALL(d, thunk.what, cuMemcpyDtoHAsync, address[slot],
                                address_[slot],
                                static_cast<size_t>(slots[slot].size), stream_);
      }
    }
    if (status.ok()) {
      status = HLOC_CUDA_CALL(d, thunk.what, cuStreamSynchronize, stream_);
    }
    if (status.ok()) status = run(address);
    for (size_t i = operand_slots; status.ok() && i < step.buffers.size();
         ++i) {
      const int64_t slot = step.buffers[i];
      if (slots[slot].size == 0) continue;
      e_.host_transfers_.fetch_add(1);
      status = HLOC_CUDA_CALL(d, thunk.what, cuMemcpyHtoDAsync, address_[slot],
                              address[slot],
                              static_cast<size_t>(slots[slot].size), stream_);
    }
    // The host copies must outlive the uploads.
    if (status.ok()) {
      status = HLOC_CUDA_CALL(d, thunk.what, cuStreamSynchronize, stream_);
    }
    return status;
  }

  // A kernel's or collective's buffer addresses: computed once at Prepare
  // for the plan's addresses, per issue in a device run.
  const std::vector<CUdeviceptr>& Arguments(const Thunk& thunk) {
    if (!moved_) return thunk.arguments;
    scratch_.clear();
    for (int64_t slot : thunk.step->buffers) scratch_.push_back(address_[slot]);
    return scratch_;
  }

  CudaExecutor& e_;
  const CudaRunOptions& options_;
  CudaRunStats* stats_;
  const std::vector<CUdeviceptr>& address_;
  const bool moved_;
  // The stream work is issued on: the executor's, or while a conditional
  // node's body is captured, the capturing stream of its depth.
  cuda::CUstream stream_;
  int capture_depth_ = 0;
  // The last thing captured was a conditional node: the next kernel must
  // not be a programmatic dependent (those follow kernels only).
  bool after_conditional_node_ = false;
  // Capturing a graph on several streams (BeginBranches): the capturing
  // stream, and per stream whether its last step is a conditional node.
  bool branching_ = false;
  // This run launches graphs captured on several streams (where they have
  // branches) rather than as one chain (graph_choice.h).
  const bool branched_;
  cuda::CUstream origin_ = nullptr;
  std::vector<bool> tail_is_node_;
  // Per stream, per step issued on it: its event (in branch_events_).
  std::vector<std::vector<size_t>> step_events_;
  size_t next_step_event_ = 0;
  std::vector<CUdeviceptr> scratch_;
  size_t next_event_ = 0;
  // (timed step, its first event) per timed launch, in order.
  std::vector<std::pair<int64_t, size_t>> timings_;
};

absl::Status CudaExecutor::TuneGemms() {
  const CudaRunOptions options;
  Runner runner(this, options, nullptr, slot_address_, /*moved=*/false);
  absl::Status status = runner.TuneGemms(*steps_);
  const absl::Status synced =
      HLOC_CUDA_CALL(driver_, "tuning the gemms", cuStreamSynchronize, stream_);
  return status.ok() ? synced : status;
}

absl::StatusOr<Literal> CudaExecutor::Run(absl::Span<const Literal> arguments,
                                          const CudaRunOptions& options,
                                          CudaRunStats* stats) {
  const Executable& e = executable_;
  if (absl::Status valid = CheckRunArguments(e, arguments); !valid.ok()) {
    return valid;
  }
  std::lock_guard<std::mutex> lock(run_mutex_);
  absl::Status status = device_->MakeCurrent();
  if (!status.ok()) return status;
  // Parameters in (staged bytes live until the stream has finished with
  // them: to the end of the run).
  const ArgumentStaging in(e, arguments);
  for (const HostSlotCopy& copy : in.copies()) {
    if (!status.ok()) break;
    host_transfers_.fetch_add(1);
    status = HLOC_CUDA_CALL(driver_, copy.what, cuMemcpyHtoDAsync,
                            slot_address_[copy.slot], copy.host, copy.bytes,
                            stream_);
  }
  if (stats != nullptr) *stats = CudaRunStats();
  Runner runner(this, options, stats, slot_address_, /*moved=*/false);
  // Graphs are used unless every step is timed on its own.
  const bool trial = TimesThisRun(!options.time_steps);
  if (status.ok() && (options.time_run || trial)) status = RecordRunEvent(0);
  const int64_t repeat = std::max<int64_t>(1, options.repeat);
  for (int64_t r = 0; status.ok() && r < repeat; ++r) {
    status = runner.RunList(steps_.get());
  }
  if (status.ok() && (options.time_run || trial)) status = RecordRunEvent(1);
  // Results out, the same way round.
  ResultStaging out(e);
  for (const HostSlotCopy& copy : out.copies()) {
    if (!status.ok()) break;
    host_transfers_.fetch_add(1);
    status = HLOC_CUDA_CALL(driver_, copy.what, cuMemcpyDtoHAsync, copy.host,
                            slot_address_[copy.slot], copy.bytes, stream_);
  }
  // Always wait: a failed run must not leave copies from `in` pending.
  const absl::Status synced = HLOC_CUDA_CALL(driver_, "finishing the run",
                                             cuStreamSynchronize, stream_);
  if (status.ok()) status = synced;
  if (status.ok()) status = runner.CollectTimes();
  if (status.ok() && (options.time_run || trial)) {
    absl::StatusOr<double> milliseconds =
        RunEventMilliseconds("timing the run");
    if (milliseconds.ok()) {
      if (stats != nullptr) stats->run_milliseconds = *milliseconds / repeat;
      if (trial) RecordTrial(*milliseconds / repeat);
    }
    status = milliseconds.status();
  }
  if (stats != nullptr) {
    stats->kernel_launches /= repeat;
    stats->graph_launches /= repeat;
    stats->evaluator_steps /= repeat;
    stats->host_library_steps /= repeat;
  }
  if (!status.ok()) return status;
  return std::move(out).Finish();
}

namespace {

// Device runs read and write the caller's bytes as they are: row-major.
bool RowMajorSlot(const ExecutableBuffer& slot) {
  return slot.shape.HasDescendingLayout() || slot.shape.rank() <= 1;
}

}  // namespace

absl::Status CudaExecutor::CheckDeviceRun(
    absl::Span<const CudaRunArgument> parameter_leaves,
    absl::Span<const CUdeviceptr> results) const {
  const Executable& e = executable_;
  size_t leaves = 0;
  for (const auto& parameter : e.parameter_buffers) leaves += parameter.size();
  if (parameter_leaves.size() != leaves ||
      results.size() != e.result_buffers.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a device run of ", e.name, " takes ", leaves,
        " parameter leaves and ", e.result_buffers.size(),
        " result buffers, given ", parameter_leaves.size(), " and ",
        results.size()));
  }
  auto check = [&](int64_t slot, CUdeviceptr address, const std::string& what)
      -> absl::Status {
    const ExecutableBuffer& buffer = e.buffers[slot];
    if (!RowMajorSlot(buffer)) {
      return absl::FailedPreconditionError(absl::StrCat(
          what, " has layout ", buffer.shape.ToString(/*print_layout=*/true),
          " on the device; device runs take row-major buffers only (run "
          "with host arrays instead)"));
    }
    // The kernels' pointer parameters are declared 16-byte aligned
    // (backends/gpu/kernel_builder.cc) and load vectors accordingly.
    if (address % 16 != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " at device address 0x", absl::Hex(address),
          " is not 16-byte aligned"));
    }
    return absl::OkStatus();
  };
  size_t i = 0;
  for (size_t p = 0; p < e.parameter_buffers.size(); ++p) {
    for (size_t l = 0; l < e.parameter_buffers[p].size(); ++l, ++i) {
      const CudaRunArgument& argument = parameter_leaves[i];
      const std::string what = absl::StrCat("parameter ", p, " leaf ", l);
      if ((argument.device == 0) == (argument.host == nullptr)) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": give exactly one of a device and a host address"));
      }
      absl::Status status = check(e.parameter_buffers[p][l], argument.device,
                                  what);
      if (!status.ok()) return status;
    }
  }
  for (size_t l = 0; l < results.size(); ++l) {
    const std::string what = absl::StrCat("result leaf ", l);
    if (results[l] == 0 && e.buffers[e.result_buffers[l]].size > 0) {
      return absl::InvalidArgumentError(what + ": no device address");
    }
    absl::Status status = check(e.result_buffers[l], results[l], what);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::Status CudaExecutor::RunOnDevice(
    absl::Span<const CudaRunArgument> parameter_leaves,
    absl::Span<const CUdeviceptr> results, CudaRunStats* stats) {
  absl::Status status = CheckDeviceRun(parameter_leaves, results);
  if (!status.ok()) return status;
  const Executable& e = executable_;
  std::lock_guard<std::mutex> lock(run_mutex_);
  status = device_->MakeCurrent();
  if (!status.ok()) return status;
  // Where each allocation lives in this run: the caller's memory for
  // parameters given on the device and for the outputs, the plan's block
  // for the rest. One allocation per parameter leaf and per output value
  // (buffer_assignment.h), so moving an allocation moves exactly its value.
  std::vector<CUdeviceptr> base(e.allocations.size(), 0);
  last_parameter_addresses_.clear();
  size_t i = 0;
  for (size_t p = 0; p < e.parameter_buffers.size(); ++p) {
    for (int64_t slot : e.parameter_buffers[p]) {
      const CudaRunArgument& argument = parameter_leaves[i++];
      const ExecutableBuffer& buffer = e.buffers[slot];
      if (argument.device != 0) base[buffer.allocation] = argument.device;
      last_parameter_addresses_.push_back(
          argument.device != 0 ? argument.device : slot_address_[slot]);
    }
  }
  // A result leaf that is a whole output allocation is computed in place;
  // one that is a parameter, a constant or another leaf's value again is
  // copied on the device after the steps.
  std::vector<std::pair<int64_t, CUdeviceptr>> copies_out;
  for (size_t l = 0; l < results.size(); ++l) {
    const ExecutableBuffer& buffer = e.buffers[e.result_buffers[l]];
    if (buffer.size == 0) continue;
    const ExecutableAllocation& allocation = e.allocations[buffer.allocation];
    if (allocation.kind == BufferAllocation::Kind::kOutput &&
        base[buffer.allocation] == 0 && buffer.offset == 0) {
      base[buffer.allocation] = results[l];
    } else {
      copies_out.emplace_back(e.result_buffers[l], results[l]);
    }
  }
  std::vector<CUdeviceptr> address = slot_address_;
  for (size_t slot = 0; slot < e.buffers.size(); ++slot) {
    const ExecutableBuffer& buffer = e.buffers[slot];
    if (base[buffer.allocation] != 0) {
      address[slot] = base[buffer.allocation] + buffer.offset;
    }
  }
  i = 0;
  for (size_t p = 0; status.ok() && p < e.parameter_buffers.size(); ++p) {
    for (int64_t slot : e.parameter_buffers[p]) {
      const CudaRunArgument& argument = parameter_leaves[i++];
      const size_t bytes = static_cast<size_t>(e.buffers[slot].size);
      if (argument.host == nullptr || bytes == 0 || !status.ok()) continue;
      host_transfers_.fetch_add(1);
      status = HLOC_CUDA_CALL(
          driver_, absl::StrCat("copying parameter ", p, " in from the host"),
          cuMemcpyHtoDAsync, address[slot], argument.host, bytes, stream_);
    }
  }
  if (stats != nullptr) *stats = CudaRunStats();
  CudaRunOptions options;
  Runner runner(this, options, stats, address, /*moved=*/true);
  const bool trial = TimesThisRun(/*graphs=*/true);
  if (status.ok() && trial) status = RecordRunEvent(0);
  if (status.ok()) status = runner.RunList(steps_.get());
  if (status.ok() && trial) status = RecordRunEvent(1);
  for (const auto& [slot, destination] : copies_out) {
    if (!status.ok()) break;
    status = HLOC_CUDA_CALL(
        driver_, absl::StrCat("copying result ", e.buffers[slot].name),
        cuMemcpyDtoDAsync, destination, address[slot],
        static_cast<size_t>(e.buffers[slot].size), stream_);
  }
  // Always wait: host parameters must outlive their copies, and the
  // caller may free or read its buffers once this returns.
  const absl::Status synced = HLOC_CUDA_CALL(
      driver_, "finishing the device run", cuStreamSynchronize, stream_);
  if (status.ok()) status = synced;
  if (status.ok() && trial) {
    absl::StatusOr<double> milliseconds =
        RunEventMilliseconds("timing the device run");
    if (milliseconds.ok()) RecordTrial(*milliseconds);
    status = milliseconds.status();
  }
  return status;
}

GraphChoice::Variant CudaExecutor::RunVariant() const {
  return branch_choice_.decided() ? branch_choice_.variant()
                                  : branch_choice_.NextTrial();
}

bool CudaExecutor::TimesThisRun(bool graphs) const {
  return graphs && graph_streams_ != nullptr && !branch_choice_.decided();
}

void CudaExecutor::RecordTrial(double milliseconds) {
  // Nothing to choose between: no graph has branches (runs that capture
  // other graphs later launch them as chains).
  if (branched_graphs_ == 0) {
    branch_choice_.Fix(GraphChoice::Variant::kChain);
    return;
  }
  branch_choice_.Record(milliseconds);
}

CudaExecutor::GraphChoices CudaExecutor::graph_choices() const {
  std::lock_guard<std::mutex> lock(run_mutex_);
  GraphChoices choices;
  choices.graphs = graph_count_;
  choices.branched = branched_graphs_;
  choices.runs = !branch_choice_.decided() ? "being timed"
                 : branch_choice_.variant() == GraphChoice::Variant::kBranched
                     ? "branches"
                     : "one chain";
  choices.best_branched_ms = branch_choice_.best_branched();
  choices.best_chain_ms = branch_choice_.best_chain();
  return choices;
}

absl::Status CudaExecutor::RecordRunEvent(int i) {
  if (run_events_[i] == nullptr) {
    absl::Status status =
        HLOC_CUDA_CALL(driver_, "creating a timing event", cuEventCreate,
                       &run_events_[i], cuda::CU_EVENT_DEFAULT);
    if (!status.ok()) return status;
  }
  return HLOC_CUDA_CALL(driver_, "timing the run", cuEventRecord,
                        run_events_[i], stream_);
}

absl::StatusOr<double> CudaExecutor::RunEventMilliseconds(const char* what) {
  float milliseconds = 0;
  absl::Status status =
      HLOC_CUDA_CALL(driver_, what, cuEventElapsedTime, &milliseconds,
                     run_events_[0], run_events_[1]);
  if (!status.ok()) return status;
  return milliseconds;
}

std::string FormatStepTimes(const std::vector<CudaStepTime>& times) {
  std::vector<const CudaStepTime*> order;
  double total = 0;
  for (const CudaStepTime& t : times) {
    if (t.count == 0) continue;
    order.push_back(&t);
    total += t.milliseconds;
  }
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) {
    return a->milliseconds > b->milliseconds;
  });
  std::string out =
      absl::StrFormat("%10s %6s %7s  %s\n", "ms", "calls", "share", "step");
  for (const CudaStepTime* t : order) {
    absl::StrAppendFormat(
        &out, "%10.4f %6d %6.1f%%  %s: %s\n", t->milliseconds, t->count,
        total > 0 ? 100 * t->milliseconds / total : 0.0, t->step, t->what);
  }
  absl::StrAppendFormat(&out, "%10.4f %6s %7s  total device time\n", total, "",
                        "");
  return out;
}

}  // namespace hloc

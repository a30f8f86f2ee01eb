// allreduce-bench: the bus bandwidth of hloc's compiled all-reduce across
// the GPUs of one machine, beside a direct NCCL call in the same run, as
// nccl-tests reports it.
//
//   allreduce-bench [--iterations=N] FILE.hloexe...
//
// Each FILE is a cuda executable of one all-reduce (a sum over every device
// of a run of G devices; scripts/allreduce_cases.sh compiles them for 1 MB
// to 1 GB). The executable runs on GPUs 0..G-1, one executor and thread
// per GPU sharing one set of NCCL communicators, exactly as
// `hlo-run --platform=cuda --replicas=G` runs it. A sample is N runs of the
// executable's steps back to back on each GPU with its inputs resident
// (CudaRunOptions::repeat), timed with CUDA events on each GPU; the slowest
// GPU's time over N is the sample, the median of 5 samples the result.
// The direct call is ncclAllReduce on buffers of the same size, on
// communicators of its own, timed the same way.
//
// Bandwidths follow nccl-tests: algbw = bytes / time, busbw = algbw *
// 2 (G - 1) / G, the bytes each GPU's links carry in a ring all-reduce.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hlo/literal.h"
#include "runtime/cuda_device.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_executor.h"
#include "runtime/device_threads.h"
#include "runtime/executable.h"
#include "runtime/nccl_collectives.h"
#include "runtime/nccl_library.h"

namespace hloc {
namespace {

constexpr int kSamples = 5;
constexpr int kWarmupRuns = 2;

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// `time(k)` on every device at once (a collective needs all of them): the
// slowest device's.
absl::StatusOr<double> SlowestDevice(
    int devices, const std::function<absl::StatusOr<double>(int64_t)>& time) {
  absl::StatusOr<std::vector<double>> times =
      RunOnDeviceThreads<double>(devices, time);
  if (!times.ok()) return times.status();
  return *std::max_element(times->begin(), times->end());
}

// Milliseconds per all-reduce of hloc's executable on `devices` GPUs.
absl::StatusOr<double> TimeExecutable(const Executable& executable,
                                      cuda::NcclCollectives* collectives,
                                      int devices, int iterations) {
  std::vector<std::unique_ptr<CudaExecutor>> executors;
  std::vector<Literal> arguments;
  for (int k = 0; k < devices; ++k) {
    CudaExecutorOptions options;
    options.device_ordinal = k;
    options.device_id = k;
    options.collectives = collectives;
    absl::StatusOr<std::unique_ptr<CudaExecutor>> executor =
        CudaExecutor::Create(executable, options);
    if (!executor.ok()) return executor.status();
    executors.push_back(*std::move(executor));
  }
  // Zeros: the bandwidth does not depend on the values.
  for (const Shape& shape : executable.parameter_shapes) {
    arguments.push_back(Literal(shape));
  }
  std::vector<double> samples;
  for (int s = 0; s < kWarmupRuns + kSamples; ++s) {
    absl::StatusOr<double> slowest =
        SlowestDevice(devices, [&](int64_t k) -> absl::StatusOr<double> {
          CudaRunOptions options;
          options.time_run = true;
          options.repeat = iterations;
          CudaRunStats stats;
          absl::StatusOr<Literal> result =
              executors[k]->Run(arguments, options, &stats);
          if (!result.ok()) return result.status();
          return stats.run_milliseconds;
        });
    if (!slowest.ok()) return slowest.status();
    if (s >= kWarmupRuns) samples.push_back(*slowest);
  }
  return Median(samples);
}

// The direct call: ncclAllReduce of `count` floats on every device, on
// communicators made for it, timed like the executable.
class DirectAllReduce {
 public:
  static absl::StatusOr<std::unique_ptr<DirectAllReduce>> Create(
      cuda::CudaDriver* driver, cuda::NcclLibrary* nccl, int devices) {
    std::unique_ptr<DirectAllReduce> direct(new DirectAllReduce());
    direct->driver_ = driver;
    direct->nccl_ = nccl;
    direct->streams_.assign(devices, nullptr);
    direct->events_.assign(devices, {nullptr, nullptr});
    for (int k = 0; k < devices; ++k) {
      absl::StatusOr<std::unique_ptr<cuda::CudaDevice>> device =
          cuda::CudaDevice::Open(driver, k);
      if (!device.ok()) return device.status();
      direct->devices_.push_back(*std::move(device));
    }
    std::vector<const cuda::CudaDevice*> members;
    for (const auto& device : direct->devices_) members.push_back(device.get());
    absl::StatusOr<std::vector<cuda::ncclComm_t>> comms =
        cuda::MakeCommunicators(*nccl, members, "direct");
    if (!comms.ok()) return comms.status();
    direct->comms_ = *std::move(comms);
    absl::Status status;
    for (int k = 0; k < devices; ++k) {
      status = direct->devices_[k]->MakeCurrent();
      if (status.ok()) {
        status = HLOC_CUDA_CALL(driver, "direct", cuStreamCreate,
                                &direct->streams_[k],
                                cuda::CU_STREAM_NON_BLOCKING);
      }
      for (int e = 0; status.ok() && e < 2; ++e) {
        status = HLOC_CUDA_CALL(driver, "direct", cuEventCreate,
                                &direct->events_[k][e],
                                cuda::CU_EVENT_DEFAULT);
      }
      if (!status.ok()) return status;
    }
    return direct;
  }

  ~DirectAllReduce() {
    for (size_t k = 0; k < devices_.size(); ++k) {
      devices_[k]->MakeCurrent().IgnoreError();
      if (streams_[k] != nullptr) driver_->cuStreamSynchronize(streams_[k]);
      if (k < comms_.size() && comms_[k] != nullptr) {
        nccl_->ncclCommDestroy(comms_[k]);
      }
      for (cuda::CUevent event : events_[k]) {
        if (event != nullptr) driver_->cuEventDestroy(event);
      }
      if (streams_[k] != nullptr) driver_->cuStreamDestroy(streams_[k]);
    }
  }

  absl::StatusOr<double> Time(size_t bytes, int iterations) {
    const int devices = static_cast<int>(devices_.size());
    std::vector<cuda::CUdeviceptr> send(devices, 0), receive(devices, 0);
    std::vector<double> samples;
    absl::Status status;
    for (int k = 0; status.ok() && k < devices; ++k) {
      status = devices_[k]->MakeCurrent();
      if (status.ok()) {
        status = HLOC_CUDA_CALL(driver_, "direct", cuMemAlloc, &send[k],
                                bytes);
      }
      if (status.ok()) {
        status = HLOC_CUDA_CALL(driver_, "direct", cuMemAlloc, &receive[k],
                                bytes);
      }
      if (status.ok()) {
        status = HLOC_CUDA_CALL(driver_, "direct", cuMemsetD8Async, send[k], 0,
                                bytes, streams_[k]);
      }
    }
    for (int s = 0; status.ok() && s < kWarmupRuns + kSamples; ++s) {
      absl::StatusOr<double> slowest =
          SlowestDevice(devices, [&](int64_t k) -> absl::StatusOr<double> {
            absl::Status st = devices_[k]->MakeCurrent();
            if (st.ok()) st = HLOC_CUDA_CALL(driver_, "direct", cuEventRecord,
                                             events_[k][0], streams_[k]);
            for (int i = 0; st.ok() && i < iterations; ++i) {
              st = HLOC_NCCL_CALL(
                  nccl_, "direct", ncclAllReduce,
                  reinterpret_cast<const void*>(send[k]),
                  reinterpret_cast<void*>(receive[k]), bytes / sizeof(float),
                  cuda::ncclFloat32, cuda::ncclSum, comms_[k], streams_[k]);
            }
            if (st.ok()) st = HLOC_CUDA_CALL(driver_, "direct", cuEventRecord,
                                             events_[k][1], streams_[k]);
            if (st.ok()) {
              st = HLOC_CUDA_CALL(driver_, "direct", cuEventSynchronize,
                                  events_[k][1]);
            }
            float milliseconds = 0;
            if (st.ok()) {
              st = HLOC_CUDA_CALL(driver_, "direct", cuEventElapsedTime,
                                  &milliseconds, events_[k][0],
                                  events_[k][1]);
            }
            if (!st.ok()) return st;
            return milliseconds / iterations;
          });
      status = slowest.status();
      if (status.ok() && s >= kWarmupRuns) samples.push_back(*slowest);
    }
    for (int k = 0; k < devices; ++k) {
      devices_[k]->MakeCurrent().IgnoreError();
      if (send[k] != 0) driver_->cuMemFree(send[k]);
      if (receive[k] != 0) driver_->cuMemFree(receive[k]);
    }
    if (!status.ok()) return status;
    return Median(samples);
  }

 private:
  DirectAllReduce() = default;
  cuda::CudaDriver* driver_ = nullptr;
  cuda::NcclLibrary* nccl_ = nullptr;
  std::vector<std::unique_ptr<cuda::CudaDevice>> devices_;
  std::vector<cuda::ncclComm_t> comms_;
  std::vector<cuda::CUstream> streams_;
  std::vector<std::array<cuda::CUevent, 2>> events_;
};

std::string Size(int64_t bytes) {
  if (bytes >= (int64_t{1} << 30)) return absl::StrCat(bytes >> 30, " GiB");
  if (bytes >= (int64_t{1} << 20)) return absl::StrCat(bytes >> 20, " MiB");
  return absl::StrCat(bytes >> 10, " KiB");
}

int Main(int argc, char** argv) {
  int iterations = 20;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (absl::StartsWith(arg, "--iterations=")) {
      if (!absl::SimpleAtoi(arg.substr(13), &iterations) || iterations < 1) {
        std::fprintf(stderr, "allreduce-bench: error: bad %s\n", arg.c_str());
        return 2;
      }
    } else if (absl::StartsWith(arg, "-")) {
      std::fprintf(stderr,
                   "allreduce-bench: error: unknown flag %s\nusage: "
                   "allreduce-bench [--iterations=N] FILE.hloexe...\n",
                   arg.c_str());
      return 2;
    } else {
      files.push_back(arg);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr,
                 "usage: allreduce-bench [--iterations=N] FILE.hloexe...\n");
    return 2;
  }
  absl::StatusOr<cuda::CudaDriver*> driver = cuda::CudaDriver::Get();
  absl::StatusOr<cuda::NcclLibrary*> nccl = cuda::NcclLibrary::Get();
  if (!driver.ok() || !nccl.ok()) {
    std::fprintf(stderr, "allreduce-bench: %s\n",
                 std::string((!driver.ok() ? driver.status() : nccl.status())
                                 .message())
                     .c_str());
    return 3;
  }
  int gpus = 0;
  (*driver)->cuDeviceGetCount(&gpus);
  std::unique_ptr<cuda::NcclCollectives> collectives;
  std::unique_ptr<DirectAllReduce> direct;
  int devices = 0;
  std::printf("| size | hloc time (us) | hloc busbw (GB/s) | NCCL time (us) "
              "| NCCL busbw (GB/s) | hloc / NCCL |\n|---|---|---|---|---|---|\n");
  for (const std::string& file : files) {
    absl::StatusOr<Executable> executable = ReadExecutableFile(file);
    if (!executable.ok()) {
      std::fprintf(stderr, "allreduce-bench: %s\n",
                   std::string(executable.status().message()).c_str());
      return 2;
    }
    const ExecutableStep* step = nullptr;
    for (const ExecutableStep& s : executable->steps) {
      if (s.kind == ExecutableStep::Kind::kCollective &&
          s.collective.op == CollectiveConfig::Op::kAllReduce) {
        step = &s;
      }
    }
    if (step == nullptr || executable->parameter_shapes.size() != 1 ||
        executable->parameter_shapes[0].element_type() != F32) {
      std::fprintf(stderr,
                   "allreduce-bench: %s is not an f32 all-reduce\n",
                   file.c_str());
      return 2;
    }
    const int n = static_cast<int>(step->collective.replica_count *
                                   step->collective.num_partitions);
    if (devices == 0) {
      devices = n;
      if (gpus < n) {
        std::fprintf(stderr, "allreduce-bench: needs %d GPUs, has %d\n", n,
                     gpus);
        return 3;
      }
      std::vector<int> ordinals;
      for (int k = 0; k < n; ++k) ordinals.push_back(k);
      absl::StatusOr<std::unique_ptr<cuda::NcclCollectives>> made =
          cuda::NcclCollectives::Create(*driver, ordinals);
      absl::StatusOr<std::unique_ptr<DirectAllReduce>> made_direct =
          made.ok() ? DirectAllReduce::Create(*driver, *nccl, n)
                    : absl::StatusOr<std::unique_ptr<DirectAllReduce>>(
                          made.status());
      if (!made_direct.ok()) {
        std::fprintf(stderr, "allreduce-bench: %s\n",
                     std::string(made_direct.status().message()).c_str());
        return 1;
      }
      collectives = *std::move(made);
      direct = *std::move(made_direct);
    } else if (n != devices) {
      std::fprintf(stderr, "allreduce-bench: %s runs on %d devices, not %d\n",
                   file.c_str(), n, devices);
      return 2;
    }
    const int64_t bytes = executable->buffers[step->buffers[0]].size;
    absl::StatusOr<double> hloc =
        TimeExecutable(*executable, collectives.get(), n, iterations);
    absl::StatusOr<double> nccl_ms =
        hloc.ok() ? direct->Time(bytes, iterations) : hloc;
    if (!nccl_ms.ok()) {
      std::fprintf(stderr, "allreduce-bench: %s: %s\n", file.c_str(),
                   std::string(nccl_ms.status().message()).c_str());
      return 1;
    }
    const double factor = 2.0 * (n - 1) / n;
    auto busbw = [&](double ms) { return bytes / (ms * 1e6) * factor; };
    std::printf("| %s | %.1f | %.1f | %.1f | %.1f | %.2f |\n",
                Size(bytes).c_str(), *hloc * 1e3, busbw(*hloc),
                *nccl_ms * 1e3, busbw(*nccl_ms), *hloc / *nccl_ms);
    std::fflush(stdout);
  }
  std::printf("\n%d GPUs, NCCL %d (%s); each time the slowest GPU's, the "
              "median of %d samples of %d all-reduces back to back\n",
              devices, (*nccl)->version(), (*nccl)->library().c_str(),
              kSamples, iterations);
  return 0;
}

}  // namespace
}  // namespace hloc

int main(int argc, char** argv) { return hloc::Main(argc, argv); }

#include "runtime/hip_executor.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/math_util.h"
#include "runtime/dense_buffer.h"
#include "runtime/device_run_staging.h"

namespace hloc {
namespace {

// Every allocation starts at this boundary (hipMalloc's own alignment,
// enough for any vector access a kernel makes).
constexpr int64_t kDeviceAlignment = 256;

}  // namespace

absl::StatusOr<std::unique_ptr<HipExecutor>> HipExecutor::Create(
    Executable executable, int device_ordinal) {
  absl::Status status = ValidateExecutable(executable);
  if (!status.ok()) return status;
  if (executable.platform != "rocm") {
    return absl::InvalidArgumentError(
        absl::StrCat("the executable is for platform '", executable.platform,
                     "', not rocm"));
  }
  absl::StatusOr<hip::HipDriver*> driver = hip::HipDriver::Get();
  if (!driver.ok()) return driver.status();
  std::unique_ptr<HipExecutor> executor(new HipExecutor());
  executor->executable_ = std::move(executable);
  executor->driver_ = *driver;
  hip::HipDriver* d = executor->driver_;
  status = HLOC_HIP_CALL(d, absl::StrCat("selecting device ", device_ordinal),
                         hipSetDevice, device_ordinal);
  if (!status.ok()) return status;
  char name[256] = {0};
  if (d->hipDeviceGetName(name, sizeof(name) - 1, device_ordinal) ==
      hip::hipSuccess) {
    executor->device_name_ = name;
  }
  status = HLOC_HIP_CALL(d, "creating the executor's stream",
                         hipStreamCreateWithFlags, &executor->stream_,
                         hip::hipStreamNonBlocking);
  if (status.ok()) status = executor->LoadModule();
  if (status.ok()) status = executor->AllocateAndUpload();
  if (status.ok()) {
    status = executor->ResolveKernels(executor->executable_.steps, "");
  }
  if (!status.ok()) return status;
  return executor;
}

HipExecutor::~HipExecutor() {
  if (driver_ == nullptr) return;
  // Errors cannot be reported from here.
  if (stream_ != nullptr) driver_->hipStreamSynchronize(stream_);
  if (block_ != nullptr) driver_->hipFree(block_);
  if (module_ != nullptr) driver_->hipModuleUnload(module_);
  if (stream_ != nullptr) driver_->hipStreamDestroy(stream_);
}

absl::Status HipExecutor::LoadModule() {
  std::string refused;
  for (const DeviceCode& code : executable_.device_code) {
    if (code.format != "hsaco") continue;
    hip::hipModule_t module = nullptr;
    absl::Status status = HLOC_HIP_CALL(
        driver_, absl::StrCat("loading the code object for ", code.arch),
        hipModuleLoadData, &module, code.code.data());
    if (status.ok()) {
      module_ = module;
      loaded_code_ = absl::StrCat(code.format, " ", code.arch);
      return absl::OkStatus();
    }
    absl::StrAppend(&refused, "\n  ", status.message());
  }
  if (refused.empty()) {
    return absl::FailedPreconditionError(
        "the executable carries no HSA code object (hsaco)");
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "the HIP runtime loads none of the executable's code "
      "objects on ",
      device_name_, " (compile with --gpu-arch for its ISA):", refused));
}

absl::Status HipExecutor::AllocateAndUpload() {
  const Executable& e = executable_;
  std::vector<int64_t> offset(e.allocations.size());
  for (size_t a = 0; a < e.allocations.size(); ++a) {
    offset[a] = device_bytes_;
    device_bytes_ += RoundUpTo(std::max<int64_t>(e.allocations[a].size, 1),
                               kDeviceAlignment);
  }
  void* block = nullptr;
  absl::Status status = HLOC_HIP_CALL(
      driver_,
      absl::StrCat("allocating ", device_bytes_, " bytes for the buffer plan"),
      hipMalloc, &block, static_cast<size_t>(device_bytes_));
  if (!status.ok()) return status;
  block_ = static_cast<char*>(block);
  for (const ExecutableBuffer& slot : e.buffers) {
    slot_address_.push_back(block_ + offset[slot.allocation] + slot.offset);
  }
  for (size_t a = 0; a < e.allocations.size(); ++a) {
    const ExecutableAllocation& allocation = e.allocations[a];
    if (allocation.kind != BufferAllocation::Kind::kConstant ||
        allocation.constant_data.empty()) {
      continue;
    }
    status = HLOC_HIP_CALL(driver_,
                           absl::StrCat("uploading constant allocation ", a),
                           hipMemcpyHtoDAsync, block_ + offset[a],
                           const_cast<char*>(allocation.constant_data.data()),
                           allocation.constant_data.size(), stream_);
    if (!status.ok()) return status;
  }
  return HLOC_HIP_CALL(driver_, "uploading constants", hipStreamSynchronize,
                       stream_);
}

absl::Status HipExecutor::ResolveKernels(
    const std::vector<ExecutableStep>& steps, const std::string& prefix) {
  using Kind = ExecutableStep::Kind;
  for (size_t s = 0; s < steps.size(); ++s) {
    const ExecutableStep& step = steps[s];
    const std::string what =
        absl::StrCat(prefix, "step ", s, " (", step.instruction, ")");
    switch (step.kind) {
      case Kind::kKernel: {
        if (kernels_.count(step.kernel_name) > 0) break;
        hip::hipFunction_t function = nullptr;
        absl::Status status = HLOC_HIP_CALL(
            driver_,
            absl::StrCat(what, ": looking up kernel '", step.kernel_name, "'"),
            hipModuleGetFunction, &function, module_, step.kernel_name.c_str());
        if (!status.ok()) return status;
        kernels_[step.kernel_name] = function;
        break;
      }
      case Kind::kCopy:
        break;
      case Kind::kWhile: {
        absl::Status status =
            ResolveKernels(step.condition, what + " condition ");
        if (status.ok()) status = ResolveKernels(step.body, what + " body ");
        if (!status.ok()) return status;
        break;
      }
      case Kind::kConditional:
        for (size_t b = 0; b < step.branches.size(); ++b) {
          absl::Status status = ResolveKernels(
              step.branches[b], absl::StrCat(what, " branch ", b, " "));
          if (!status.ok()) return status;
        }
        break;
      case Kind::kEvaluator:
      case Kind::kLibraryCall:
        return absl::UnimplementedError(absl::StrCat(
            what,
            ": the rocm runtime runs kernels, copies and control flow; "
            "this step is an ",
            step.kind == Kind::kEvaluator ? "evaluator" : "library call",
            " step, which the rocm compiler does not emit"));
      case Kind::kCollective:
        return absl::UnimplementedError(absl::StrCat(
            what, ": a collective step; the rocm runtime has no collective "
                  "library (RCCL) yet"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> HipExecutor::ReadPredicate(const ExecutableStep& step,
                                                   const std::string& what) {
  const Shape& shape = executable_.buffers[step.predicate_buffer].shape;
  int32_t value = 0;
  const size_t bytes = static_cast<size_t>(ByteWidth(shape.element_type()));
  absl::Status status =
      HLOC_HIP_CALL(driver_, what, hipMemcpyDtoHAsync, &value,
                    slot_address_[step.predicate_buffer], bytes, stream_);
  if (status.ok()) {
    status = HLOC_HIP_CALL(driver_, what, hipStreamSynchronize, stream_);
  }
  if (!status.ok()) return status;
  if (shape.element_type() == PRED) return (value & 0xff) != 0 ? 1 : 0;
  return value;
}

absl::Status HipExecutor::RunSteps(const std::vector<ExecutableStep>& steps,
                                   const std::string& prefix) {
  using Kind = ExecutableStep::Kind;
  for (size_t s = 0; s < steps.size(); ++s) {
    const ExecutableStep& step = steps[s];
    const std::string what =
        absl::StrCat(prefix, "step ", s, " (", step.instruction, ")");
    absl::Status status;
    switch (step.kind) {
      case Kind::kKernel: {
        std::vector<void*> arguments;
        for (int64_t slot : step.buffers) {
          arguments.push_back(slot_address_[slot]);
        }
        std::vector<void*> parameters;
        for (void*& argument : arguments) parameters.push_back(&argument);
        const LaunchDims& l = step.launch;
        ++kernel_launches_;
        status = HLOC_HIP_CALL(
            driver_, absl::StrCat(what, ", kernel ", step.kernel_name),
            hipModuleLaunchKernel, kernels_[step.kernel_name],
            static_cast<unsigned>(l.grid[0]), static_cast<unsigned>(l.grid[1]),
            static_cast<unsigned>(l.grid[2]), static_cast<unsigned>(l.block[0]),
            static_cast<unsigned>(l.block[1]),
            static_cast<unsigned>(l.block[2]),
            static_cast<unsigned>(l.shared_memory_bytes), stream_,
            parameters.data(), nullptr);
        break;
      }
      case Kind::kCopy: {
        const size_t bytes =
            static_cast<size_t>(executable_.buffers[step.buffers[0]].size);
        if (bytes == 0) break;
        status = HLOC_HIP_CALL(driver_, what, hipMemcpyDtoDAsync,
                               slot_address_[step.buffers[1]],
                               slot_address_[step.buffers[0]], bytes, stream_);
        break;
      }
      case Kind::kWhile:
        // A counted loop (step.trip_count) enqueues its iterations without
        // running the condition or waiting for its predicate.
        for (int64_t i = 0; i != step.trip_count; ++i) {
          if (step.trip_count < 0) {
            status = RunSteps(step.condition, what + " condition ");
            if (!status.ok()) break;
            absl::StatusOr<int64_t> predicate =
                ReadPredicate(step, what + ": reading its predicate");
            if (!predicate.ok()) return predicate.status();
            if (*predicate == 0) break;
          }
          status = RunSteps(step.body, what + " body ");
          if (!status.ok()) break;
        }
        break;
      case Kind::kConditional: {
        absl::StatusOr<int64_t> predicate =
            ReadPredicate(step, what + ": reading its predicate");
        if (!predicate.ok()) return predicate.status();
        const int64_t n = static_cast<int64_t>(step.branches.size());
        int64_t branch = n - 1;
        if (executable_.buffers[step.predicate_buffer].shape.element_type() ==
            PRED) {
          branch = *predicate != 0 ? 0 : 1;
        } else if (*predicate >= 0 && *predicate < n) {
          branch = *predicate;
        }
        status = RunSteps(step.branches[std::min(branch, n - 1)],
                          absl::StrCat(what, " branch ", branch, " "));
        break;
      }
      case Kind::kEvaluator:
      case Kind::kLibraryCall:
      case Kind::kCollective:
        status = absl::InternalError(
            absl::StrCat(what, ": not a step the rocm runtime runs"));
        break;
    }
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> HipExecutor::Run(absl::Span<const Literal> arguments) {
  const Executable& e = executable_;
  if (absl::Status valid = CheckRunArguments(e, arguments); !valid.ok()) {
    return valid;
  }
  std::lock_guard<std::mutex> lock(run_mutex_);
  absl::Status status;
  // Staged bytes live until the stream has finished with them.
  const ArgumentStaging in(e, arguments);
  for (const HostSlotCopy& copy : in.copies()) {
    if (!status.ok()) break;
    status = HLOC_HIP_CALL(driver_, copy.what, hipMemcpyHtoDAsync,
                           slot_address_[copy.slot], copy.host, copy.bytes,
                           stream_);
  }
  if (status.ok()) status = RunSteps(e.steps, "");
  ResultStaging out(e);
  for (const HostSlotCopy& copy : out.copies()) {
    if (!status.ok()) break;
    status = HLOC_HIP_CALL(driver_, copy.what, hipMemcpyDtoHAsync, copy.host,
                           slot_address_[copy.slot], copy.bytes, stream_);
  }
  // Always wait: a failed run must not leave copies from `in` pending.
  const absl::Status synced = HLOC_HIP_CALL(driver_, "finishing the run",
                                            hipStreamSynchronize, stream_);
  if (status.ok()) status = synced;
  if (!status.ok()) return status;
  return std::move(out).Finish();
}

}  // namespace hloc

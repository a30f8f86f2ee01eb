// hloc's cuda runtime for Python, without the compiler (no LLVM): it loads
// a saved cuda executable (hlo-opt --platform=cuda --stage=executable, or
// what hloc.jit compiles) and runs it on DLPack arrays. Two modules define
// it: the compiling extension (hloc._hloc.cuda) and, for the GPU machine,
// which has no LLVM, the runtime-only hloc._hloc_cuda; a process loads one
// of them (each carries the executable's generated protobuf code, which
// libprotobuf refuses to register twice). hloc/_cuda.py wraps it.
//
// Arguments are DLPack tensors on this program's GPU (kDLCUDA), read in
// place, or on the host (kDLCPU), copied in (CudaExecutor::RunOnDevice).
// Results are written by the kernels straight into device memory taken
// here per call (one block for all leaves, from a pool of released blocks:
// ResultPool) and handed out as nanobind ndarrays with __dlpack__ and
// __dlpack_device__, which give the block back once the last one (and
// whatever framework imported it) lets go.
//
// Streams: a run returns when its results are written (the executor
// synchronises its stream), so a result is ready on every stream and its
// __dlpack__(stream=...) has nothing to wait for. For device arguments the
// Python side passes this program's stream to the producer's
// __dlpack__(stream=...), which orders the producer's pending writes
// before the run without the host waiting.
#include "python/cuda_bindings.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "hlo/math_util.h"
#include "hlo/primitive_type.h"
#include "hlo/shape.h"
#include "nanobind/nanobind.h"
#include "nanobind/ndarray.h"
#include "nanobind/stl/string.h"
#include "nanobind/stl/unique_ptr.h"
#include "nanobind/stl/vector.h"
#include "python/status_error.h"
#include "runtime/cuda_device.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_executor.h"
#include "runtime/executable.h"

namespace nb = nanobind;

namespace hloc {
namespace {

// A device without which no program loads says so in the words
// python/program.cc uses for the compiling extension.
absl::Status NotAvailable(const absl::Status& status) {
  if (!cuda::IsNoCudaDevice(status)) return status;
  return absl::FailedPreconditionError(
      absl::StrCat("the cuda platform is not available: ", status.message()));
}

constexpr int64_t kBlockAlignment = 256;

// Result blocks of one device, kept for reuse once their arrays are gone:
// cuMemAlloc and cuMemFree of a large block cost tens of microseconds each
// (the driver maps and unmaps pages), more than a small program's run. A
// block is reused only at its exact size (a program's results have one),
// and after cuCtxSynchronize: a framework that imported it (JAX) may still
// have kernels reading it on its own streams when it lets go, which
// cuMemFree would also have waited for. Bounded; beyond that, freed.
class ResultPool {
 public:
  static constexpr size_t kMaxBlocks = 8;
  static constexpr int64_t kMaxBytes = int64_t{1} << 30;

  explicit ResultPool(std::shared_ptr<cuda::CudaDevice> device)
      : device_(std::move(device)) {}

  // Device memory of `bytes`; the device's context is current.
  absl::StatusOr<cuda::CUdeviceptr> Acquire(int64_t bytes) {
    cuda::CUdeviceptr address = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = free_.begin(); it != free_.end(); ++it) {
        if (it->first != bytes) continue;
        address = it->second;
        held_bytes_ -= bytes;
        free_.erase(it);
        ++reused_;
        break;
      }
    }
    cuda::CudaDriver* driver = device_->driver();
    if (address != 0) {
      absl::Status synced = HLOC_CUDA_CALL(
          driver, "waiting for the users of a released result block",
          cuCtxSynchronize);
      if (!synced.ok()) {
        Release(bytes, address);
        return synced;
      }
      return address;
    }
    absl::Status status = HLOC_CUDA_CALL(
        driver, absl::StrCat("allocating ", bytes, " bytes for the results"),
        cuMemAlloc, &address, static_cast<size_t>(bytes));
    if (!status.ok()) return status;
    return address;
  }

  // Any thread (a framework's deleter); no Python.
  void Release(int64_t bytes, cuda::CUdeviceptr address) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (free_.size() < kMaxBlocks && held_bytes_ + bytes <= kMaxBytes) {
        free_.emplace_back(bytes, address);
        held_bytes_ += bytes;
        return;
      }
    }
    // A destructor's path reports nothing.
    device_->MakeCurrent().IgnoreError();
    device_->driver()->cuMemFree(address);
  }

  int64_t reused() const { return reused_.load(); }

  // One per device for the process's life (never destroyed: a block may
  // be released by a framework during interpreter shutdown).
  static ResultPool* For(const std::shared_ptr<cuda::CudaDevice>& device) {
    static std::mutex mutex;
    static auto* pools = new std::vector<ResultPool*>();
    std::lock_guard<std::mutex> lock(mutex);
    const int ordinal = device->info().ordinal;
    for (ResultPool* pool : *pools) {
      if (pool->device_->info().ordinal == ordinal) return pool;
    }
    pools->push_back(new ResultPool(device));
    return pools->back();
  }

 private:
  std::shared_ptr<cuda::CudaDevice> device_;
  std::mutex mutex_;
  std::vector<std::pair<int64_t, cuda::CUdeviceptr>> free_;
  int64_t held_bytes_ = 0;
  std::atomic<int64_t> reused_{0};
};

// One call's results in one device block, back to the pool when the last
// array over it dies.
struct ResultBlock {
  ResultPool* pool = nullptr;
  int64_t bytes = 0;
  cuda::CUdeviceptr address = 0;
  ~ResultBlock() {
    if (address != 0) pool->Release(bytes, address);
  }
};

// The DLPack element type of a leaf: bf16 as DLPack's bfloat, so JAX and
// PyTorch import it as bfloat16.
nb::dlpack::dtype DlpackType(PrimitiveType type) {
  using Code = nb::dlpack::dtype_code;
  auto make = [&](Code code) {
    return nb::dlpack::dtype{static_cast<uint8_t>(code),
                             static_cast<uint8_t>(BitWidth(type)), 1};
  };
  switch (type) {
    case PRED:
      return nb::dtype<bool>();
    case BF16:
      return make(Code::Bfloat);
    case F16:
    case F32:
    case F64:
      return make(Code::Float);
    case C64:
    case C128:
      return make(Code::Complex);
    case S8:
    case S16:
    case S32:
    case S64:
      return make(Code::Int);
    default:
      return make(Code::UInt);
  }
}

using AnyArray = nb::ndarray<nb::ro>;

class CudaProgram {
 public:
  static std::unique_ptr<CudaProgram> FromExecutable(Executable executable,
                                                     int device_ordinal) {
    if (executable.platform != "cuda") {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("the executable '", executable.name, "' is for ",
                       executable.platform, ", not cuda")));
    }
    CudaExecutorOptions options;
    options.device_ordinal = device_ordinal;
    std::unique_ptr<CudaProgram> program(new CudaProgram());
    {
      nb::gil_scoped_release release;
      absl::StatusOr<std::unique_ptr<CudaExecutor>> executor =
          CudaExecutor::Create(std::move(executable), options);
      if (!executor.ok()) throw StatusError(NotAvailable(executor.status()));
      program->executor_ = *std::move(executor);
      absl::StatusOr<cuda::CudaDriver*> driver = cuda::CudaDriver::Get();
      ThrowIfError(driver.status());
      program->device_ =
          ValueOrThrow(cuda::CudaDevice::Open(*driver, device_ordinal));
      program->pool_ = ResultPool::For(program->device_);
    }
    const Executable& e = program->executor_->executable();
    for (const Shape& shape : e.parameter_shapes) {
      if (!shape.IsArray()) {
        throw StatusError(absl::UnimplementedError(
            absl::StrCat("parameter ", shape.ToString(),
                         " is not an array: hloc's Python runtime takes array "
                         "parameters only")));
      }
    }
    return program;
  }

  const Executable& executable() const { return executor_->executable(); }
  CudaExecutor& executor() const { return *executor_; }
  int device_ordinal() const { return device_->info().ordinal; }
  const std::vector<cuda::CUdeviceptr>& last_result_addresses() const {
    return last_results_;
  }
  int64_t reused_result_blocks() const { return pool_->reused(); }

  nb::list Run(const std::vector<AnyArray>& arrays) {
    const Executable& e = executable();
    if (arrays.size() != e.parameter_shapes.size()) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat(e.name, " takes ", e.parameter_shapes.size(),
                       " arguments, given ", arrays.size())));
    }
    std::vector<CudaRunArgument> arguments;
    for (size_t i = 0; i < arrays.size(); ++i) {
      arguments.push_back(Argument(arrays[i], e.parameter_shapes[i], i));
    }
    // The results' block, each leaf at an aligned offset.
    std::vector<int64_t> offsets;
    int64_t bytes = 0;
    for (int64_t slot : e.result_buffers) {
      offsets.push_back(bytes);
      bytes += RoundUpTo(std::max<int64_t>(e.buffers[slot].size, 1),
                         kBlockAlignment);
    }
    auto block = std::make_shared<ResultBlock>();
    block->pool = pool_;
    block->bytes = bytes;
    std::vector<cuda::CUdeviceptr> results;
    {
      nb::gil_scoped_release release;
      ThrowIfError(device_->MakeCurrent());
      block->address = ValueOrThrow(pool_->Acquire(bytes));
      for (int64_t offset : offsets) results.push_back(block->address + offset);
      ThrowIfError(executor_->RunOnDevice(arguments, results));
    }
    last_results_ = results;
    nb::list out;
    for (size_t l = 0; l < results.size(); ++l) {
      const Shape& shape = e.buffers[e.result_buffers[l]].shape;
      std::vector<size_t> dims(shape.dimensions().begin(),
                               shape.dimensions().end());
      auto* owner = new std::shared_ptr<ResultBlock>(block);
      nb::capsule release(owner, [](void* p) noexcept {
        delete static_cast<std::shared_ptr<ResultBlock>*>(p);
      });
      // array_api: an object with __dlpack__ and __dlpack_device__ (what
      // jax.dlpack.from_dlpack asks for), not a bare capsule.
      nb::ndarray<nb::array_api> array(
          reinterpret_cast<void*>(results[l]), dims.size(), dims.data(),
          release, /*strides=*/nullptr, DlpackType(shape.element_type()),
          nb::device::cuda::value, device_ordinal());
      out.append(array.cast());
    }
    return out;
  }

 private:
  CudaProgram() = default;

  // A DLPack argument as the executor takes it, after the checks that
  // make a wrong one a Python exception rather than a bad device access.
  CudaRunArgument Argument(const AnyArray& array, const Shape& parameter,
                           size_t index) const {
    const std::string what = absl::StrCat("argument ", index);
    CudaRunArgument argument;
    const int device_type = array.device_type();
    if (device_type == nb::device::cuda::value) {
      if (array.device_id() != device_ordinal()) {
        throw StatusError(absl::InvalidArgumentError(absl::StrCat(
            what, " is on cuda:", array.device_id(), ", the program on cuda:",
            device_ordinal(), " (hloc copies nothing between GPUs)")));
      }
      argument.device = reinterpret_cast<cuda::CUdeviceptr>(array.data());
    } else if (device_type == nb::device::cpu::value) {
      argument.host = array.data();
    } else {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          what, " is on DLPack device type ", device_type,
          "; a cuda program takes arrays on its GPU (kDLCUDA) or the host")));
    }
    std::vector<int64_t> dims(array.ndim());
    for (size_t d = 0; d < array.ndim(); ++d) dims[d] = array.shape(d);
    const PrimitiveType type = parameter.element_type();
    nb::dlpack::dtype want = DlpackType(type);
    // NumPy has no bf16 DLPack code: host bf16 crosses as its uint16 bits.
    const bool bits_of_bf16 =
        type == BF16 &&
        array.dtype() ==
            nb::dlpack::dtype{
                static_cast<uint8_t>(nb::dlpack::dtype_code::UInt), 16, 1};
    if ((array.dtype() != want && !bits_of_bf16) ||
        !Shape::Array(type, dims).Compatible(parameter)) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          what, " does not match parameter ", index, " (", parameter.ToString(),
          "): given ", array.ndim(), "-d array of ",
          static_cast<int>(array.dtype().bits), "-bit elements")));
    }
    for (size_t d = array.ndim(), stride = 1; d-- > 0;) {
      if (array.shape(d) > 1 &&
          array.stride(d) != static_cast<int64_t>(stride)) {
        throw StatusError(absl::InvalidArgumentError(absl::StrCat(
            what, " is not C-contiguous (hloc reads device arrays in place)")));
      }
      stride *= array.shape(d);
    }
    return argument;
  }

  std::unique_ptr<CudaExecutor> executor_;
  std::shared_ptr<cuda::CudaDevice> device_;
  ResultPool* pool_ = nullptr;
  std::vector<cuda::CUdeviceptr> last_results_;
};

std::unique_ptr<CudaProgram> LoadBytes(const nb::bytes& bytes, int device) {
  Executable executable = ValueOrThrow(DeserializeExecutable(
      absl::string_view(bytes.c_str(), bytes.size()), "executable bytes"));
  return CudaProgram::FromExecutable(std::move(executable), device);
}

std::unique_ptr<CudaProgram> LoadFile(const std::string& path, int device) {
  Executable executable = ValueOrThrow(ReadExecutableFile(path));
  return CudaProgram::FromExecutable(std::move(executable), device);
}

std::vector<std::string> TypeNames(const Executable& e,
                                   const std::vector<int64_t>& slots) {
  std::vector<std::string> names;
  for (int64_t slot : slots) {
    names.emplace_back(PrimitiveTypeName(e.buffers[slot].shape.element_type()));
  }
  return names;
}

}  // namespace
}  // namespace hloc

namespace hloc {

void DefineCudaRuntime(nb::module_& m) {
  nb::class_<CudaProgram>(m, "CudaProgram")
      .def_prop_ro("name",
                   [](const CudaProgram& p) { return p.executable().name; })
      .def_prop_ro("platform", [](const CudaProgram&) { return "cuda"; })
      .def_prop_ro("device", &CudaProgram::device_ordinal)
      .def_prop_ro("parameter_types",
                   [](const CudaProgram& p) {
                     std::vector<std::string> names;
                     for (const Shape& s : p.executable().parameter_shapes) {
                       names.emplace_back(PrimitiveTypeName(s.element_type()));
                     }
                     return names;
                   })
      .def_prop_ro("parameter_shapes",
                   [](const CudaProgram& p) {
                     std::vector<std::string> shapes;
                     for (const Shape& s : p.executable().parameter_shapes) {
                       shapes.push_back(s.ToString());
                     }
                     return shapes;
                   })
      .def_prop_ro("parameter_dims",
                   [](const CudaProgram& p) {
                     std::vector<std::vector<int64_t>> dims;
                     for (const Shape& s : p.executable().parameter_shapes) {
                       dims.push_back(s.dimensions());
                     }
                     return dims;
                   })
      .def_prop_ro("result_is_tuple",
                   [](const CudaProgram& p) {
                     return p.executable().result_shape.IsTuple();
                   })
      .def_prop_ro("result_types",
                   [](const CudaProgram& p) {
                     return TypeNames(p.executable(),
                                      p.executable().result_buffers);
                   })
      .def_prop_ro(
          "fallback_runs",
          [](const CudaProgram& p) { return p.executor().fallback_runs(); })
      .def_prop_ro(
          "host_transfers",
          [](const CudaProgram& p) { return p.executor().host_transfers(); },
          "Copies between host and device so far: host arguments, "
          "loop predicates, evaluator steps (none for device "
          "arguments of a straight-line program).")
      .def_prop_ro(
          "stream",
          [](const CudaProgram& p) {
            return reinterpret_cast<uintptr_t>(p.executor().stream());
          },
          "The CUstream the program runs on, as an int (what "
          "__dlpack__(stream=...) takes).")
      .def_prop_ro(
          "loaded_code",
          [](const CudaProgram& p) { return p.executor().loaded_code(); })
      .def_prop_ro("last_parameter_addresses",
                   [](const CudaProgram& p) {
                     std::vector<uint64_t> out;
                     for (auto a : p.executor().last_parameter_addresses()) {
                       out.push_back(a);
                     }
                     return out;
                   })
      .def_prop_ro("last_result_addresses",
                   [](const CudaProgram& p) {
                     std::vector<uint64_t> out;
                     for (auto a : p.last_result_addresses()) out.push_back(a);
                     return out;
                   })
      .def_prop_ro("reused_result_blocks", &CudaProgram::reused_result_blocks,
                   "Result blocks taken from the device's pool of released "
                   "ones (all programs on the device), not allocated.")
      .def("run", &CudaProgram::Run, nb::arg("arrays"));

  m.def(
      "executable_platform",
      [](const std::string& path) {
        return ValueOrThrow(ReadExecutableFile(path)).platform;
      },
      nb::arg("path"), "The platform a saved executable is for.");
  m.def("load", &LoadFile, nb::arg("path"), nb::arg("device") = 0,
        "Loads a saved cuda executable (.hloexe) onto a GPU.");
  m.def("load_bytes", &LoadBytes, nb::arg("executable"), nb::arg("device") = 0,
        "Loads a serialized cuda executable onto a GPU.");
}

}  // namespace hloc

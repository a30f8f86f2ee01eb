#include "runtime/cufft_fft.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "hlo/shape.h"
#include "runtime/dlopen_symbols.h"
#include "runtime/fft_check.h"

namespace hloc {
namespace cuda {
namespace {

// cufft.h's ABI: a plan is an int handle, results and types are ints.
using cufftHandle = int;
using cufftResult = int;
constexpr cufftResult CUFFT_SUCCESS = 0;
constexpr int CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29;
constexpr int CUFFT_D2Z = 0x6a, CUFFT_Z2D = 0x6c, CUFFT_Z2Z = 0x69;
constexpr int CUFFT_FORWARD = -1, CUFFT_INVERSE = 1;

const char* ResultName(cufftResult result) {
  static const char* const kNames[] = {
      "CUFFT_SUCCESS",        "CUFFT_INVALID_PLAN",
      "CUFFT_ALLOC_FAILED",   "CUFFT_INVALID_TYPE",
      "CUFFT_INVALID_VALUE",  "CUFFT_INTERNAL_ERROR",
      "CUFFT_EXEC_FAILED",    "CUFFT_SETUP_FAILED",
      "CUFFT_INVALID_SIZE",   "CUFFT_UNALIGNED_DATA",
      "CUFFT_INCOMPLETE_PARAMETER_LIST", "CUFFT_INVALID_DEVICE",
      "CUFFT_PARSE_ERROR",    "CUFFT_NO_WORKSPACE",
      "CUFFT_NOT_IMPLEMENTED", "CUFFT_LICENSE_ERROR",
      "CUFFT_NOT_SUPPORTED"};
  if (result >= 0 && result < static_cast<int>(std::size(kNames))) {
    return kNames[result];
  }
  return "an unknown cufftResult";
}

// x[i] *= factor for i < count, in place, grid-stride: the 1/N of XLA's
// inverse transforms. Written as PTX because the runtime links no code
// generator; any driver that runs our kernels JIT-compiles it. One kernel
// text serves both precisions: $T is the type, $R its register prefix, $S
// the log2 of its size.
constexpr char kScaleKernelPtx[] = R"(
.visible .entry hloc_scale_$T(.param .u64 data, .param .u64 count,
                               .param .$T factor)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .b64 %rd<8>;
  .reg .$T %$R<3>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [count];
  ld.param.$T %$R1, [factor];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd3, %r1, %r2;
  cvt.u64.u32 %rd4, %r3;
  add.u64 %rd3, %rd3, %rd4;
  mul.wide.u32 %rd5, %r4, %r2;
$L_loop:
  setp.ge.u64 %p, %rd3, %rd2;
  @%p bra $L_done;
  shl.b64 %rd6, %rd3, $S;
  add.u64 %rd7, %rd1, %rd6;
  ld.global.$T %$R2, [%rd7];
  mul.rn.$T %$R2, %$R2, %$R1;
  st.global.$T [%rd7], %$R2;
  add.u64 %rd3, %rd3, %rd5;
  bra.uni $L_loop;
$L_done:
  ret;
}
)";


}  // namespace

std::string ScalePtx() {
  return absl::StrCat(
      "\n.version 7.0\n.target sm_52\n.address_size 64\n\n",
      absl::StrReplaceAll(kScaleKernelPtx,
                          {{"$T", "f32"}, {"$R", "f"}, {"$S", "2"}}),
      absl::StrReplaceAll(kScaleKernelPtx,
                          {{"$T", "f64"}, {"$R", "fd"}, {"$S", "3"}}));
}

struct CufftFft::Library : LoadedLibrary {
  cufftResult (*cufftPlanMany)(cufftHandle*, int, int*, int*, int, int, int*,
                               int, int, int, int) = nullptr;
  cufftResult (*cufftSetStream)(cufftHandle, CUstream) = nullptr;
  cufftResult (*cufftDestroy)(cufftHandle) = nullptr;
  cufftResult (*cufftExecC2C)(cufftHandle, void*, void*, int) = nullptr;
  cufftResult (*cufftExecZ2Z)(cufftHandle, void*, void*, int) = nullptr;
  cufftResult (*cufftExecR2C)(cufftHandle, void*, void*) = nullptr;
  cufftResult (*cufftExecD2Z)(cufftHandle, void*, void*) = nullptr;
  cufftResult (*cufftExecC2R)(cufftHandle, void*, void*) = nullptr;
  cufftResult (*cufftExecZ2D)(cufftHandle, void*, void*) = nullptr;


  // An error naming the cuFFT function, its result and the step.
  absl::Status Check(cufftResult result, const char* function,
                     absl::string_view what) const {
    if (result == CUFFT_SUCCESS) return absl::OkStatus();
    return LibraryCallError("cuFFT", function, result, ResultName(result),
                            what);
  }
};

struct FftPlan {
  const CufftFft::Library* library = nullptr;
  CudaDriver* driver = nullptr;
  std::string what;
  cufftHandle handle = 0;
  bool planned = false;
  FftType type = FftType::kFft;
  bool f64 = false;
  // Nothing to transform: the output (if any) is zeros.
  bool empty = false;
  int64_t out_bytes = 0;
  // The inverse's 1/N, applied to `scaled_reals` reals of the output.
  double scale = 1;
  int64_t scaled_reals = 0;
  // IRFFT: where cuFFT reads (and overwrites) a copy of the input.
  CUdeviceptr scratch = 0;
  int64_t input_bytes = 0;
};

void FftPlanDeleter::operator()(FftPlan* plan) const {
  if (plan->planned) plan->library->cufftDestroy(plan->handle);
  if (plan->scratch != 0) plan->driver->cuMemFree(plan->scratch);
  delete plan;
}

absl::Status CheckFftStep(const Executable& executable,
                          const ExecutableStep& step,
                          const std::string& what) {
  if (step.buffers.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": an fft takes 2 buffers (input, out), not ",
                     step.buffers.size()));
  }
  const Shape& input = executable.buffers[step.buffers[0]].shape;
  const Shape& out = executable.buffers[step.buffers[1]].shape;
  if (!input.IsArray() || !out.IsArray() || !input.HasDescendingLayout() ||
      !out.HasDescendingLayout()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": cuFFT reads and writes row-major arrays, not ",
                     input.ToString(), " -> ", out.ToString()));
  }
  absl::Status status = CheckFft(step.library_config.fft_type,
                                 step.library_config.fft_length, input, out);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", status.message()));
  }
  return absl::OkStatus();
}

std::string CufftFft::DefaultLibraries() {
  return LibraryNames("HLOC_LIBCUFFT", "libcufft.so.12,libcufft.so.11");
}

absl::StatusOr<std::unique_ptr<CufftFft>> CufftFft::Create(
    CudaDriver* driver) {
  absl::StatusOr<std::unique_ptr<Library>> opened =
      OpenLibraryTable<Library>(DefaultLibraries(), "cuFFT");
  if (!opened.ok()) return opened.status();
  std::unique_ptr<Library> library = *std::move(opened);
  Library& l = *library;
  SymbolBinder binder(l.handle);
  binder.Bind(&l.cufftPlanMany, {"cufftPlanMany"});
  binder.Bind(&l.cufftSetStream, {"cufftSetStream"});
  binder.Bind(&l.cufftDestroy, {"cufftDestroy"});
  binder.Bind(&l.cufftExecC2C, {"cufftExecC2C"});
  binder.Bind(&l.cufftExecZ2Z, {"cufftExecZ2Z"});
  binder.Bind(&l.cufftExecR2C, {"cufftExecR2C"});
  binder.Bind(&l.cufftExecD2Z, {"cufftExecD2Z"});
  binder.Bind(&l.cufftExecC2R, {"cufftExecC2R"});
  binder.Bind(&l.cufftExecZ2D, {"cufftExecZ2D"});
  absl::Status status = binder.Check(l.name, "cuFFT 11 or newer");
  if (!status.ok()) return status;
  std::unique_ptr<CufftFft> fft(new CufftFft());
  fft->driver_ = driver;
  fft->library_ = std::move(library);
  const std::string what = "loading cuFFT's scaling kernel";
  const std::string ptx = ScalePtx();
  status = HLOC_CUDA_CALL(driver, what, cuModuleLoadDataEx, &fft->module_,
                          ptx.c_str(), 0, nullptr, nullptr);
  if (!status.ok()) return status;
  status = HLOC_CUDA_CALL(driver, what, cuModuleGetFunction, &fft->scale_f32_,
                          fft->module_, "hloc_scale_f32");
  if (!status.ok()) return status;
  status = HLOC_CUDA_CALL(driver, what, cuModuleGetFunction, &fft->scale_f64_,
                          fft->module_, "hloc_scale_f64");
  if (!status.ok()) return status;
  return fft;
}

CufftFft::~CufftFft() {
  if (module_ != nullptr) driver_->cuModuleUnload(module_);
}

absl::StatusOr<FftPlanPtr> CufftFft::Plan(const Executable& executable,
                                          const ExecutableStep& step,
                                          const std::string& what) {
  absl::Status status = CheckFftStep(executable, step, what);
  if (!status.ok()) return status;
  const Library& l = *library_;
  const LibraryConfig& c = step.library_config;
  const Shape& input = executable.buffers[step.buffers[0]].shape;
  const Shape& out = executable.buffers[step.buffers[1]].shape;
  FftPlanPtr plan(new FftPlan());
  plan->library = library_.get();
  plan->driver = driver_;
  plan->what = what;
  plan->type = c.fft_type;
  const PrimitiveType element = input.element_type();
  plan->f64 = element == F64 || element == C128;
  plan->out_bytes = executable.buffers[step.buffers[1]].size;
  plan->input_bytes = executable.buffers[step.buffers[0]].size;
  std::vector<int> n(c.fft_length.begin(), c.fft_length.end());
  int64_t transform = 1;
  for (int d : n) transform *= d;
  plan->empty = input.ElementCount() == 0 || out.ElementCount() == 0;
  if (plan->empty) return plan;
  // Transforms of `n` one after another (CheckFft: the batch dimensions
  // lead and everything is row-major); the real side has `transform`
  // elements each.
  const Shape& real_side = c.fft_type == FftType::kRfft ? input : out;
  const int batch = static_cast<int>(real_side.ElementCount() / transform);
  int type = 0;
  switch (c.fft_type) {
    case FftType::kFft:
    case FftType::kIfft:
      type = plan->f64 ? CUFFT_Z2Z : CUFFT_C2C;
      break;
    case FftType::kRfft:
      type = plan->f64 ? CUFFT_D2Z : CUFFT_R2C;
      break;
    case FftType::kIrfft:
      type = plan->f64 ? CUFFT_Z2D : CUFFT_C2R;
      break;
  }
  // nullptr embeddings: dense transforms, the strides and distances unused.
  status = HLOC_LIBRARY_CALL(l, what, cufftPlanMany, &plan->handle,
                             static_cast<int>(n.size()), n.data(), nullptr, 1,
                             0, nullptr, 1, 0, type, batch);
  if (!status.ok()) return status;
  plan->planned = true;
  if (c.fft_type == FftType::kIfft || c.fft_type == FftType::kIrfft) {
    plan->scale = 1.0 / static_cast<double>(transform);
    plan->scaled_reals =
        out.ElementCount() * (c.fft_type == FftType::kIfft ? 2 : 1);
  }
  if (c.fft_type == FftType::kIrfft) {
    status = HLOC_CUDA_CALL(driver_, what, cuMemAlloc, &plan->scratch,
                            static_cast<size_t>(plan->input_bytes));
    if (!status.ok()) return status;
  }
  return plan;
}

absl::Status CufftFft::Run(const FftPlan& plan, CUdeviceptr input,
                           CUdeviceptr out, CUstream stream) {
  const Library& l = *library_;
  const std::string& what = plan.what;
  if (plan.empty) {
    if (plan.out_bytes == 0) return absl::OkStatus();
    return HLOC_CUDA_CALL(driver_, what, cuMemsetD8Async, out, 0,
                          static_cast<size_t>(plan.out_bytes), stream);
  }
  absl::Status status =
      HLOC_LIBRARY_CALL(l, what, cufftSetStream, plan.handle, stream);
  if (!status.ok()) return status;
  void* in = reinterpret_cast<void*>(input);
  void* o = reinterpret_cast<void*>(out);
  switch (plan.type) {
    case FftType::kFft:
    case FftType::kIfft: {
      const int direction =
          plan.type == FftType::kFft ? CUFFT_FORWARD : CUFFT_INVERSE;
      status = plan.f64 ? HLOC_LIBRARY_CALL(l, what, cufftExecZ2Z, plan.handle,
                                            in, o, direction)
                        : HLOC_LIBRARY_CALL(l, what, cufftExecC2C, plan.handle,
                                            in, o, direction);
      break;
    }
    case FftType::kRfft:
      status =
          plan.f64
              ? HLOC_LIBRARY_CALL(l, what, cufftExecD2Z, plan.handle, in, o)
              : HLOC_LIBRARY_CALL(l, what, cufftExecR2C, plan.handle, in, o);
      break;
    case FftType::kIrfft: {
      status = HLOC_CUDA_CALL(driver_, what, cuMemcpyDtoDAsync, plan.scratch,
                              input, static_cast<size_t>(plan.input_bytes),
                              stream);
      if (!status.ok()) return status;
      void* copy = reinterpret_cast<void*>(plan.scratch);
      status =
          plan.f64
              ? HLOC_LIBRARY_CALL(l, what, cufftExecZ2D, plan.handle, copy, o)
              : HLOC_LIBRARY_CALL(l, what, cufftExecC2R, plan.handle, copy, o);
      break;
    }
  }
  if (!status.ok() || plan.scaled_reals == 0) return status;
  // Enough blocks to fill the device; the kernel strides over the rest.
  constexpr unsigned kThreads = 256;
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(
      (plan.scaled_reals + kThreads - 1) / kThreads, 4096));
  CUdeviceptr data = out;
  uint64_t count = static_cast<uint64_t>(plan.scaled_reals);
  float factor32 = static_cast<float>(plan.scale);
  double factor64 = plan.scale;
  void* args[] = {&data, &count,
                  plan.f64 ? static_cast<void*>(&factor64)
                           : static_cast<void*>(&factor32)};
  return HLOC_CUDA_CALL(driver_, what, cuLaunchKernel,
                        plan.f64 ? scale_f64_ : scale_f32_, blocks, 1, 1,
                        kThreads, 1, 1, 0, stream, args, nullptr);
}

}  // namespace cuda
}  // namespace hloc

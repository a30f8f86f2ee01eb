#include "runtime/cublas_gemm.h"

#include <dlfcn.h>

#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/primitive_type.h"
#include "runtime/cuda_timing.h"
#include "runtime/dlopen_symbols.h"

namespace hloc {
namespace cuda {
namespace {

// cublasLt.h / cublas_api.h / library_types.h ABI (CUDA 12 and 13).
using cublasStatus_t = int;
constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
using cublasLtHandle_t = void*;
using cublasLtMatmulDesc_t = void*;
using cublasLtMatrixLayout_t = void*;
using cublasLtMatmulPreference_t = void*;
struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};
// cublasComputeType_t
constexpr int CUBLAS_COMPUTE_32F = 68;
constexpr int CUBLAS_COMPUTE_64F = 70;
constexpr int CUBLAS_COMPUTE_32F_FAST_TF32 = 77;
// cudaDataType_t
constexpr int CUDA_R_32F = 0;
constexpr int CUDA_R_64F = 1;
constexpr int CUDA_R_16F = 2;
constexpr int CUDA_R_16BF = 14;
constexpr int CUDA_C_32F = 4;
constexpr int CUDA_C_64F = 5;
// cublasOperation_t
constexpr int32_t CUBLAS_OP_N = 0;
constexpr int32_t CUBLAS_OP_T = 1;
// cublasLtMatmulDescAttributes_t
constexpr int CUBLASLT_MATMUL_DESC_TRANSA = 3;
constexpr int CUBLASLT_MATMUL_DESC_TRANSB = 4;
constexpr int CUBLASLT_MATMUL_DESC_EPILOGUE = 7;
constexpr int CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8;
// cublasLtMatrixLayoutAttribute_t
constexpr int CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5;
constexpr int CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6;
// cublasLtMatmulPreferenceAttributes_t
constexpr int CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1;
// cublasLtEpilogue_t (a uint32_t attribute)
constexpr uint32_t CUBLASLT_EPILOGUE_DEFAULT = 1;
constexpr uint32_t CUBLASLT_EPILOGUE_RELU = 2;
constexpr uint32_t CUBLASLT_EPILOGUE_BIAS = 4;
constexpr uint32_t CUBLASLT_EPILOGUE_GELU = 32;

// cuBLASLt's recommended workspace on Hopper.
constexpr size_t kWorkspaceBytes = size_t{32} << 20;
// Autotuning, as XLA does for its gemms: cuBLASLt's heuristic ranks
// algorithms from the shapes alone; the fastest of its top 8 on the device
// (cuda_timing.h) is what every later call uses.
// Measured on the H100 (tools/gpu_bench/MODELS.md) it did not close the
// gap to torch's cuBLAS on the f32/bf16 transformer shapes (66-84% of its
// FLOP/s before, 63-80% after, within the spread between machines): that
// gap has another cause, still to be found. Timing the top 32 changed
// nothing either (session 10: bf16 bias + relu 649 and bias + gelu 589
// TFLOP/s at 4096^3 with 8, 640 and 592 with 32), so each gemm's first
// call times 8.
constexpr int kAutotuneCandidates = 8;

struct Epilogue {
  const char* name;
  uint32_t value;
  bool has_bias;
};
constexpr Epilogue kEpilogues[] = {
    {"", CUBLASLT_EPILOGUE_DEFAULT, false},
    {"bias", CUBLASLT_EPILOGUE_BIAS, true},
    {"relu", CUBLASLT_EPILOGUE_RELU, false},
    {"bias_relu", CUBLASLT_EPILOGUE_RELU | CUBLASLT_EPILOGUE_BIAS, true},
    {"gelu", CUBLASLT_EPILOGUE_GELU, false},
    {"bias_gelu", CUBLASLT_EPILOGUE_GELU | CUBLASLT_EPILOGUE_BIAS, true},
};

const Epilogue* FindEpilogue(const std::string& name) {
  for (const Epilogue& e : kEpilogues) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

// cudaDataType_t of an element type, or -1.
int DataType(PrimitiveType type) {
  switch (type) {
    case F32:
      return CUDA_R_32F;
    case F64:
      return CUDA_R_64F;
    case F16:
      return CUDA_R_16F;
    case BF16:
      return CUDA_R_16BF;
    case C64:
      return CUDA_C_32F;
    case C128:
      return CUDA_C_64F;
    default:
      return -1;
  }
}

// Whether a column-major rows x cols matrix with leading dimension `ld`,
// `batch` of them `stride` elements apart, lies inside `elements`.
bool MatrixFits(int64_t rows, int64_t cols, int64_t ld, int64_t batch,
                int64_t stride, int64_t elements) {
  if (rows == 0 || cols == 0) return true;
  if (ld < rows || stride < 0) return false;
  return (batch - 1) * stride + (cols - 1) * ld + rows <= elements;
}

}  // namespace

absl::Status CheckGemmStep(const Executable& executable,
                           const ExecutableStep& step,
                           const std::string& what) {
  auto fail = [&](auto&&... parts) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", parts...));
  };
  const GemmConfig& g = step.gemm;
  const Epilogue* epilogue = FindEpilogue(g.epilogue);
  if (epilogue == nullptr) return fail("unknown epilogue '", g.epilogue, "'");
  const size_t num_buffers = epilogue->has_bias ? 4 : 3;
  if (step.buffers.size() != num_buffers) {
    return fail("a gemm with epilogue '", g.epilogue, "' takes ", num_buffers,
                " buffers (lhs, rhs, ", epilogue->has_bias ? "bias, " : "",
                "out), not ", step.buffers.size());
  }
  if (g.m < 0 || g.n < 0 || g.k < 0 || g.batch < 1) {
    return fail("bad gemm sizes m=", g.m, " n=", g.n, " k=", g.k,
                " batch=", g.batch);
  }
  if (g.k == 0 && g.m * g.n > 0) {
    return fail("a gemm with k = 0 is not supported by cuBLASLt");
  }
  const bool types_ok =
      DataType(g.lhs_type) >= 0 && g.lhs_type == g.rhs_type &&
      (g.out_type == g.lhs_type ||
       (g.out_type == F32 && (g.lhs_type == BF16 || g.lhs_type == F16)));
  if (!types_ok) {
    return fail("unsupported gemm types ", PrimitiveTypeName(g.lhs_type), " x ",
                PrimitiveTypeName(g.rhs_type), " -> ",
                PrimitiveTypeName(g.out_type),
                " (cuBLASLt here: f32, f64, f16, bf16, c64, c128; 16-bit "
                "inputs may give f32)");
  }
  if (IsComplexType(g.lhs_type) && !g.epilogue.empty()) {
    return fail("a complex gemm takes no epilogue ('", g.epilogue, "')");
  }
  const ExecutableBuffer& lhs = executable.buffers[step.buffers[0]];
  const ExecutableBuffer& rhs = executable.buffers[step.buffers[1]];
  const ExecutableBuffer& out = executable.buffers[step.buffers.back()];
  struct Operand {
    const char* name;
    const ExecutableBuffer* slot;
    PrimitiveType type;
    int64_t rows, cols, ld, stride;
  };
  const Operand operands[] = {
      {"lhs", &lhs, g.lhs_type, g.transpose_lhs ? g.k : g.m,
       g.transpose_lhs ? g.m : g.k, g.lda, g.stride_lhs},
      {"rhs", &rhs, g.rhs_type, g.transpose_rhs ? g.n : g.k,
       g.transpose_rhs ? g.k : g.n, g.ldb, g.stride_rhs},
      {"out", &out, g.out_type, g.m, g.n, g.ldc, g.stride_out},
  };
  for (const Operand& o : operands) {
    if (!o.slot->shape.IsArray() || o.slot->shape.element_type() != o.type) {
      return fail("the ", o.name, " slot ", o.slot->name, " holds ",
                  o.slot->shape.ToString(), ", the gemm reads ",
                  PrimitiveTypeName(o.type));
    }
    if (!MatrixFits(o.rows, o.cols, o.ld, g.batch, o.stride,
                    o.slot->shape.ElementCount())) {
      return fail("the ", o.name, " matrix (", o.rows, "x", o.cols, ", ld ",
                  o.ld, ", batch ", g.batch, " stride ", o.stride,
                  ") does not fit its slot ", o.slot->name, " (",
                  o.slot->shape.ToString(), ")");
    }
  }
  if (epilogue->has_bias) {
    const ExecutableBuffer& bias = executable.buffers[step.buffers[2]];
    if (!bias.shape.IsArray() || bias.shape.element_type() != g.out_type ||
        bias.shape.ElementCount() < g.m) {
      return fail("the bias slot ", bias.name, " holds ", bias.shape.ToString(),
                  "; the epilogue reads ", g.m, " ",
                  PrimitiveTypeName(g.out_type), " elements");
    }
  }
  return absl::OkStatus();
}

struct CublasGemm::Library : LoadedLibrary {
  cublasStatus_t (*cublasLtCreate)(cublasLtHandle_t*) = nullptr;
  cublasStatus_t (*cublasLtDestroy)(cublasLtHandle_t) = nullptr;
  const char* (*cublasLtGetStatusName)(cublasStatus_t) = nullptr;
  cublasStatus_t (*cublasLtMatmulDescCreate)(cublasLtMatmulDesc_t*, int,
                                             int) = nullptr;
  cublasStatus_t (*cublasLtMatmulDescDestroy)(cublasLtMatmulDesc_t) = nullptr;
  cublasStatus_t (*cublasLtMatmulDescSetAttribute)(cublasLtMatmulDesc_t, int,
                                                   const void*,
                                                   size_t) = nullptr;
  cublasStatus_t (*cublasLtMatrixLayoutCreate)(cublasLtMatrixLayout_t*, int,
                                               uint64_t, uint64_t,
                                               int64_t) = nullptr;
  cublasStatus_t (*cublasLtMatrixLayoutDestroy)(cublasLtMatrixLayout_t) =
      nullptr;
  cublasStatus_t (*cublasLtMatrixLayoutSetAttribute)(cublasLtMatrixLayout_t,
                                                     int, const void*,
                                                     size_t) = nullptr;
  cublasStatus_t (*cublasLtMatmulPreferenceCreate)(
      cublasLtMatmulPreference_t*) = nullptr;
  cublasStatus_t (*cublasLtMatmulPreferenceDestroy)(
      cublasLtMatmulPreference_t) = nullptr;
  cublasStatus_t (*cublasLtMatmulPreferenceSetAttribute)(
      cublasLtMatmulPreference_t, int, const void*, size_t) = nullptr;
  cublasStatus_t (*cublasLtMatmulAlgoGetHeuristic)(
      cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
      cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
      cublasLtMatmulPreference_t, int, cublasLtMatmulHeuristicResult_t*,
      int*) = nullptr;
  cublasStatus_t (*cublasLtMatmul)(
      cublasLtHandle_t, cublasLtMatmulDesc_t, const void*, const void*,
      cublasLtMatrixLayout_t, const void*, cublasLtMatrixLayout_t, const void*,
      const void*, cublasLtMatrixLayout_t, void*, cublasLtMatrixLayout_t,
      const cublasLtMatmulAlgo_t*, void*, size_t, CUstream) = nullptr;


  // An error naming the cuBLASLt function, its status and the step.
  absl::Status Check(cublasStatus_t status, const char* function,
                     absl::string_view what) const {
    if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
    return LibraryCallError("cuBLASLt", function, status,
                            cublasLtGetStatusName != nullptr
                                ? cublasLtGetStatusName(status)
                                : nullptr,
                            what);
  }
};

struct GemmPlan {
  const CublasGemm::Library* library = nullptr;
  std::string what;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo = {};
  size_t workspace_bytes = 0;
  // The heuristic's best few algorithms, tried on the device by Autotune
  // (the first is `algo` until then).
  std::vector<std::pair<cublasLtMatmulAlgo_t, size_t>> candidates;
  bool tuned = false;
  bool has_bias = false;
  bool empty = false;  // m or n is 0: nothing to compute.
  // alpha and beta in the scale type: f64 for f64 gemms, else f32, each as
  // {re, im} for complex gemms (the imaginary parts stay 0).
  double alpha64[2] = {1, 0}, beta64[2] = {0, 0};
  float alpha32[2] = {1, 0}, beta32[2] = {0, 0};
  bool scale_f64 = false;
};

void GemmPlanDeleter::operator()(GemmPlan* plan) const {
  if (plan->library != nullptr) {
    const CublasGemm::Library& l = *plan->library;
    for (cublasLtMatrixLayout_t layout : {plan->a, plan->b, plan->c}) {
      if (layout != nullptr) l.cublasLtMatrixLayoutDestroy(layout);
    }
    if (plan->desc != nullptr) l.cublasLtMatmulDescDestroy(plan->desc);
  }
  delete plan;
}

std::string CublasGemm::DefaultLibraries() {
  return LibraryNames("HLOC_LIBCUBLASLT",
                      "libcublasLt.so.13,libcublasLt.so.12");
}

absl::StatusOr<std::unique_ptr<CublasGemm>> CublasGemm::Create(
    CudaDriver* driver) {
  absl::StatusOr<std::unique_ptr<Library>> opened =
      OpenLibraryTable<Library>(DefaultLibraries(), "cuBLASLt");
  if (!opened.ok()) return opened.status();
  std::unique_ptr<Library> library = *std::move(opened);
  Library& l = *library;
  SymbolBinder binder(l.handle);
  binder.Bind(&l.cublasLtCreate, {"cublasLtCreate"});
  binder.Bind(&l.cublasLtDestroy, {"cublasLtDestroy"});
  binder.Bind(&l.cublasLtGetStatusName, {"cublasLtGetStatusName"});
  binder.Bind(&l.cublasLtMatmulDescCreate, {"cublasLtMatmulDescCreate"});
  binder.Bind(&l.cublasLtMatmulDescDestroy, {"cublasLtMatmulDescDestroy"});
  binder.Bind(&l.cublasLtMatmulDescSetAttribute,
              {"cublasLtMatmulDescSetAttribute"});
  binder.Bind(&l.cublasLtMatrixLayoutCreate, {"cublasLtMatrixLayoutCreate"});
  binder.Bind(&l.cublasLtMatrixLayoutDestroy, {"cublasLtMatrixLayoutDestroy"});
  binder.Bind(&l.cublasLtMatrixLayoutSetAttribute,
              {"cublasLtMatrixLayoutSetAttribute"});
  binder.Bind(&l.cublasLtMatmulPreferenceCreate,
              {"cublasLtMatmulPreferenceCreate"});
  binder.Bind(&l.cublasLtMatmulPreferenceDestroy,
              {"cublasLtMatmulPreferenceDestroy"});
  binder.Bind(&l.cublasLtMatmulPreferenceSetAttribute,
              {"cublasLtMatmulPreferenceSetAttribute"});
  binder.Bind(&l.cublasLtMatmulAlgoGetHeuristic,
              {"cublasLtMatmulAlgoGetHeuristic"});
  binder.Bind(&l.cublasLtMatmul, {"cublasLtMatmul"});
  absl::Status status = binder.Check(l.name, "cuBLASLt 12 or newer");
  if (!status.ok()) return status;
  std::unique_ptr<CublasGemm> gemm(new CublasGemm());
  gemm->driver_ = driver;
  gemm->library_ = std::move(library);
  status = HLOC_LIBRARY_CALL(l, "creating a cuBLASLt handle", cublasLtCreate,
                             &gemm->handle_);
  if (!status.ok()) return status;
  status = HLOC_CUDA_CALL(driver, "allocating the cuBLASLt workspace",
                          cuMemAlloc, &gemm->workspace_, kWorkspaceBytes);
  if (!status.ok()) return status;
  return gemm;
}

CublasGemm::~CublasGemm() {
  if (workspace_ != 0) driver_->cuMemFree(workspace_);
  if (handle_ != nullptr) library_->cublasLtDestroy(handle_);
}

absl::StatusOr<GemmPlanPtr> CublasGemm::Plan(const Executable& executable,
                                             const ExecutableStep& step,
                                             const std::string& what) {
  absl::Status status = CheckGemmStep(executable, step, what);
  if (!status.ok()) return status;
  const Library& l = *library_;
  const GemmConfig& g = step.gemm;
  GemmPlanPtr plan(new GemmPlan());
  plan->library = library_.get();
  plan->what = what;
  plan->has_bias = FindEpilogue(g.epilogue)->has_bias;
  plan->empty = g.m == 0 || g.n == 0;
  if (plan->empty) return plan;
  const bool complex = IsComplexType(g.out_type);
  plan->scale_f64 = g.out_type == F64 || g.out_type == C128;
  plan->alpha64[0] = g.alpha;
  plan->beta64[0] = g.beta;
  plan->alpha32[0] = static_cast<float>(g.alpha);
  plan->beta32[0] = static_cast<float>(g.beta);
  // c64 keeps full f32 products: TF32 is XLA's default for f32 dots only.
  const int compute = plan->scale_f64 ? CUBLAS_COMPUTE_64F
                      : g.lhs_type == F32 && g.allow_tf32
                          ? CUBLAS_COMPUTE_32F_FAST_TF32
                          : CUBLAS_COMPUTE_32F;
  const int scale_type = complex ? (plan->scale_f64 ? CUDA_C_64F : CUDA_C_32F)
                                 : (plan->scale_f64 ? CUDA_R_64F : CUDA_R_32F);
  status = HLOC_LIBRARY_CALL(l, what, cublasLtMatmulDescCreate, &plan->desc,
                             compute, scale_type);
  if (!status.ok()) return status;
  const int32_t transa = g.transpose_lhs ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int32_t transb = g.transpose_rhs ? CUBLAS_OP_T : CUBLAS_OP_N;
  const uint32_t epilogue = FindEpilogue(g.epilogue)->value;
  for (auto [attribute, value, size] :
       {std::tuple{CUBLASLT_MATMUL_DESC_TRANSA,
                   static_cast<const void*>(&transa), sizeof(transa)},
        std::tuple{CUBLASLT_MATMUL_DESC_TRANSB,
                   static_cast<const void*>(&transb), sizeof(transb)},
        std::tuple{CUBLASLT_MATMUL_DESC_EPILOGUE,
                   static_cast<const void*>(&epilogue), sizeof(epilogue)}}) {
    status = HLOC_LIBRARY_CALL(l, what, cublasLtMatmulDescSetAttribute,
                               plan->desc, attribute, value, size);
    if (!status.ok()) return status;
  }
  struct Matrix {
    cublasLtMatrixLayout_t* layout;
    PrimitiveType type;
    int64_t rows, cols, ld, stride;
  };
  const Matrix matrices[] = {
      {&plan->a, g.lhs_type, g.transpose_lhs ? g.k : g.m,
       g.transpose_lhs ? g.m : g.k, g.lda, g.stride_lhs},
      {&plan->b, g.rhs_type, g.transpose_rhs ? g.n : g.k,
       g.transpose_rhs ? g.k : g.n, g.ldb, g.stride_rhs},
      {&plan->c, g.out_type, g.m, g.n, g.ldc, g.stride_out},
  };
  for (const Matrix& m : matrices) {
    status = HLOC_LIBRARY_CALL(l, what, cublasLtMatrixLayoutCreate, m.layout,
                               DataType(m.type), static_cast<uint64_t>(m.rows),
                               static_cast<uint64_t>(m.cols), m.ld);
    if (!status.ok()) return status;
    if (g.batch == 1) continue;
    const int32_t batch = static_cast<int32_t>(g.batch);
    status = HLOC_LIBRARY_CALL(l, what, cublasLtMatrixLayoutSetAttribute,
                               *m.layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                               &batch, sizeof(batch));
    if (status.ok()) {
      status = HLOC_LIBRARY_CALL(l, what, cublasLtMatrixLayoutSetAttribute,
                                 *m.layout,
                                 CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                 &m.stride, sizeof(m.stride));
    }
    if (!status.ok()) return status;
  }
  cublasLtMatmulPreference_t preference = nullptr;
  status =
      HLOC_LIBRARY_CALL(l, what, cublasLtMatmulPreferenceCreate, &preference);
  if (!status.ok()) return status;
  const uint64_t workspace = kWorkspaceBytes;
  status = HLOC_LIBRARY_CALL(
      l, what, cublasLtMatmulPreferenceSetAttribute, preference,
      CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace));
  cublasLtMatmulHeuristicResult_t results[kAutotuneCandidates] = {};
  int found = 0;
  if (status.ok()) {
    status =
        HLOC_LIBRARY_CALL(l, what, cublasLtMatmulAlgoGetHeuristic, handle_,
                          plan->desc, plan->a, plan->b, plan->c, plan->c,
                          preference, kAutotuneCandidates, results, &found);
  }
  l.cublasLtMatmulPreferenceDestroy(preference);
  if (!status.ok()) return status;
  for (int i = 0; i < found; ++i) {
    if (results[i].state != CUBLAS_STATUS_SUCCESS) continue;
    plan->candidates.emplace_back(results[i].algo, results[i].workspaceSize);
  }
  if (plan->candidates.empty()) {
    return absl::UnimplementedError(absl::StrCat(
        what, ": cuBLASLt has no algorithm for this gemm (",
        PrimitiveTypeName(g.lhs_type), " -> ", PrimitiveTypeName(g.out_type),
        ", epilogue '", g.epilogue, "', m=", g.m, " n=", g.n, " k=", g.k,
        " batch=", g.batch, ")"));
  }
  plan->algo = plan->candidates[0].first;
  plan->workspace_bytes = plan->candidates[0].second;
  plan->tuned = plan->candidates.size() == 1;
  return plan;
}

bool CublasGemm::NeedsTuning(const GemmPlan& plan) { return !plan.tuned; }

absl::Status CublasGemm::Autotune(GemmPlan* plan, CUdeviceptr lhs,
                                  CUdeviceptr rhs, CUdeviceptr bias,
                                  CUdeviceptr out, CUstream stream) const {
  if (plan->tuned || plan->empty) return absl::OkStatus();
  plan->tuned = true;
  auto use = [plan](size_t c) {
    plan->algo = plan->candidates[c].first;
    plan->workspace_bytes = plan->candidates[c].second;
  };
  absl::StatusOr<size_t> fastest = FastestCandidate(
      driver_, stream, plan->candidates.size(),
      [&](size_t c) {
        use(c);
        return Run(*plan, lhs, rhs, bias, out, stream);
      },
      plan->what);
  use(fastest.ok() ? *fastest : 0);
  return fastest.status();
}

absl::Status CublasGemm::Run(const GemmPlan& plan, CUdeviceptr lhs,
                             CUdeviceptr rhs, CUdeviceptr bias, CUdeviceptr out,
                             CUstream stream) const {
  if (plan.empty) return absl::OkStatus();
  const Library& l = *library_;
  if (plan.has_bias) {
    // The bias pointer is an attribute of the descriptor; cuBLASLt reads
    // it when the call is made (and when a graph captures it).
    void* bias_pointer = reinterpret_cast<void*>(bias);
    absl::Status status = HLOC_LIBRARY_CALL(
        l, plan.what, cublasLtMatmulDescSetAttribute, plan.desc,
        CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_pointer, sizeof(bias_pointer));
    if (!status.ok()) return status;
  }
  const void* alpha = plan.scale_f64 ? static_cast<const void*>(plan.alpha64)
                                     : static_cast<const void*>(plan.alpha32);
  const void* beta = plan.scale_f64 ? static_cast<const void*>(plan.beta64)
                                    : static_cast<const void*>(plan.beta32);
  void* c = reinterpret_cast<void*>(out);
  return HLOC_LIBRARY_CALL(l, plan.what, cublasLtMatmul, handle_, plan.desc,
                           alpha, reinterpret_cast<const void*>(lhs), plan.a,
                           reinterpret_cast<const void*>(rhs), plan.b, beta, c,
                           plan.c, c, plan.c, &plan.algo,
                           reinterpret_cast<void*>(workspace_),
                           plan.workspace_bytes, stream);
}

}  // namespace cuda
}  // namespace hloc

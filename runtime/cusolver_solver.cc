#include "runtime/cusolver_solver.h"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hlo/shape.h"
#include "runtime/dlopen_symbols.h"
#include "runtime/solver_check.h"
#include "runtime/solver_method.h"

namespace hloc {
namespace cuda {
namespace {

// cusolverDn.h's ABI: handles are pointers, statuses and modes are ints.
using Handle = void*;
using Status = int;
constexpr Status CUSOLVER_STATUS_SUCCESS = 0;
constexpr int CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1;
constexpr int CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1;
constexpr int CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2;
constexpr int CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1;
constexpr int CUSOLVER_EIG_MODE_NOVECTOR = 0, CUSOLVER_EIG_MODE_VECTOR = 1;

const char* StatusName(Status status) {
  static const char* const kNames[] = {
      "CUSOLVER_STATUS_SUCCESS",
      "CUSOLVER_STATUS_NOT_INITIALIZED",
      "CUSOLVER_STATUS_ALLOC_FAILED",
      "CUSOLVER_STATUS_INVALID_VALUE",
      "CUSOLVER_STATUS_ARCH_MISMATCH",
      "CUSOLVER_STATUS_MAPPING_ERROR",
      "CUSOLVER_STATUS_EXECUTION_FAILED",
      "CUSOLVER_STATUS_INTERNAL_ERROR",
      "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
      "CUSOLVER_STATUS_NOT_SUPPORTED"};
  if (status >= 0 && status < static_cast<int>(std::size(kNames))) {
    return kNames[status];
  }
  return "an unknown cusolverStatus_t";
}

// The batch element `b` of `buffer`, elements of `bytes` each, `count` per
// batch element.
CUdeviceptr At(CUdeviceptr buffer, int64_t b, int64_t count, int64_t bytes) {
  return buffer + static_cast<CUdeviceptr>(b * count * bytes);
}

void* Ptr(CUdeviceptr address) { return reinterpret_cast<void*>(address); }

// perm[b][i] = i, then for i < k: swap perm[b][i] and perm[b][pivots[b][i]]
// (a pivot outside [0, p) is skipped): the rows LU's swaps move to row i,
// as jaxlib's kernel computes them. One thread per batch element.
constexpr char kPivotsToPermutationPtx[] = R"(
.version 7.0
.target sm_52
.address_size 64

.visible .entry hloc_lu_pivots_to_permutation(.param .u64 pivots,
    .param .u64 perm, .param .u32 batch, .param .u32 k, .param .u32 p)
{
  .reg .pred %q<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [pivots];
  ld.param.u64 %rd2, [perm];
  ld.param.u32 %r1, [batch];
  ld.param.u32 %r2, [k];
  ld.param.u32 %r3, [p];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mov.u32 %r6, %tid.x;
  mad.lo.u32 %r7, %r4, %r5, %r6;
  setp.ge.u32 %q1, %r7, %r1;
  @%q1 bra $L_done;
  mul.wide.u32 %rd3, %r7, %r2;
  shl.b64 %rd3, %rd3, 2;
  add.u64 %rd3, %rd1, %rd3;
  mul.wide.u32 %rd4, %r7, %r3;
  shl.b64 %rd4, %rd4, 2;
  add.u64 %rd4, %rd2, %rd4;
  mov.u32 %r8, 0;
$L_init:
  setp.ge.u32 %q1, %r8, %r3;
  @%q1 bra $L_init_done;
  mul.wide.u32 %rd5, %r8, 4;
  add.u64 %rd6, %rd4, %rd5;
  st.global.u32 [%rd6], %r8;
  add.u32 %r8, %r8, 1;
  bra.uni $L_init;
$L_init_done:
  mov.u32 %r8, 0;
$L_swap:
  setp.ge.u32 %q1, %r8, %r2;
  @%q1 bra $L_done;
  mul.wide.u32 %rd5, %r8, 4;
  add.u64 %rd6, %rd3, %rd5;
  ld.global.u32 %r9, [%rd6];
  setp.ge.u32 %q2, %r9, %r3;
  @%q2 bra $L_next;
  add.u64 %rd7, %rd4, %rd5;
  mul.wide.u32 %rd8, %r9, 4;
  add.u64 %rd9, %rd4, %rd8;
  ld.global.u32 %r10, [%rd7];
  ld.global.u32 %r11, [%rd9];
  st.global.u32 [%rd7], %r11;
  st.global.u32 [%rd9], %r10;
$L_next:
  add.u32 %r8, %r8, 1;
  bra.uni $L_swap;
$L_done:
  ret;
}
)";

// The routines' type letters (cusolverDnSpotrf, cublasZgetrfBatched), in
// the order of their tables.
constexpr char kTypeLetters[] = "SDCZ";

// The element types in the order of the routines' tables: S, D, C, Z.
int TypeIndex(PrimitiveType type) {
  switch (type) {
    case F32:
      return 0;
    case F64:
      return 1;
    case C64:
      return 2;
    default:
      return 3;
  }
}

}  // namespace

std::string PivotsToPermutationPtx() { return kPivotsToPermutationPtx; }

// Data pointers are void*: the ABI of float*, double*, cuComplex* alike.
struct CusolverSolver::Library : LoadedLibrary {
  Status (*cusolverDnCreate)(Handle*) = nullptr;
  Status (*cusolverDnDestroy)(Handle) = nullptr;
  Status (*cusolverDnSetStream)(Handle, CUstream) = nullptr;
  Status (*cusolverDnCreateGesvdjInfo)(void**) = nullptr;
  Status (*cusolverDnDestroyGesvdjInfo)(void*) = nullptr;
  Status (*cusolverDnCreateSyevjInfo)(void**) = nullptr;
  Status (*cusolverDnDestroySyevjInfo)(void*) = nullptr;
  // Per type, S D C Z.
  Status (*potrf_size[4])(Handle, int, int, void*, int, int*) = {};
  Status (*potrf[4])(Handle, int, int, void*, int, void*, int, void*) = {};
  Status (*getrf_size[4])(Handle, int, int, void*, int, int*) = {};
  Status (*getrf[4])(Handle, int, int, void*, int, void*, void*, void*) = {};
  Status (*geqrf_size[4])(Handle, int, int, void*, int, int*) = {};
  Status (*geqrf[4])(Handle, int, int, void*, int, void*, void*, int,
                     void*) = {};
  Status (*orgqr_size[4])(Handle, int, int, int, const void*, int, const void*,
                          int*) = {};
  Status (*orgqr[4])(Handle, int, int, int, void*, int, const void*, void*, int,
                     void*) = {};
  Status (*syevd_size[4])(Handle, int, int, int, const void*, int, const void*,
                          int*) = {};
  Status (*syevd[4])(Handle, int, int, int, void*, int, void*, void*, int,
                     void*) = {};
  Status (*gesvdj_size[4])(Handle, int, int, int, int, const void*, int,
                           const void*, const void*, int, const void*, int,
                           int*, void*) = {};
  Status (*gesvdj[4])(Handle, int, int, int, int, void*, int, void*, void*, int,
                      void*, int, void*, int, void*, void*) = {};
  // The Jacobi and batched routines of solver_method.h.
  Status (*syevj_size[4])(Handle, int, int, int, const void*, int, const void*,
                          int*, void*) = {};
  Status (*syevj[4])(Handle, int, int, int, void*, int, void*, void*, int,
                     void*, void*) = {};
  Status (*syevj_batched_size[4])(Handle, int, int, int, const void*, int,
                                  const void*, int*, void*, int) = {};
  Status (*syevj_batched[4])(Handle, int, int, int, void*, int, void*, void*,
                             int, void*, void*, int) = {};
  Status (*gesvdj_batched_size[4])(Handle, int, int, int, const void*, int,
                                   const void*, const void*, int, const void*,
                                   int, int*, void*, int) = {};
  Status (*gesvdj_batched[4])(Handle, int, int, int, void*, int, void*, void*,
                              int, void*, int, void*, int, void*, void*,
                              int) = {};
  Status (*potrf_batched[4])(Handle, int, int, void**, int, void*, int) = {};

  // An error naming the cuSOLVER function, its status and the step.
  absl::Status Check(Status status, const char* function,
                     absl::string_view what) const {
    if (status == CUSOLVER_STATUS_SUCCESS) return absl::OkStatus();
    return LibraryCallError("cuSOLVER", function, status, StatusName(status),
                            what);
  }
};

// cuBLAS's batched LU and QR (getrfBatched, geqrfBatched: solver_method.h's
// kBatched getrf and geqrf steps), loaded beside cuSOLVER where it is
// found; without it those steps factor matrix by matrix. Its triangular
// solves (trsm, trsmBatched) run the cublas.trsm steps, which have no other
// way.
struct CusolverSolver::BlasLibrary : LoadedLibrary {
  Status (*cublasCreate)(Handle*) = nullptr;
  Status (*cublasDestroy)(Handle) = nullptr;
  Status (*cublasSetStream)(Handle, CUstream) = nullptr;
  // Per type, S D C Z: (handle, n, A[], lda, pivots, info, batch).
  Status (*getrf_batched[4])(Handle, int, void* const*, int, void*, void*,
                             int) = {};
  // (handle, m, n, A[], lda, tau[], host info, batch).
  Status (*geqrf_batched[4])(Handle, int, int, void* const*, int, void* const*,
                             int*, int) = {};
  // (handle, side, uplo, trans, diag, m, n, host alpha, A, lda, B, ldb).
  Status (*trsm[4])(Handle, int, int, int, int, int, int, const void*,
                    const void*, int, void*, int) = {};
  // The same on arrays of A's and B's addresses, then the batch.
  Status (*trsm_batched[4])(Handle, int, int, int, int, int, int, const void*,
                            const void* const*, int, void* const*, int,
                            int) = {};

  absl::Status Check(Status status, const char* function,
                     absl::string_view what) const {
    if (status == 0) return absl::OkStatus();  // CUBLAS_STATUS_SUCCESS
    return LibraryCallError("cuBLAS", function, status, nullptr, what);
  }
};

struct SolverPlan {
  const CusolverSolver::Library* library = nullptr;
  CudaDriver* driver = nullptr;
  std::string what;
  SolverRoutine routine = SolverRoutine::kPotrf;
  int type = 0;  // TypeIndex
  int64_t element_bytes = 0, real_bytes = 0;
  int64_t batch = 0, m = 0, n = 0;
  // orgqr: the reflectors; gesvdj: the columns of U and V; permutation:
  // the pivots and the permutation's length.
  int64_t k = 0, columns_u = 0, columns_v = 0;
  int uplo = CUBLAS_FILL_MODE_LOWER;
  int jobz = CUSOLVER_EIG_MODE_VECTOR;
  // trsm (RunTrsm): cuBLAS's side, trans and diag; m and n are b's rows
  // and columns, k a's order.
  int side = CUBLAS_SIDE_LEFT, trans = CUBLAS_OP_N, diag = CUBLAS_DIAG_NON_UNIT;
  bool econ = false;
  SolverMethod method = SolverMethod::kPerMatrix;
  // Bytes of each slot, operands then results.
  std::vector<int64_t> bytes;
  // cuSOLVER's workspace (elements of the type) and a devInfo for the
  // routines whose result has none.
  CUdeviceptr workspace = 0;
  int64_t workspace_bytes = 0;
  CUdeviceptr scratch_info = 0;
  // orgqr: a copy of tau where the buffer plan put q over it.
  CUdeviceptr tau_copy = 0;
  void* gesvdj_params = nullptr;
  void* syevj_params = nullptr;
  // Batched potrf, getrf and geqrf take arrays of the matrices' (and
  // geqrf's tau vectors') addresses on the device: `pointers`, copied
  // from `host_pointers` and copied again when a run's buffers move (as
  // RunOnDevice's do).
  CUdeviceptr pointers = 0;
  std::vector<CUdeviceptr> host_pointers;
  // A batched thin SVD: gesvdjBatched's full U and V, whose first k
  // columns (a prefix of each column-major matrix) are the thin factors.
  CUdeviceptr full_vectors = 0;
};

void SolverPlanDeleter::operator()(SolverPlan* plan) const {
  if (plan->workspace != 0) plan->driver->cuMemFree(plan->workspace);
  if (plan->scratch_info != 0) plan->driver->cuMemFree(plan->scratch_info);
  if (plan->tau_copy != 0) plan->driver->cuMemFree(plan->tau_copy);
  if (plan->pointers != 0) plan->driver->cuMemFree(plan->pointers);
  if (plan->full_vectors != 0) plan->driver->cuMemFree(plan->full_vectors);
  if (plan->gesvdj_params != nullptr) {
    plan->library->cusolverDnDestroyGesvdjInfo(plan->gesvdj_params);
  }
  if (plan->syevj_params != nullptr) {
    plan->library->cusolverDnDestroySyevjInfo(plan->syevj_params);
  }
  delete plan;
}

namespace {

// Grows the plan's workspace to `lwork` elements of its type (at least one).
absl::Status EnsureWorkspace(SolverPlan* plan, int lwork) {
  const int64_t bytes = std::max<int64_t>(lwork, 1) * plan->element_bytes;
  if (bytes <= plan->workspace_bytes) return absl::OkStatus();
  CudaDriver* d = plan->driver;
  if (plan->workspace != 0) {
    absl::Status status =
        HLOC_CUDA_CALL(d, plan->what, cuMemFree, plan->workspace);
    plan->workspace = 0;
    plan->workspace_bytes = 0;
    if (!status.ok()) return status;
  }
  absl::Status status = HLOC_CUDA_CALL(
      d, plan->what, cuMemAlloc, &plan->workspace, static_cast<size_t>(bytes));
  if (status.ok()) plan->workspace_bytes = bytes;
  return status;
}

// A batch's array of addresses: the first at `base`, `stride` bytes apart.
struct BatchArray {
  CUdeviceptr base;
  int64_t stride;
};

// Points plan->pointers at `arrays`' batch elements, one array after
// another, unless it already does. A step's strides are fixed, so each
// array's first address says whether it moved; run after run nothing is
// rebuilt. The host copy stays in the plan, so it outlives the
// asynchronous copy.
absl::Status WriteBatchPointers(SolverPlan* plan,
                                std::initializer_list<BatchArray> arrays,
                                CUstream stream) {
  const size_t batch = static_cast<size_t>(plan->batch);
  std::vector<CUdeviceptr>& pointers = plan->host_pointers;
  bool current = pointers.size() == arrays.size() * batch;
  for (size_t k = 0; current && k < arrays.size(); ++k) {
    current = pointers[k * batch] == arrays.begin()[k].base;
  }
  if (current) return absl::OkStatus();
  pointers.clear();
  for (const BatchArray& array : arrays) {
    for (int64_t b = 0; b < plan->batch; ++b) {
      pointers.push_back(array.base +
                         static_cast<CUdeviceptr>(b * array.stride));
    }
  }
  absl::Status status = HLOC_CUDA_CALL(
      plan->driver, plan->what, cuMemcpyHtoDAsync, plan->pointers,
      pointers.data(), pointers.size() * sizeof(CUdeviceptr), stream);
  if (!status.ok()) pointers.clear();
  return status;
}

// The first `columns` columns of each of the batch's column-major
// rows x `full_columns` matrices at `from`, packed at `to`: one 2D copy, a
// row per matrix.
absl::Status CopyLeadingColumns(SolverPlan* plan, CUdeviceptr from,
                                int64_t rows, int64_t full_columns,
                                CUdeviceptr to, int64_t columns,
                                CUstream stream) {
  const size_t eb = static_cast<size_t>(plan->element_bytes);
  CUDA_MEMCPY2D copy;
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = from;
  copy.srcPitch = static_cast<size_t>(rows * full_columns) * eb;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = to;
  copy.dstPitch = static_cast<size_t>(rows * columns) * eb;
  copy.WidthInBytes = copy.dstPitch;
  copy.Height = static_cast<size_t>(plan->batch);
  return HLOC_CUDA_CALL(plan->driver, plan->what, cuMemcpy2DAsync, &copy,
                        stream);
}

}  // namespace

absl::Status CheckSolverStep(const Executable& executable,
                             const ExecutableStep& step,
                             const std::string& what) {
  std::optional<SolverRoutine> routine = SolverRoutineOfLibrary(step.library);
  if (!routine.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": '", step.library, "' is no cuSOLVER routine"));
  }
  std::vector<Shape> shapes;
  for (int64_t slot : step.buffers) {
    if (slot < 0 || slot >= static_cast<int64_t>(executable.buffers.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": buffer slot ", slot, " out of range"));
    }
    shapes.push_back(executable.buffers[slot].shape);
  }
  absl::Status status =
      CheckSolverShapes(*routine, step.library_config, shapes);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", status.message()));
  }
  for (const Shape& shape : shapes) {
    for (int64_t d : shape.dimensions()) {
      if (d > INT_MAX / 2) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": ", shape.ToString(),
                         " is too large for cuSOLVER's int "
                         "sizes"));
      }
    }
  }
  return absl::OkStatus();
}

std::string CusolverSolver::DefaultLibraries() {
  return LibraryNames("HLOC_LIBCUSOLVER",
                      "libcusolver.so.12,libcusolver.so.11");
}

absl::StatusOr<std::unique_ptr<CusolverSolver>> CusolverSolver::Create(
    CudaDriver* driver) {
  absl::StatusOr<std::unique_ptr<Library>> opened =
      OpenLibraryTable<Library>(DefaultLibraries(), "cuSOLVER");
  if (!opened.ok()) return opened.status();
  std::unique_ptr<Library> library = *std::move(opened);
  Library& l = *library;
  SymbolBinder binder(l.handle);
  binder.Bind(&l.cusolverDnCreate, {"cusolverDnCreate"});
  binder.Bind(&l.cusolverDnDestroy, {"cusolverDnDestroy"});
  binder.Bind(&l.cusolverDnSetStream, {"cusolverDnSetStream"});
  binder.Bind(&l.cusolverDnCreateGesvdjInfo, {"cusolverDnCreateGesvdjInfo"});
  binder.Bind(&l.cusolverDnDestroyGesvdjInfo, {"cusolverDnDestroyGesvdjInfo"});
  binder.Bind(&l.cusolverDnCreateSyevjInfo, {"cusolverDnCreateSyevjInfo"});
  binder.Bind(&l.cusolverDnDestroySyevjInfo, {"cusolverDnDestroySyevjInfo"});
  for (int t = 0; t < 4; ++t) {
    const bool complex = t >= 2;
    // `*function` is cusolverDn<type letter><routine><suffix>.
    auto bind = [&](auto* function, const char* routine,
                    const char* suffix = "") {
      const std::string symbol = absl::StrCat(
          "cusolverDn", std::string(1, kTypeLetters[t]), routine, suffix);
      binder.Bind(function, {symbol.c_str()});
    };
    bind(&l.potrf_size[t], "potrf", "_bufferSize");
    bind(&l.potrf[t], "potrf");
    bind(&l.getrf_size[t], "getrf", "_bufferSize");
    bind(&l.getrf[t], "getrf");
    bind(&l.geqrf_size[t], "geqrf", "_bufferSize");
    bind(&l.geqrf[t], "geqrf");
    bind(&l.orgqr_size[t], complex ? "ungqr" : "orgqr", "_bufferSize");
    bind(&l.orgqr[t], complex ? "ungqr" : "orgqr");
    bind(&l.syevd_size[t], complex ? "heevd" : "syevd", "_bufferSize");
    bind(&l.syevd[t], complex ? "heevd" : "syevd");
    bind(&l.gesvdj_size[t], "gesvdj", "_bufferSize");
    bind(&l.gesvdj[t], "gesvdj");
    bind(&l.syevj_size[t], complex ? "heevj" : "syevj", "_bufferSize");
    bind(&l.syevj[t], complex ? "heevj" : "syevj");
    bind(&l.syevj_batched_size[t], complex ? "heevjBatched" : "syevjBatched",
         "_bufferSize");
    bind(&l.syevj_batched[t], complex ? "heevjBatched" : "syevjBatched");
    bind(&l.gesvdj_batched_size[t], "gesvdjBatched", "_bufferSize");
    bind(&l.gesvdj_batched[t], "gesvdjBatched");
    bind(&l.potrf_batched[t], "potrfBatched");
  }
  absl::Status status = binder.Check(l.name, "cuSOLVER 11 or newer");
  if (!status.ok()) return status;
  std::unique_ptr<CusolverSolver> solver(new CusolverSolver());
  solver->driver_ = driver;
  solver->library_ = std::move(library);
  const std::string what = "starting cuSOLVER";
  status = HLOC_LIBRARY_CALL(l, what, cusolverDnCreate, &solver->handle_);
  if (!status.ok()) return status;
  const std::string ptx = PivotsToPermutationPtx();
  status = HLOC_CUDA_CALL(driver, what, cuModuleLoadDataEx, &solver->module_,
                          ptx.c_str(), 0, nullptr, nullptr);
  if (!status.ok()) return status;
  status =
      HLOC_CUDA_CALL(driver, what, cuModuleGetFunction, &solver->permutation_,
                     solver->module_, "hloc_lu_pivots_to_permutation");
  if (!status.ok()) return status;
  solver->blas_ = OpenBlas();
  if (solver->blas_ != nullptr &&
      !HLOC_LIBRARY_CALL(*solver->blas_, what, cublasCreate,
                         &solver->blas_handle_)
           .ok()) {
    solver->blas_.reset();
  }
  return solver;
}

std::string CusolverSolver::DefaultBlasLibraries() {
  return LibraryNames("HLOC_LIBCUBLAS", "libcublas.so.13,libcublas.so.12");
}

// cuBLAS is optional: a machine without it (or with one lacking a symbol)
// factors batched LUs and QRs matrix by matrix, as the step's plan then
// says; a triangular solve there is an error naming the library.
std::unique_ptr<CusolverSolver::BlasLibrary> CusolverSolver::OpenBlas() {
  absl::StatusOr<std::unique_ptr<BlasLibrary>> opened =
      OpenLibraryTable<BlasLibrary>(DefaultBlasLibraries(), "cuBLAS");
  if (!opened.ok()) return nullptr;
  BlasLibrary& b = **opened;
  SymbolBinder binder(b.handle);
  binder.Bind(&b.cublasCreate, {"cublasCreate_v2"});
  binder.Bind(&b.cublasDestroy, {"cublasDestroy_v2"});
  binder.Bind(&b.cublasSetStream, {"cublasSetStream_v2"});
  for (int t = 0; t < 4; ++t) {
    const std::string type(1, kTypeLetters[t]);
    const std::string getrf = absl::StrCat("cublas", type, "getrfBatched");
    const std::string geqrf = absl::StrCat("cublas", type, "geqrfBatched");
    const std::string trsm = absl::StrCat("cublas", type, "trsm_v2");
    const std::string trsm_batched =
        absl::StrCat("cublas", type, "trsmBatched");
    binder.Bind(&b.getrf_batched[t], {getrf.c_str()});
    binder.Bind(&b.geqrf_batched[t], {geqrf.c_str()});
    binder.Bind(&b.trsm[t], {trsm.c_str()});
    binder.Bind(&b.trsm_batched[t], {trsm_batched.c_str()});
  }
  if (!binder.Check(b.name, "cuBLAS 11 or newer").ok()) return nullptr;
  return *std::move(opened);
}

CusolverSolver::~CusolverSolver() {
  if (blas_handle_ != nullptr) blas_->cublasDestroy(blas_handle_);
  if (handle_ != nullptr) library_->cusolverDnDestroy(handle_);
  if (module_ != nullptr) driver_->cuModuleUnload(module_);
}

absl::StatusOr<SolverPlanPtr> CusolverSolver::Plan(const Executable& executable,
                                                   const ExecutableStep& step,
                                                   const std::string& what) {
  absl::Status status = CheckSolverStep(executable, step, what);
  if (!status.ok()) return status;
  SolverPlanPtr plan(new SolverPlan());
  plan->library = library_.get();
  plan->driver = driver_;
  plan->what = what;
  plan->routine = *SolverRoutineOfLibrary(step.library);
  for (int64_t slot : step.buffers) {
    plan->bytes.push_back(executable.buffers[slot].size);
  }
  const Shape& a = executable.buffers[step.buffers[0]].shape;
  const LibraryConfig& c = step.library_config;
  plan->uplo = c.uplo == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  plan->jobz =
      c.mode == 'N' ? CUSOLVER_EIG_MODE_NOVECTOR : CUSOLVER_EIG_MODE_VECTOR;
  plan->econ = c.econ;
  if (plan->routine == SolverRoutine::kPivotsToPermutation) {
    const Shape& perm = executable.buffers[step.buffers[1]].shape;
    plan->k = a.dimensions(a.rank() - 1);
    plan->n = perm.dimensions(perm.rank() - 1);
    plan->batch = a.ElementCount() / std::max<int64_t>(plan->k, 1);
    if (plan->k == 0)
      plan->batch = perm.ElementCount() / std::max<int64_t>(plan->n, 1);
    return plan;
  }
  if (plan->routine == SolverRoutine::kTrsm) {
    status = PlanTrsm(executable, step, plan.get());
    if (!status.ok()) return status;
    return plan;
  }
  plan->type = TypeIndex(a.element_type());
  plan->element_bytes = ByteWidth(a.element_type());
  plan->real_bytes = ByteWidth(ComplexComponentType(a.element_type()));
  plan->m = a.dimensions(a.rank() - 2);
  plan->n = a.dimensions(a.rank() - 1);
  plan->batch = 1;
  for (int64_t d = 0; d + 2 < a.rank(); ++d) plan->batch *= a.dimensions(d);
  const int64_t k = std::min(plan->m, plan->n);
  if (plan->routine == SolverRoutine::kOrgqr) {
    const Shape& tau = executable.buffers[step.buffers[1]].shape;
    plan->k = tau.dimensions(tau.rank() - 1);
  }
  plan->method =
      ChooseSolverMethod(plan->routine, plan->batch, plan->m, plan->n, c);
  if ((plan->routine == SolverRoutine::kGetrf ||
       plan->routine == SolverRoutine::kGeqrf) &&
      plan->method == SolverMethod::kBatched && blas_ == nullptr) {
    plan->method = SolverMethod::kPerMatrix;
  }
  const bool work = plan->batch > 0 && plan->m > 0 && plan->n > 0;
  if (plan->routine == SolverRoutine::kGesvdj && work) {
    plan->columns_u = c.econ ? k : plan->m;
    plan->columns_v = c.econ ? k : plan->n;
    status = HLOC_LIBRARY_CALL(*library_, what, cusolverDnCreateGesvdjInfo,
                               &plan->gesvdj_params);
    if (!status.ok()) return status;
  }
  if (plan->routine == SolverRoutine::kSyevd &&
      plan->method != SolverMethod::kPerMatrix && work) {
    status = HLOC_LIBRARY_CALL(*library_, what, cusolverDnCreateSyevjInfo,
                               &plan->syevj_params);
    if (!status.ok()) return status;
  }
  if (plan->routine == SolverRoutine::kGesvdj &&
      plan->method == SolverMethod::kBatched && c.econ && work) {
    const int64_t bytes = plan->batch * plan->element_bytes *
                          (plan->m * plan->m + plan->n * plan->n);
    status = HLOC_CUDA_CALL(driver_, what, cuMemAlloc, &plan->full_vectors,
                            static_cast<size_t>(bytes));
    if (!status.ok()) return status;
  }
  if (plan->method == SolverMethod::kBatched && work &&
      plan->routine != SolverRoutine::kSyevd &&
      plan->routine != SolverRoutine::kGesvdj) {
    // One array of matrices; geqrf's tau vectors are a second.
    const size_t arrays = plan->routine == SolverRoutine::kGeqrf ? 2 : 1;
    status = HLOC_CUDA_CALL(
        driver_, what, cuMemAlloc, &plan->pointers,
        arrays * static_cast<size_t>(plan->batch) * sizeof(CUdeviceptr));
    if (!status.ok()) return status;
  }
  if (plan->routine == SolverRoutine::kGeqrf ||
      plan->routine == SolverRoutine::kOrgqr) {
    status = HLOC_CUDA_CALL(driver_, what, cuMemAlloc, &plan->scratch_info,
                            sizeof(int));
    if (!status.ok()) return status;
  }
  return plan;
}

absl::Status CusolverSolver::Run(SolverPlan* plan,
                                 const std::vector<CUdeviceptr>& buffers,
                                 CUstream stream) {
  const Library& l = *library_;
  const std::string& what = plan->what;
  CudaDriver* d = driver_;
  const int t = plan->type;
  const int64_t batch = plan->batch, m = plan->m, n = plan->n;
  const int mi = static_cast<int>(m), ni = static_cast<int>(n);
  const int lda = std::max(mi, 1);
  if (plan->routine == SolverRoutine::kPivotsToPermutation) {
    if (batch == 0 || plan->n == 0) return absl::OkStatus();
    constexpr unsigned kThreads = 128;
    CUdeviceptr pivots = buffers[0], perm = buffers[1];
    unsigned batch_u = static_cast<unsigned>(batch);
    unsigned k_u = static_cast<unsigned>(plan->k);
    unsigned p_u = static_cast<unsigned>(plan->n);
    void* args[] = {&pivots, &perm, &batch_u, &k_u, &p_u};
    return HLOC_CUDA_CALL(d, what, cuLaunchKernel, permutation_,
                          (batch_u + kThreads - 1) / kThreads, 1, 1, kThreads,
                          1, 1, 0, stream, args, nullptr);
  }
  if (plan->routine == SolverRoutine::kTrsm) {
    return RunTrsm(plan, buffers, stream);
  }
  // The factorisations work in the result that JAX aliases with operand 0.
  const size_t operands = plan->routine == SolverRoutine::kOrgqr ? 2 : 1;
  const CUdeviceptr a = buffers[operands];
  absl::Status status;
  // orgqr reads tau after q is written: where the buffer plan put q over
  // tau (tau dies here), tau is read from a copy.
  CUdeviceptr tau = operands == 2 ? buffers[1] : 0;
  const int64_t q_bytes = plan->bytes[operands];
  if (operands == 2 && plan->bytes[1] > 0 && tau < a + q_bytes &&
      a < tau + plan->bytes[1]) {
    if (plan->tau_copy == 0) {
      status = HLOC_CUDA_CALL(d, what, cuMemAlloc, &plan->tau_copy,
                              static_cast<size_t>(plan->bytes[1]));
      if (!status.ok()) return status;
    }
    status = HLOC_CUDA_CALL(d, what, cuMemcpyDtoDAsync, plan->tau_copy, tau,
                            static_cast<size_t>(plan->bytes[1]), stream);
    if (!status.ok()) return status;
    tau = plan->tau_copy;
  }
  if (a != buffers[0] && plan->bytes[0] > 0) {
    status = HLOC_CUDA_CALL(d, what, cuMemcpyDtoDAsync, a, buffers[0],
                            static_cast<size_t>(plan->bytes[0]), stream);
    if (!status.ok()) return status;
  }
  // The info result, where the routine has one: zero when nothing is
  // factored.
  std::optional<size_t> info_slot;
  switch (plan->routine) {
    case SolverRoutine::kPotrf:
      info_slot = 2;
      break;
    case SolverRoutine::kGetrf:
    case SolverRoutine::kSyevd:
      info_slot = 3;
      break;
    case SolverRoutine::kGesvdj:
      info_slot = 5;
      break;
    default:
      break;
  }
  if (batch == 0) return absl::OkStatus();
  if (m == 0 || n == 0) {
    if (info_slot.has_value()) {
      status = HLOC_CUDA_CALL(d, what, cuMemsetD32Async, buffers[*info_slot],
                              0u, static_cast<size_t>(batch), stream);
    }
    return status;
  }
  status = HLOC_LIBRARY_CALL(l, what, cusolverDnSetStream, handle_, stream);
  if (!status.ok()) return status;
  if (plan->method == SolverMethod::kBatched) {
    return RunBatched(plan, buffers, a, stream);
  }
  const int64_t eb = plan->element_bytes, rb = plan->real_bytes;
  const int64_t k = std::min(m, n);
  const bool jacobi = plan->method == SolverMethod::kJacobiPerMatrix;
  // cuSOLVER's workspace for this step, the same for every batch element.
  int lwork = 0;
  switch (plan->routine) {
    case SolverRoutine::kPotrf:
      status = HLOC_LIBRARY_CALL(l, what, potrf_size[t], handle_, plan->uplo,
                                 ni, Ptr(a), lda, &lwork);
      break;
    case SolverRoutine::kGetrf:
      status = HLOC_LIBRARY_CALL(l, what, getrf_size[t], handle_, mi, ni,
                                 Ptr(a), lda, &lwork);
      break;
    case SolverRoutine::kGeqrf:
      status = HLOC_LIBRARY_CALL(l, what, geqrf_size[t], handle_, mi, ni,
                                 Ptr(a), lda, &lwork);
      break;
    case SolverRoutine::kOrgqr:
      status = HLOC_LIBRARY_CALL(l, what, orgqr_size[t], handle_, mi, ni,
                                 static_cast<int>(plan->k), Ptr(a), lda,
                                 Ptr(tau), &lwork);
      break;
    case SolverRoutine::kSyevd:
      status = jacobi ? HLOC_LIBRARY_CALL(l, what, syevj_size[t], handle_,
                                          plan->jobz, plan->uplo, ni, Ptr(a),
                                          lda, Ptr(buffers[2]), &lwork,
                                          plan->syevj_params)
                      : HLOC_LIBRARY_CALL(l, what, syevd_size[t], handle_,
                                          plan->jobz, plan->uplo, ni, Ptr(a),
                                          lda, Ptr(buffers[2]), &lwork);
      break;
    case SolverRoutine::kGesvdj:
      status = HLOC_LIBRARY_CALL(
          l, what, gesvdj_size[t], handle_, plan->jobz, plan->econ ? 1 : 0, mi,
          ni, Ptr(a), lda, Ptr(buffers[2]), Ptr(buffers[3]), lda,
          Ptr(buffers[4]), std::max(ni, 1), &lwork, plan->gesvdj_params);
      break;
    case SolverRoutine::kPivotsToPermutation:
      break;
  }
  if (!status.ok()) return status;
  status = EnsureWorkspace(plan, lwork);
  if (!status.ok()) return status;
  void* work = Ptr(plan->workspace);
  for (int64_t b = 0; b < batch && status.ok(); ++b) {
    void* ab = Ptr(At(a, b, m * n, eb));
    switch (plan->routine) {
      case SolverRoutine::kPotrf:
        status =
            HLOC_LIBRARY_CALL(l, what, potrf[t], handle_, plan->uplo, ni, ab,
                              lda, work, lwork, Ptr(At(buffers[2], b, 1, 4)));
        break;
      case SolverRoutine::kGetrf:
        status = HLOC_LIBRARY_CALL(l, what, getrf[t], handle_, mi, ni, ab, lda,
                                   work, Ptr(At(buffers[2], b, k, 4)),
                                   Ptr(At(buffers[3], b, 1, 4)));
        break;
      case SolverRoutine::kGeqrf:
        status = HLOC_LIBRARY_CALL(l, what, geqrf[t], handle_, mi, ni, ab, lda,
                                   Ptr(At(buffers[2], b, k, eb)), work, lwork,
                                   Ptr(plan->scratch_info));
        break;
      case SolverRoutine::kOrgqr:
        status = HLOC_LIBRARY_CALL(l, what, orgqr[t], handle_, mi, ni,
                                   static_cast<int>(plan->k), ab, lda,
                                   Ptr(At(tau, b, plan->k, eb)), work, lwork,
                                   Ptr(plan->scratch_info));
        break;
      case SolverRoutine::kSyevd:
        status =
            jacobi ? HLOC_LIBRARY_CALL(
                         l, what, syevj[t], handle_, plan->jobz, plan->uplo, ni,
                         ab, lda, Ptr(At(buffers[2], b, n, rb)), work, lwork,
                         Ptr(At(buffers[3], b, 1, 4)), plan->syevj_params)
                   : HLOC_LIBRARY_CALL(l, what, syevd[t], handle_, plan->jobz,
                                       plan->uplo, ni, ab, lda,
                                       Ptr(At(buffers[2], b, n, rb)), work,
                                       lwork, Ptr(At(buffers[3], b, 1, 4)));
        break;
      case SolverRoutine::kGesvdj:
        status = HLOC_LIBRARY_CALL(
            l, what, gesvdj[t], handle_, plan->jobz, plan->econ ? 1 : 0, mi, ni,
            ab, lda, Ptr(At(buffers[2], b, k, rb)),
            Ptr(At(buffers[3], b, m * plan->columns_u, eb)), lda,
            Ptr(At(buffers[4], b, n * plan->columns_v, eb)), std::max(ni, 1),
            work, lwork, Ptr(At(buffers[5], b, 1, 4)), plan->gesvdj_params);
        break;
      case SolverRoutine::kPivotsToPermutation:
        break;
    }
  }
  return status;
}

// One call for the batch (solver_method.h's kBatched): the matrices lie one
// after another in `a`, as the batched Jacobi routines take them; potrf's
// and getrf's batched routines take their addresses instead.
absl::Status CusolverSolver::RunBatched(SolverPlan* plan,
                                        const std::vector<CUdeviceptr>& buffers,
                                        CUdeviceptr a, CUstream stream) {
  const Library& l = *library_;
  const std::string& what = plan->what;
  const int t = plan->type;
  // ChooseSolverMethod batches only batches that fit an int.
  const int batch = static_cast<int>(plan->batch);
  const int mi = static_cast<int>(plan->m), ni = static_cast<int>(plan->n);
  const int lda = std::max(mi, 1), ldv = std::max(ni, 1);
  const int64_t matrix_bytes = plan->m * plan->n * plan->element_bytes;
  absl::Status status;
  int lwork = 0;
  switch (plan->routine) {
    case SolverRoutine::kPotrf:
      status = WriteBatchPointers(plan, {{a, matrix_bytes}}, stream);
      if (!status.ok()) return status;
      return HLOC_LIBRARY_CALL(l, what, potrf_batched[t], handle_, plan->uplo,
                               ni, reinterpret_cast<void**>(plan->pointers),
                               lda, Ptr(buffers[2]), batch);
    case SolverRoutine::kGetrf:
      status = WriteBatchPointers(plan, {{a, matrix_bytes}}, stream);
      if (!status.ok()) return status;
      status = HLOC_LIBRARY_CALL(*blas_, what, cublasSetStream, blas_handle_,
                                 stream);
      if (!status.ok()) return status;
      return HLOC_LIBRARY_CALL(*blas_, what, getrf_batched[t], blas_handle_, ni,
                               reinterpret_cast<void* const*>(plan->pointers),
                               lda, Ptr(buffers[2]), Ptr(buffers[3]), batch);
    case SolverRoutine::kGeqrf: {
      const int64_t tau_bytes =
          std::min(plan->m, plan->n) * plan->element_bytes;
      status = WriteBatchPointers(
          plan, {{a, matrix_bytes}, {buffers[2], tau_bytes}}, stream);
      if (status.ok()) {
        status = HLOC_LIBRARY_CALL(*blas_, what, cublasSetStream, blas_handle_,
                                   stream);
      }
      if (!status.ok()) return status;
      // cuBLAS reports only bad arguments here, on the host.
      int info = 0;
      const auto* arrays = reinterpret_cast<void* const*>(plan->pointers);
      status =
          HLOC_LIBRARY_CALL(*blas_, what, geqrf_batched[t], blas_handle_, mi,
                            ni, arrays, lda, arrays + batch, &info, batch);
      if (status.ok() && info != 0) {
        return absl::InternalError(absl::StrCat(
            what, ": cuBLAS geqrfBatched rejected argument ", -info));
      }
      return status;
    }
    case SolverRoutine::kSyevd:
      status = HLOC_LIBRARY_CALL(
          l, what, syevj_batched_size[t], handle_, plan->jobz, plan->uplo, ni,
          Ptr(a), lda, Ptr(buffers[2]), &lwork, plan->syevj_params, batch);
      if (status.ok()) status = EnsureWorkspace(plan, lwork);
      if (!status.ok()) return status;
      return HLOC_LIBRARY_CALL(l, what, syevj_batched[t], handle_, plan->jobz,
                               plan->uplo, ni, Ptr(a), lda, Ptr(buffers[2]),
                               Ptr(plan->workspace), lwork, Ptr(buffers[3]),
                               plan->syevj_params, batch);
    case SolverRoutine::kGesvdj: {
      // A thin SVD's vectors go to full_vectors first.
      const int64_t eb = plan->element_bytes;
      const CUdeviceptr u = plan->econ ? plan->full_vectors : buffers[3];
      const CUdeviceptr v =
          plan->econ ? plan->full_vectors + plan->batch * plan->m * plan->m * eb
                     : buffers[4];
      status = HLOC_LIBRARY_CALL(l, what, gesvdj_batched_size[t], handle_,
                                 plan->jobz, mi, ni, Ptr(a), lda,
                                 Ptr(buffers[2]), Ptr(u), lda, Ptr(v), ldv,
                                 &lwork, plan->gesvdj_params, batch);
      if (status.ok()) status = EnsureWorkspace(plan, lwork);
      if (status.ok()) {
        status =
            HLOC_LIBRARY_CALL(l, what, gesvdj_batched[t], handle_, plan->jobz,
                              mi, ni, Ptr(a), lda, Ptr(buffers[2]), Ptr(u), lda,
                              Ptr(v), ldv, Ptr(plan->workspace), lwork,
                              Ptr(buffers[5]), plan->gesvdj_params, batch);
      }
      if (!status.ok() || !plan->econ ||
          plan->jobz != CUSOLVER_EIG_MODE_VECTOR) {
        return status;
      }
      const int64_t k = std::min(plan->m, plan->n);
      status =
          CopyLeadingColumns(plan, u, plan->m, plan->m, buffers[3], k, stream);
      if (!status.ok()) return status;
      return CopyLeadingColumns(plan, v, plan->n, plan->n, buffers[4], k,
                                stream);
    }
    default:
      return absl::InternalError(
          absl::StrCat(what, ": no batched routine for this step"));
  }
}

// The step's matrices are column-major (library-layout), as cuBLAS takes
// them: side, triangle, op and diagonal are the HLO op's.
absl::Status CusolverSolver::PlanTrsm(const Executable& executable,
                                      const ExecutableStep& step,
                                      SolverPlan* plan) {
  if (blas_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat(plan->what, ": a triangular solve needs cuBLAS (",
                     DefaultBlasLibraries(), "), which did not load"));
  }
  const Shape& a = executable.buffers[step.buffers[0]].shape;
  const Shape& b = executable.buffers[step.buffers[1]].shape;
  const LibraryConfig& c = step.library_config;
  const int64_t rank = b.rank();
  plan->type = TypeIndex(a.element_type());
  plan->element_bytes = ByteWidth(a.element_type());
  plan->m = b.dimensions(rank - 2);
  plan->n = b.dimensions(rank - 1);
  plan->k = a.dimensions(rank - 1);
  plan->batch = 1;
  for (int64_t d = 0; d + 2 < rank; ++d) plan->batch *= b.dimensions(d);
  plan->side = c.side == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  plan->uplo = c.uplo == 'L' ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
  // A real matrix's adjoint is its transpose.
  plan->trans = c.trans == 'N'                    ? CUBLAS_OP_N
                : c.trans == 'T'                  ? CUBLAS_OP_T
                : IsComplexType(a.element_type()) ? CUBLAS_OP_C
                                                  : CUBLAS_OP_T;
  plan->diag = c.diag == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
  plan->method = ChooseSolverMethod(SolverRoutine::kTrsm, plan->batch, plan->m,
                                    plan->n, c);
  if (plan->method == SolverMethod::kBatched) {
    // Arrays of the triangles' and the solutions' addresses.
    return HLOC_CUDA_CALL(
        driver_, plan->what, cuMemAlloc, &plan->pointers,
        2 * static_cast<size_t>(plan->batch) * sizeof(CUdeviceptr));
  }
  return absl::OkStatus();
}

// x = b, then cuBLAS solves in place in x: one trsmBatched for a batch,
// else trsm per matrix (one, or a batch too large for trsmBatched's int).
absl::Status CusolverSolver::RunTrsm(SolverPlan* plan,
                                     const std::vector<CUdeviceptr>& buffers,
                                     CUstream stream) {
  const std::string& what = plan->what;
  const CUdeviceptr a = buffers[0], x = buffers[2];
  absl::Status status;
  if (plan->bytes[1] > 0) {
    status = HLOC_CUDA_CALL(driver_, what, cuMemcpyDtoDAsync, x, buffers[1],
                            static_cast<size_t>(plan->bytes[1]), stream);
    if (!status.ok()) return status;
  }
  if (plan->batch == 0 || plan->m == 0 || plan->n == 0) {
    return absl::OkStatus();
  }
  // alpha = 1 in the type: the float, double and complex ones begin alike.
  static const double kOneDouble[2] = {1.0, 0.0};
  static const float kOneFloat[2] = {1.0f, 0.0f};
  const void* alpha = plan->type == 1 || plan->type == 3
                          ? static_cast<const void*>(kOneDouble)
                          : static_cast<const void*>(kOneFloat);
  const int t = plan->type;
  const int mi = static_cast<int>(plan->m), ni = static_cast<int>(plan->n);
  const int lda = std::max(static_cast<int>(plan->k), 1);
  const int ldb = std::max(mi, 1);
  status =
      HLOC_LIBRARY_CALL(*blas_, what, cublasSetStream, blas_handle_, stream);
  if (!status.ok()) return status;
  const int64_t eb = plan->element_bytes;
  if (plan->method != SolverMethod::kBatched) {
    for (int64_t b = 0; b < plan->batch && status.ok(); ++b) {
      status =
          HLOC_LIBRARY_CALL(*blas_, what, trsm[t], blas_handle_, plan->side,
                            plan->uplo, plan->trans, plan->diag, mi, ni, alpha,
                            Ptr(At(a, b, plan->k * plan->k, eb)), lda,
                            Ptr(At(x, b, plan->m * plan->n, eb)), ldb);
    }
    return status;
  }
  status = WriteBatchPointers(
      plan, {{a, plan->k * plan->k * eb}, {x, plan->m * plan->n * eb}}, stream);
  if (!status.ok()) return status;
  const auto* arrays = reinterpret_cast<void* const*>(plan->pointers);
  return HLOC_LIBRARY_CALL(*blas_, what, trsm_batched[t], blas_handle_,
                           plan->side, plan->uplo, plan->trans, plan->diag, mi,
                           ni, alpha, arrays, lda, arrays + plan->batch, ldb,
                           static_cast<int>(plan->batch));
}

}  // namespace cuda
}  // namespace hloc

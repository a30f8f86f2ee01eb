// The CPU's matrix-vector engine: C[g, j] = sum_k x[g, k] * A[g, k, j], a
// product where one side of a dot is a single row (M = 1) or column (N = 1,
// computed transposed), batched or not. dot_emitter.cc picks it over the
// GEMM engine (gemm_emitter.h) for such dots.
//
// Why a separate engine: a GEMV does one multiply-add per matrix element,
// so it is bound by reading the matrix once. The GEMM engine's packing
// copies all of B into panels on every call (a second pass over the
// matrix, plus the stores) and pads the one row of A to a register tile;
// for a [1,256]x[256,256] f32 dot in a scan's step that was most of the
// step's time. Here the matrix is read in place, once, with vector loads
// straight into multiply-adds (XLA:CPU likewise has a matrix-vector path
// for these shapes rather than its GEMM).
//
// Only the vector x is copied: converted to the accumulation type into a
// small contiguous buffer (per thread, per batch), which every matrix
// row or column then reads from L1.
//
// Two loop nests, by which way the matrix is contiguous:
//
//   along N (A(k, j) with j of stride 1, e.g. h @ W with W row-major):
//     work item = (g, block of U*VW outputs); U vector accumulators stay in
//     registers over all of K: per k, one broadcast of x[k] and U vector
//     multiply-adds with A's row segment. Each output sums its products in
//     k order, one multiply-add per product (as the GEMM engine does).
//
//     A matrix too large for the caches (kGemvStreamBytes) instead streams
//     through a few rows at a time in long contiguous runs, into sums kept
//     in L1 (as Eigen's column-major GEMV does); same order of products.
//
//   along K (A(k, j) with k of stride 1, e.g. W @ v with W row-major):
//     work item = (g, block of R outputs, each a contiguous row of A); the
//     R dot products run together (R streams through memory), U vector
//     partial sums each, reduced across lanes at the end. The summation
//     order differs from k order (lane-parallel partial sums, as every
//     vectorised dot product's does).
//
// A matrix with neither stride 1 (or a non-collapsing group of dimensions)
// stays with the GEMM engine, which packs it.
//
// The outputs of a work item go through the same store callback as the
// GEMM's register tile (where a dot's fused epilogue runs). Work items are
// split over the OpenMP threads when the matrix is large enough to pay for
// a GOMP_parallel (kGemvParallelBytes).
//
// Vectors are the target's widest (VectorTarget): the code is the same for
// any x86-64 (SSE, AVX2, AVX-512) and AArch64 NEON, only wider or narrower.
#ifndef BACKENDS_CPU_GEMV_EMITTER_H_
#define BACKENDS_CPU_GEMV_EMITTER_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backends/cpu/gemm_emitter.h"
#include "hlo/primitive_type.h"

namespace llvm {
class Function;
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace hloc {

struct CpuCodegenOptions;

// Matrices from this size up are split over the OpenMP threads (below it,
// GOMP_parallel's microseconds are a large part of the product's time).
inline constexpr int64_t kGemvParallelBytes = 1 << 20;

struct GemvSpec {
  int64_t batch = 1;
  int64_t n = 0;                 // outputs per batch
  int64_t k = 0;                 // products per output
  PrimitiveType acc_type = F32;  // F32 or F64
  // The matrix: A(g, kk, j) is element matrix_batch_offset(g) +
  // kk * k_stride + j * n_stride of `matrix`, of type matrix_type (F32, F64,
  // or F16/BF16 under f32 accumulation; GemvSupportsMatrixType).
  llvm::Value* matrix = nullptr;
  PrimitiveType matrix_type = F32;
  int64_t k_stride = 0;
  int64_t n_stride = 0;
  std::function<llvm::Value*(llvm::Value* g, llvm::IRBuilderBase* b)>
      matrix_batch_offset;
  // x(g, kk) in acc_type.
  std::function<absl::StatusOr<llvm::Value*>(llvm::Value* g, llvm::Value* kk,
                                             llvm::IRBuilderBase* b)>
      load_x;
  // Stores C(g, j0 + t) from src[t] (acc_type), t in [0, count).
  std::function<absl::Status(llvm::Value* g, llvm::Value* j0,
                             llvm::Value* count, llvm::Value* src,
                             llvm::IRBuilderBase* b)>
      store_c;
};

// Whether the engine reads matrices of `matrix_type` accumulating in
// `acc_type`: the same type, or a widening the vector units do in
// registers (f16/bf16 -> f32, f32 -> f64).
bool GemvSupportsMatrixType(PrimitiveType matrix_type, PrimitiveType acc_type);

// How EmitGemv walks the matrix (see the header comment).
struct GemvPlan {
  bool along_n = true;       // vectors along N (else along K)
  bool stream = false;       // along N, rows streamed into sums in memory
  int64_t vector_width = 1;  // lanes of acc_type per vector
  int64_t vectors = 1;       // U: vector accumulators per output (along K)
                             // or per block (along N)
  int64_t rows = 1;          // R: outputs per block along K
  int64_t block = 1;         // outputs per work item
};

// The plan for `spec`: false when neither of the matrix's strides is 1
// (the GEMM engine then packs it). When the product will run on several
// threads (GemvRunsParallel), blocks along N are kept narrow enough to
// give each thread some.
bool ChooseGemvPlan(const VectorTarget& target,
                    const CpuCodegenOptions& options, const GemvSpec& spec,
                    GemvPlan* plan);

int64_t GemvWorkItems(const GemvSpec& spec, const GemvPlan& plan);

// Whether the product is worth splitting over the OpenMP threads (the
// matrix has kGemvParallelBytes or more) and options allow it.
bool GemvRunsParallel(const CpuCodegenOptions& options, const GemvSpec& spec,
                      int64_t work_items);

// Emits the body of `range` (a range function, kernel_util.h) doing work
// items [lo, hi): `b` is at the end of its entry block and is left after
// the return.
absl::Status EmitGemv(const GemvSpec& spec, const GemvPlan& plan,
                      llvm::Function* range, llvm::IRBuilderBase* b);

}  // namespace hloc

#endif  // BACKENDS_CPU_GEMV_EMITTER_H_

// The CPU's matrix-multiplication engine, shared by dot (dot_emitter.h) and
// convolution (conv_emitter.h): a batched product C[g] = A[g] x B[g] of an
// M x K and a K x N matrix, emitted as packed, cache-blocked loops around a
// register-tiled micro-kernel, in the manner of BLIS/GotoBLAS:
//
//   work items: (g, column block jb of NC columns, row block of MR rows),
//   split statically over the OpenMP threads; a thread walks runs of row
//   blocks with the same (g, jb):
//     for each chunk of its rows (bounded so the partial sums fit scratch)
//       for pc over K in steps of KC
//         pack B[g][pc:pc+KC, jb] into NR-wide panels (zero-padded)   ~L2
//         for ic over the chunk in steps of MC rows
//           pack A[g][ic:ic+MC, pc:pc+KC] into MR-tall panels         ~L1/L2
//           for each MR-row panel, for each NR-column panel:
//             micro-kernel: MR x NR accumulators (MR x NV vector
//             registers) over KC, each k step one NV-vector load of B,
//             MR broadcasts of A and MR x NV multiply-adds (FMA);
//             partial sums of K > KC go to per-thread scratch (Cb), the
//             last K block's tile goes to a small stack tile that the
//             caller's store callback writes out, row by row (where an
//             epilogue runs on the tile while it is in L1).
//
// The operands are never read by the engine itself: callbacks pack one
// panel of A or B (converted to the accumulation type, in whichever loop
// order reads memory in order) and store one row segment of C. That is how
// a dot reads any dimension numbers and layout (strided views, after
// logical transposes), how a convolution reads its input as an implicit
// im2col matrix, and how a dot's fused epilogue is applied before the
// store.
//
// Accumulation: f32 (also for f16/bf16 operands), f64, or wrapping s32/s64
// for integers. Each output element sums its products in k order, one
// multiply-add per product (llvm.fmuladd: fused where the target has FMA).
#ifndef BACKENDS_CPU_GEMM_EMITTER_H_
#define BACKENDS_CPU_GEMM_EMITTER_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/primitive_type.h"

namespace llvm {
class Function;
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace hloc {

struct CpuCodegenOptions;

// Register tile and cache blocks.
struct GemmTiling {
  int64_t vector_width = 1;  // accumulator lanes per vector register
  int64_t mr = 1;            // rows of the register tile
  int64_t nv = 1;            // vectors per tile row; nr = nv * vector_width
  int64_t kc = 1;            // K per packed panel
  int64_t mc_blocks = 1;     // MR-row panels per packed A block
  int64_t nc = 1;            // columns per packed B block (multiple of nr)
  int64_t chunk_blocks = 1;  // MR-row panels per B packing (multiple of mc)
  int64_t nr() const { return nv * vector_width; }
};

// Packs rows of A: writes A(g, i, k0 + t), t in [0, count), in the
// accumulation type to dst[t * dst_stride].
using GemmARowPacker = std::function<absl::Status(
    llvm::Value* g, llvm::Value* i, llvm::Value* k0, llvm::Value* count,
    llvm::Value* dst, int64_t dst_stride, llvm::IRBuilderBase* b)>;
// Packs rows of B: writes B(g, k, j0 + t), t in [0, count), to dst[t].
using GemmBRowPacker = std::function<absl::Status(
    llvm::Value* g, llvm::Value* k, llvm::Value* j0, llvm::Value* count,
    llvm::Value* dst, llvm::IRBuilderBase* b)>;

struct GemmSpec {
  int64_t batch = 1;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  PrimitiveType acc_type = F32;  // F32, F64, S32 or S64
  // Writes A(g, i0 + r, k0 + kk), r in [0, rows), kk in [0, kc), in
  // acc_type to dst[kk * mr + r] (the engine zero-fills rows past `rows`).
  // The packer picks the loop order that reads memory in order.
  std::function<absl::Status(llvm::Value* g, llvm::Value* i0, llvm::Value* rows,
                             llvm::Value* k0, llvm::Value* kc, llvm::Value* dst,
                             int64_t mr, llvm::IRBuilderBase* b)>
      pack_a_panel;
  // Writes B(g, k0 + kk, j0 + t), kk in [0, kc), t in [0, cols), to
  // dst[kk * nr + t] (the engine zero-fills columns past `cols`).
  std::function<absl::Status(
      llvm::Value* g, llvm::Value* k0, llvm::Value* kc, llvm::Value* j0,
      llvm::Value* cols, llvm::Value* dst, int64_t nr, llvm::IRBuilderBase* b)>
      pack_b_panel;
  // Stores C(g, i, j0 + t) from src[t] (acc_type), t in [0, count).
  std::function<absl::Status(llvm::Value* g, llvm::Value* i, llvm::Value* j0,
                             llvm::Value* count, llvm::Value* src,
                             llvm::IRBuilderBase* b)>
      store_c_row;
};

// Panel packers made of row packers: one A row (along K) per panel row,
// one B row (along N) per k. spec->acc_type must be set.
void SetPanelPackers(GemmARowPacker a_rows, GemmBRowPacker b_rows,
                     GemmSpec* spec);

// The type a product of `a` and `b` elements giving `out` accumulates in,
// as the evaluator's: f64 if any type is f64, else f32 if any is floating
// point, else wrapping integers (s32 is exact modulo 2^32, enough for
// results of at most 32 bits; else s64). Complex types are Unimplemented.
absl::StatusOr<PrimitiveType> GemmAccumulationType(PrimitiveType a,
                                                   PrimitiveType b,
                                                   PrimitiveType out);

// The vector registers of the target: their width and how many there are
// (AVX-512: 512 bits, 32; AVX2: 256, 16; NEON: 128, 32; else 128, 16).
struct VectorTarget {
  int64_t vector_bits = 128;
  int64_t registers = 16;
};
// `triple` empty: an x86-64 host CPU with `cpu_features`
// (TargetCpu::features), or if that is empty the host's (target_cpu.h).
VectorTarget VectorTargetFor(const std::string& triple,
                             const std::string& cpu_features);

// The tiling for an M x N (x K) product: the register tile fills the
// registers (fewer rows and more vectors when M is small), the cache blocks
// follow the element width.
GemmTiling ChooseGemmTiling(const VectorTarget& target, PrimitiveType acc_type,
                            int64_t m, int64_t n, int64_t k);

// Multiply-adds the tiling computes, padding included: to pick between
// computing C or its transpose.
int64_t PaddedGemmWork(const GemmTiling& tiling, int64_t m, int64_t n,
                       int64_t k);

// Work items of EmitGemm's range function.
int64_t GemmWorkItems(const GemmSpec& spec, const GemmTiling& tiling);

// Whether the GEMM's work items go to all OpenMP threads.
bool GemmRunsParallel(const CpuCodegenOptions& options, const GemmSpec& spec,
                      int64_t work_items);

// Emits the body of `range` (a range function, kernel_util.h) doing work
// items [lo, hi): `b` is at the end of its entry block and is left after the
// return. The micro-kernel is an internal function named after `range`.
absl::Status EmitGemm(const GemmSpec& spec, const GemmTiling& tiling,
                      llvm::Function* range, llvm::IRBuilderBase* b);

}  // namespace hloc

#endif  // BACKENDS_CPU_GEMM_EMITTER_H_

// Which lane of a warp (wavefront) holds which matrix element for the
// matrix instructions the tiled dot kernel uses: AMD's MFMA (matrix fused
// multiply-add, CDNA2/CDNA3: gfx90a, gfx942) and NVIDIA's warp-level
// mma.sync (tensor cores, sm_80 and later). One small pure function per
// operand, templated on the integer type so that the tiled dot emitter
// applies it to an LLVM value (the lane id) and the unit test
// (matrix_layout_test.cc) to plain ints.
//
// One instruction computes D = A * B + C for A [m x k], B [k x n] and C, D
// [m x n] (f32), spread over the lanes of one warp.
//
// AMD (64 lanes; single-block variants only, no CBSZ/ABID/BLGP
// modifiers), from AMD's published register layouts (the CDNA3 ISA guide's
// MFMA section and AMD's matrix instruction calculator, which state them
// element -> (register, lane)):
//   A[i][k]: lane = i + m * floor(k / a_values), element k % a_values;
//   B[k][j]: lane = j + n * floor(k / b_values), likewise;
//   D[i][j] (32-bit, one block): register 4 * floor(i / 8) + i % 4 for
//            m = n = 32 (i % 4 for 16 x 16), lane
//            (n * floor(i / 4)) % 64 + j.
// NVIDIA (32 lanes; mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}),
// from the PTX ISA's "Matrix Fragments for mma.m16n8k16" (which states
// them lane, element -> row, column; group = lane / 4, t = lane % 4):
//   A element v (of 8): row group + 8 * ((v / 2) % 2),
//                       column 2t + v % 2 + 8 * (v / 4);
//   B element v (of 4): row 2t + v % 2 + 8 * (v / 2), column group;
//   D element v (of 4): row group + 8 * (v / 2), column 2t + v % 2.
// The functions below map lane, register -> element, which is what a lane
// needs to know to load its operands and store its results. NO AMD GPU HAS
// RUN THE MFMA FORMS: the test checks them against a CPU model of the
// instruction written from the element -> lane direction above, not
// against hardware. The NVIDIA form runs on the H100 (tests/gpu).
#ifndef BACKENDS_GPU_MATRIX_LAYOUT_H_
#define BACKENDS_GPU_MATRIX_LAYOUT_H_

namespace hloc {

// The instructions the tiled dot kernel uses (LLVM intrinsic names).
enum class MatrixKind {
  // AMD MFMA, 64 lanes.
  kF32_32x32x2,    // llvm.amdgcn.mfma.f32.32x32x2f32
  kF32_16x16x4,    // llvm.amdgcn.mfma.f32.16x16x4f32
  kF16_32x32x8,    // llvm.amdgcn.mfma.f32.32x32x8f16
  kF16_16x16x16,   // llvm.amdgcn.mfma.f32.16x16x16f16
  kBF16_32x32x8,   // llvm.amdgcn.mfma.f32.32x32x8bf16.1k
  kBF16_16x16x16,  // llvm.amdgcn.mfma.f32.16x16x16bf16.1k
  // NVIDIA mma.sync, 32 lanes, f32 accumulators.
  kNvF16_16x8x16,   // llvm.nvvm.mma.m16n8k16.row.col.f32.f32
  kNvBF16_16x8x16,  // llvm.nvvm.mma.m16n8k16.row.col.bf16
};

struct MatrixShape {
  MatrixKind kind;
  int m;
  int n;
  int k;
  // The lanes that execute one instruction together.
  int lanes;
  // A and B elements each lane holds (f16/bf16 two to a 32-bit register).
  int a_values;
  int b_values;
  // D (and C) elements each lane holds: m * n / lanes f32 registers.
  int accumulators;
  // A lane's operand elements come in runs of this many consecutive k
  // (the same row of A, column of B), each starting at a multiple of the
  // run in k: one register (mma.sync: two f16/bf16) or the whole operand
  // (MFMA), which the kernel loads at once.
  int k_run;
};

inline constexpr int kMfmaWaveSize = 64;
inline constexpr int kNvWarpSize = 32;

constexpr bool IsNvidiaMatrixKind(MatrixKind kind) {
  return kind == MatrixKind::kNvF16_16x8x16 ||
         kind == MatrixKind::kNvBF16_16x8x16;
}

constexpr MatrixShape GetMatrixShape(MatrixKind kind) {
  switch (kind) {
    case MatrixKind::kF32_32x32x2:
      return {kind, 32, 32, 2, kMfmaWaveSize, 1, 1, 16, 1};
    case MatrixKind::kF32_16x16x4:
      return {kind, 16, 16, 4, kMfmaWaveSize, 1, 1, 4, 1};
    case MatrixKind::kF16_32x32x8:
    case MatrixKind::kBF16_32x32x8:
      return {kind, 32, 32, 8, kMfmaWaveSize, 4, 4, 16, 4};
    case MatrixKind::kF16_16x16x16:
    case MatrixKind::kBF16_16x16x16:
      return {kind, 16, 16, 16, kMfmaWaveSize, 4, 4, 4, 4};
    case MatrixKind::kNvF16_16x8x16:
    case MatrixKind::kNvBF16_16x8x16:
      return {kind, 16, 8, 16, kNvWarpSize, 8, 4, 4, 2};
  }
  return {kind, 0, 0, 0, 0, 0, 0, 0, 0};
}

// A (row, column) position in one of the instruction's matrices.
template <typename Int>
struct MatrixElement {
  Int row;
  Int col;
};

// Element `v` (< a_values) of `lane`'s A operand: A[row][col = k].
template <typename Int>
MatrixElement<Int> MatrixAElement(const MatrixShape& s, Int lane, int v) {
  if (IsNvidiaMatrixKind(s.kind)) {
    return {lane / 4 + 8 * ((v / 2) % 2),
            (lane % 4) * 2 + (v % 2 + 8 * (v / 4))};
  }
  return {lane % s.m, (lane / s.m) * s.a_values + v};
}

// Element `v` (< b_values) of `lane`'s B operand: B[row = k][col].
template <typename Int>
MatrixElement<Int> MatrixBElement(const MatrixShape& s, Int lane, int v) {
  if (IsNvidiaMatrixKind(s.kind)) {
    return {(lane % 4) * 2 + (v % 2 + 8 * (v / 2)), lane / 4};
  }
  return {(lane / s.n) * s.b_values + v, lane % s.n};
}

// Accumulator register `r` (< accumulators) of `lane`: D[row][col]. AMD:
// the lanes fall into 64 / n groups of n; group g holds rows 4g .. 4g + 3
// of every run of 4 * (64 / n) rows, register r the run r / 4, row r % 4
// of the group's four.
template <typename Int>
MatrixElement<Int> MatrixAccumulatorElement(const MatrixShape& s, Int lane,
                                            int r) {
  if (IsNvidiaMatrixKind(s.kind)) {
    return {lane / 4 + 8 * (r / 2), (lane % 4) * 2 + r % 2};
  }
  const int groups = kMfmaWaveSize / s.n;
  return {(lane / s.n) * 4 + ((r / 4) * 4 * groups + r % 4), lane % s.n};
}

}  // namespace hloc

#endif  // BACKENDS_GPU_MATRIX_LAYOUT_H_

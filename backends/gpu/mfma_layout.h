// Which lane of a wavefront holds which matrix element for AMD's MFMA
// (matrix fused multiply-add) instructions of CDNA2/CDNA3 (gfx90a,
// gfx942), as one small pure function per operand, templated on the
// integer type so that the tiled dot emitter applies it to an LLVM value
// (the lane id) and the unit test (mfma_layout_test.cc) to plain ints.
//
// One instruction computes D = A * B + C for A [m x k], B [k x n] and C, D
// [m x n] (f32), spread over the 64 lanes of a wave (single-block
// variants only; no CBSZ/ABID/BLGP modifiers). From AMD's published
// register layouts (the CDNA3 ISA guide's MFMA section and AMD's matrix
// instruction calculator, which states them element -> (register, lane)):
//   A[i][k]: lane = i + m * floor(k / values_per_lane), element
//            k % values_per_lane of that lane's A operand;
//   B[k][j]: lane = j + n * floor(k / values_per_lane), likewise;
//   D[i][j] (32-bit, one block): register 4 * floor(i / 8) + i % 4 for
//            m = n = 32 (i % 4 for 16 x 16), lane
//            (n * floor(i / 4)) % 64 + j.
// The functions below are the inverse direction (lane, register -> element),
// which is what a lane needs to know to load its operands and store its
// results. NO AMD GPU HAS RUN THIS: the test checks these functions against
// a CPU model of the instruction written from the element -> lane direction
// above, not against hardware.
#ifndef BACKENDS_GPU_MFMA_LAYOUT_H_
#define BACKENDS_GPU_MFMA_LAYOUT_H_

namespace hloc {

// The instructions the tiled dot kernel uses (LLVM intrinsic names).
enum class MfmaKind {
  kF32_32x32x2,    // llvm.amdgcn.mfma.f32.32x32x2f32
  kF32_16x16x4,    // llvm.amdgcn.mfma.f32.16x16x4f32
  kF16_32x32x8,    // llvm.amdgcn.mfma.f32.32x32x8f16
  kF16_16x16x16,   // llvm.amdgcn.mfma.f32.16x16x16f16
  kBF16_32x32x8,   // llvm.amdgcn.mfma.f32.32x32x8bf16.1k
  kBF16_16x16x16,  // llvm.amdgcn.mfma.f32.16x16x16bf16.1k
};

struct MfmaShape {
  MfmaKind kind;
  int m;
  int n;
  int k;
  // A (and B) elements each lane holds: 1 f32, or 4 f16/bf16 (packed in
  // two registers).
  int values_per_lane;
  // D (and C) elements each lane holds: m * n / 64 f32 registers.
  int accumulators;
};

inline constexpr int kMfmaWaveSize = 64;

constexpr MfmaShape GetMfmaShape(MfmaKind kind) {
  switch (kind) {
    case MfmaKind::kF32_32x32x2:
      return {kind, 32, 32, 2, 1, 16};
    case MfmaKind::kF32_16x16x4:
      return {kind, 16, 16, 4, 1, 4};
    case MfmaKind::kF16_32x32x8:
    case MfmaKind::kBF16_32x32x8:
      return {kind, 32, 32, 8, 4, 16};
    case MfmaKind::kF16_16x16x16:
    case MfmaKind::kBF16_16x16x16:
      return {kind, 16, 16, 16, 4, 4};
  }
  return {kind, 0, 0, 0, 0, 0};
}

// A (row, column) position in one of the instruction's matrices.
template <typename Int>
struct MfmaElement {
  Int row;
  Int col;
};

// Element `v` (< values_per_lane) of `lane`'s A operand: A[row][col = k].
template <typename Int>
MfmaElement<Int> MfmaAElement(const MfmaShape& s, Int lane, int v) {
  return {lane % s.m, (lane / s.m) * s.values_per_lane + v};
}

// Element `v` of `lane`'s B operand: B[row = k][col].
template <typename Int>
MfmaElement<Int> MfmaBElement(const MfmaShape& s, Int lane, int v) {
  return {(lane / s.n) * s.values_per_lane + v, lane % s.n};
}

// Accumulator register `r` (< accumulators) of `lane`: D[row][col]. The
// lanes fall into 64 / n groups of n; group g holds rows 4g .. 4g + 3 of
// every run of 4 * (64 / n) rows, register r the run r / 4, row r % 4 of
// the group's four.
template <typename Int>
MfmaElement<Int> MfmaAccumulatorElement(const MfmaShape& s, Int lane, int r) {
  const int groups = kMfmaWaveSize / s.n;
  return {(lane / s.n) * 4 + ((r / 4) * 4 * groups + r % 4), lane % s.n};
}

}  // namespace hloc

#endif  // BACKENDS_GPU_MFMA_LAYOUT_H_

// Dots as tiled kernels, for every GPU target: rocm (no BLAS library on
// these machines) and cuda where cuBLASLt has no call (integer dots, a
// layout or type it refuses, see gemm_lowering.h) or where the dot reads
// a fused prologue (small bf16/f16 dots, cost_model.h).
//
// The dot is seen as `batch` independent [M, K] x [K, N] products: M is
// the lhs's free dimensions, N the rhs's, K the contracting ones (each a
// row-major flattening, in dimension-number order), so any dimension
// numbers and any operand layouts work; operands are read through their
// element generators (fusion parameters, or producers fused into them).
// A block owns a tile_m x tile_n tile of one batch's output
// (launch_dims.h). For each K slice of tile_k, its threads first copy the
// lhs's [tile_m, tile_k] and the rhs's [tile_k, tile_n] slices into shared
// memory (zeros outside the matrices, so edge tiles need no checks in the
// inner loop), lanes walking the operand's physically minor dimension so
// the reads coalesce (on the matrix path in runs of 16 bytes a lane, one
// vector load each); a barrier; then every thread multiplies what it
// needs from the shared slices into its accumulators; a barrier before the
// next slice overwrites them. The next slice's elements are read from
// memory into registers before the multiplications (and stored to shared
// memory after the second barrier), so their latency hides behind the
// arithmetic instead of stalling every slice. Where the device copies
// asynchronously (cp.async, sm_80 and later) and both operands are read from
// memory in 16-byte runs (the grouped kernel's operands; whole tiles of a dot
// of parameters), no registers stage the slices: each run is one asynchronous
// copy into shared memory, two or three slices in flight while one is
// multiplied, one barrier a slice (EmitAsyncKLoop; the bf16 grouped kernel went
// from 215 registers to 126). Finally each accumulator is rounded to the output
// type and written, bounds-checked, through the fusion's epilogue (an
// elementwise kDotEpilogue root: bias, activation), which reads the dot only at
// the position being written.
//
// A ragged-dot of the grouped-matmul form (hlo/ragged_dot.h,
// IsGroupedMatmul; MoE's expert matmuls) is the same kernel with groups:
// rows grouped (kNonContracting), a block runs the contraction once for
// each group its tile of rows meets, with that group's rhs and the other
// rows' lhs read as zeros; contraction grouped (kContracting), each
// group's result is a batch of blocks whose K loop runs over the group's
// run only. The group bounds are running sums of group_sizes, read in the
// kernel: no host round trip, and about the dense dot's arithmetic where
// the expansion (passes/ragged_dot_expander.h) does g times it.
//
// Accumulation as XLA and the simple kernel (contraction_generators.cc):
// f16 and bf16 in f32, other types in the output type, integers wrapping.
// The plain inner loop adds the products of one output element in k
// order, exactly as the simple kernel does, so float results are the same
// bits. With matrix cores (target.MatrixInstruction: MFMA on gfx90a and
// gfx942 for f32/f16/bf16, mma.sync on sm_80+ for f16/bf16; operands of
// one type accumulating in f32) each of the block's four warps owns a
// quadrant of the tile (launch.wave_m x wave_n), covered by one or more
// instructions: its lanes load their operand elements from the shared
// slices by the lane layout of matrix_layout.h and keep the quadrant in the
// instructions' accumulator registers, reading its registers on NVIDIA with
// ldmatrix, a load of four 8 x 8 pieces (transposed where the tile has k major)
// instead of a load per register (the hardware's summation order differs:
// results are within rounding, not the same bits). NO AMD GPU HAS RUN THE MFMA
// PATH; the mma.sync path runs on the H100 (tests/gpu), and every path on the
// simulated GPU (tiled_dot_simt_test.cc), the matrix instructions there being a
// model.
#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "backends/common/loop_emitter.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/matrix_layout.h"
#include "backends/gpu/reduction_util.h"
#include "hlo/computation.h"
#include "hlo/ragged_dot.h"
#include "hlo/status_macros.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  for (int64_t y : v) {
    if (y == x) return true;
  }
  return false;
}

int64_t Product(const std::vector<int64_t>& sizes) {
  int64_t p = 1;
  for (int64_t s : sizes) p *= s;
  return p;
}

// The dot as batch x [m, k] x [k, n].
struct DotGeometry {
  std::vector<int64_t> lhs_batch, lhs_free, lhs_contracting;
  std::vector<int64_t> rhs_batch, rhs_free, rhs_contracting;
  std::vector<int64_t> batch_sizes, m_sizes, n_sizes, k_sizes;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  // The operand's physically minor dimension (of size > 1) is contracted:
  // its slice is copied with lanes along k.
  bool lhs_k_minor = false;
  bool rhs_k_minor = false;
};

bool MinorIsContracted(const Shape& shape,
                       const std::vector<int64_t>& contracting) {
  for (int64_t d : shape.MinorToMajor()) {
    if (shape.dimensions(d) != 1) return Contains(contracting, d);
  }
  return false;
}

DotGeometry AnalyzeDot(const DotDimensionNumbers& dn, const Shape& lhs,
                       const Shape& rhs) {
  DotGeometry g;
  g.lhs_batch = dn.lhs_batch_dimensions;
  g.rhs_batch = dn.rhs_batch_dimensions;
  g.lhs_contracting = dn.lhs_contracting_dimensions;
  g.rhs_contracting = dn.rhs_contracting_dimensions;
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!Contains(g.lhs_batch, d) && !Contains(g.lhs_contracting, d)) {
      g.lhs_free.push_back(d);
    }
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!Contains(g.rhs_batch, d) && !Contains(g.rhs_contracting, d)) {
      g.rhs_free.push_back(d);
    }
  }
  for (int64_t d : g.lhs_batch) g.batch_sizes.push_back(lhs.dimensions(d));
  for (int64_t d : g.lhs_free) g.m_sizes.push_back(lhs.dimensions(d));
  for (int64_t d : g.rhs_free) g.n_sizes.push_back(rhs.dimensions(d));
  for (int64_t d : g.lhs_contracting) g.k_sizes.push_back(lhs.dimensions(d));
  g.batch = Product(g.batch_sizes);
  g.m = Product(g.m_sizes);
  g.n = Product(g.n_sizes);
  g.k = Product(g.k_sizes);
  g.lhs_k_minor = MinorIsContracted(lhs, g.lhs_contracting);
  g.rhs_k_minor = MinorIsContracted(rhs, g.rhs_contracting);
  return g;
}

// A ragged-dot as a grouped matmul (hlo/ragged_dot.h, IsGroupedMatmul):
// the dot of its operands without the groups (DotGeometry of the lhs and
// the rhs without its group dimension), with each group's run of the
// flattened rows (kNonContracting) or of the contraction (kContracting)
// read from group_sizes in the kernel.
struct Grouping {
  RaggedDotMode mode = RaggedDotMode::kNonContracting;
  int64_t groups = 0;
  // The ragged dimension's size, and the flattened rows (or contraction
  // elements) per index of it: group i covers [start_i * inner, end_i *
  // inner) of them, its bounds clamped to [0, ragged_size].
  int64_t ragged_size = 0;
  int64_t inner = 1;
  // kNonContracting: the rhs dimension that picks the group.
  int64_t rhs_group_dim = -1;
  Shape rhs_without_group;
};

// An index-typed value with the arithmetic matrix_layout.h's functions use,
// so the lane layout is the same code in the kernel and in its unit test.
struct IrInt {
  llvm::Value* v;
  llvm::IRBuilderBase* b;
  llvm::Value* C(int c) const {
    return llvm::ConstantInt::get(v->getType(), c);
  }
  IrInt operator%(int c) const { return {b->CreateURem(v, C(c)), b}; }
  IrInt operator/(int c) const { return {b->CreateUDiv(v, C(c)), b}; }
  IrInt operator*(int c) const {
    return {b->CreateMul(v, C(c), "", true, true), b};
  }
  IrInt operator+(int c) const {
    return {b->CreateAdd(v, C(c), "", true, true), b};
  }
};

// Padding elements per row of a matrix tile (row-major, k minor): 8 keeps
// every run of a lane's register aligned (runs are at most 4 elements)
// and, for mma.sync's 64-deep k slices of bf16 (rows of 144 bytes, 36
// banks apart), puts the 8 rows x 4 lanes of an operand read in 32
// different banks.
constexpr int64_t kMatrixRowPad = 8;
// The shared tiles' alignment: a vector load of a run needs its size.
constexpr uint64_t kMatrixTileAlign = 16;
// Asynchronous staging: at most this many slices in shared memory, and
// the bytes of shared memory left for the kernel's other arrays.
constexpr int64_t kMaxAsyncStages = 3;
constexpr int64_t kSharedReserve = 4096;

// The emitter of one dot kernel: shared slices, accumulators, output.
class TiledDot {
 public:
  TiledDot(KernelBuilder* kernel, const KernelInfo& info,
           const HloInstruction* dot, const DotGeometry& g,
           const TiledDotLaunch& launch, std::optional<MatrixShape> matrix,
           std::optional<Grouping> grouping)
      : kernel_(*kernel),
        b_(kernel->b()),
        info_(info),
        dot_(dot),
        g_(g),
        l_(launch),
        matrix_(matrix),
        grouping_(std::move(grouping)) {}

  absl::Status Emit() {
    const PrimitiveType out = dot_->shape().element_type();
    acc_type_ = out == F16 || out == BF16 ? F32 : out;
    lhs_type_ = dot_->operand(0)->shape().element_type();
    rhs_type_ = dot_->operand(1)->shape().element_type();
    llvm::LLVMContext& ctx = b_->getContext();
    HLOC_ASSIGN_OR_RETURN(acc_llvm_, RegisterType(acc_type_, ctx));
    // Matrix instructions read the operands in their own type; the plain
    // loop converts them once, when they are staged.
    HLOC_ASSIGN_OR_RETURN(lhs_stage_,
                          RegisterType(matrix_ ? lhs_type_ : acc_type_, ctx));
    HLOC_ASSIGN_OR_RETURN(rhs_stage_,
                          RegisterType(matrix_ ? rhs_type_ : acc_type_, ctx));
    async_ = AsyncStaging();
    stages_ = async_ ? AsyncStages() : 1;
    if (stages_ < 2) {
      async_ = false;
      stages_ = 1;
    }
    TileLayout(true, &lhs_rows_, &lhs_stride_);
    TileLayout(false, &rhs_rows_, &rhs_stride_);
    lhs_tile_ = SharedArray(kernel_, lhs_stage_,
                            stages_ * lhs_rows_ * lhs_stride_, "dot_lhs");
    rhs_tile_ = SharedArray(kernel_, rhs_stage_,
                            stages_ * rhs_rows_ * rhs_stride_, "dot_rhs");
    lhs_tile_->setAlignment(llvm::Align(kMatrixTileAlign));
    rhs_tile_->setAlignment(llvm::Align(kMatrixTileAlign));
    HLOC_ASSIGN_OR_RETURN(lhs_gen_, kernel_.generators().Get(dot_->operand(0)));
    HLOC_ASSIGN_OR_RETURN(rhs_gen_, kernel_.generators().Get(dot_->operand(1)));
    if (grouping_) {
      HLOC_ASSIGN_OR_RETURN(sizes_gen_,
                            kernel_.generators().Get(dot_->operand(2)));
    }

    tid_ = kernel_.ThreadId(0);
    llvm::Value* block = kernel_.BlockId(0);
    llvm::Value* tile_n_index = b_->CreateURem(block, I(l_.tiles_n));
    llvm::Value* rest = b_->CreateUDiv(block, I(l_.tiles_n));
    llvm::Value* tile_m_index = b_->CreateURem(rest, I(l_.tiles_m));
    batch_ = b_->CreateUDiv(rest, I(l_.tiles_m), "batch");
    if (Grouped(RaggedDotMode::kContracting)) {
      // The blocks of group i's result come after those of group i - 1.
      group_ = b_->CreateUDiv(batch_, I(g_.batch), "group");
      batch_ = b_->CreateURem(batch_, I(g_.batch), "batch");
    }
    m0_ = b_->CreateMul(tile_m_index, I(l_.tile_m), "m0", true, true);
    n0_ = b_->CreateMul(tile_n_index, I(l_.tile_n), "n0", true, true);

    InitAccumulators();
    lhs_next_ = EmitAllocaAtEntry(
        llvm::ArrayType::get(lhs_stage_, StagedPerThread(true)), "dot.lhs_next",
        b_);
    rhs_next_ = EmitAllocaAtEntry(
        llvm::ArrayType::get(rhs_stage_, StagedPerThread(false)),
        "dot.rhs_next", b_);
    if (Grouped(RaggedDotMode::kNonContracting)) {
      HLOC_RETURN_IF_ERROR(EmitGroupsOfTile());
    } else if (Grouped(RaggedDotMode::kContracting)) {
      HLOC_ASSIGN_OR_RETURN(auto bounds, GroupBounds(group_));
      k_begin_ = bounds.first;
      k_end_ = bounds.second;
      HLOC_RETURN_IF_ERROR(EmitKLoop());
    } else {
      HLOC_RETURN_IF_ERROR(EmitKLoop());
    }
    return matrix_ ? WriteMatrix() : WritePlain();
  }

 private:
  llvm::Value* I(int64_t v) { return kernel_.Index(v); }

  bool Grouped(RaggedDotMode mode) const {
    return grouping_.has_value() && grouping_->mode == mode;
  }

  // Whether the operand's shared tile has k minor. Plain tiles are k-major
  // ([tile_k][tile + 1]): a padding element per row of a slice, since
  // lanes that copy along k write a column of it, and tile + 1 spreads
  // that column over the banks. Matrix tiles are row-major ([tile][tile_k
  // + kMatrixRowPad]): the elements of an operand register are
  // consecutive in k, so a lane reads each register (a run of the layout)
  // with one load. Copied asynchronously, a tile keeps the operand's own
  // orientation ([tile_k][tile + kMatrixRowPad] where the operand's rows
  // are minor): an async copy moves 16 contiguous bytes to 16 contiguous
  // bytes; the lanes then read such a tile's registers element by element,
  // or by a transposing matrix load (UseMatrixLoad).
  bool TileKMinor(bool lhs) const {
    if (!matrix_) return false;
    if (!async_) return true;
    return lhs ? g_.lhs_k_minor : g_.rhs_k_minor;
  }

  // The rows of the operand's tile (one stage) and the elements between
  // them.
  void TileLayout(bool lhs, int64_t* rows, int64_t* stride) const {
    const int64_t tile = lhs ? l_.tile_m : l_.tile_n;
    if (TileKMinor(lhs)) {
      *rows = tile;
      *stride = l_.tile_k + kMatrixRowPad;
    } else {
      *rows = l_.tile_k;
      *stride = tile + (matrix_ ? kMatrixRowPad : 1);
    }
  }

  // The operand's buffer where the kernel reads it directly: the dot's own
  // operand (unfused), or a fusion parameter; null where a fused producer
  // computes it.
  const IrArray* OperandArray(bool lhs) const {
    const int64_t i = lhs ? 0 : 1;
    const HloInstruction* operand = dot_->operand(i);
    if (!info_.fused) return &kernel_.generators().inputs()[i];
    if (operand->opcode() != HloOpcode::kParameter) return nullptr;
    return &kernel_.generators().inputs()[operand->parameter_number()];
  }

  // Asynchronous staging (GpuTarget::EmitAsyncCopy): the matrix path on a
  // device with async copies, both operands read from memory in whole
  // 16-byte runs (Run), so each run is one copy, zero-filled where it
  // lies outside the operand or the group: not grouped rows along a run
  // (an lhs with its rows minor: a run could straddle a group's bound),
  // nor a ragged contraction along k (Run).
  bool AsyncStaging() const {
    if (!matrix_ || !kernel_.target().device().async_copy) return false;
    if (Grouped(RaggedDotMode::kNonContracting) && !g_.lhs_k_minor) {
      return false;
    }
    for (bool lhs : {true, false}) {
      const PrimitiveType type = lhs ? lhs_type_ : rhs_type_;
      if (OperandArray(lhs) == nullptr || Run(lhs) * ByteWidth(type) != 16) {
        return false;
      }
    }
    return true;
  }

  // Slices in flight: as many stages as fit the block's shared memory
  // beside kSharedReserve bytes of other arrays (the grouped kernel's
  // bounds), at most kMaxAsyncStages; fewer than two is no pipeline. The
  // tiles' layouts are those of async staging (async_ is set).
  int64_t AsyncStages() const {
    int64_t stage_bytes = 0;
    for (bool lhs : {true, false}) {
      int64_t rows, stride;
      TileLayout(lhs, &rows, &stride);
      stage_bytes += rows * stride * ByteWidth(lhs ? lhs_type_ : rhs_type_);
    }
    const int64_t budget =
        kernel_.target().device().shared_memory_per_block - kSharedReserve;
    return std::min(kMaxAsyncStages, budget / stage_bytes);
  }

  // Group `group`'s run of the flattened ragged dimensions, [begin, end)
  // (index-typed, begin <= end when it is empty only by clamping): the sum
  // of the sizes before it, and that plus its own, each clamped to the
  // ragged dimension and scaled by the elements per index. group_sizes is
  // read in 64 bits whatever its type, as the evaluator sums it.
  absl::StatusOr<std::pair<llvm::Value*, llvm::Value*>> GroupBounds(
      llvm::Value* group) {
    llvm::Type* i64 = b_->getInt64Ty();
    llvm::Value* start = EmitAllocaAtEntry(i64, "dot.group_start", b_);
    b_->CreateStore(b_->getInt64(0), start);
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "dot.sizes_before", I(0), group, I(1),
        [&](llvm::Value* i) -> absl::Status {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * size, GroupSize(i));
          b_->CreateStore(b_->CreateAdd(b_->CreateLoad(i64, start), size),
                          start);
          return absl::OkStatus();
        },
        b_));
    llvm::Value* begin = b_->CreateLoad(i64, start);
    HLOC_ASSIGN_OR_RETURN(llvm::Value * size, GroupSize(group));
    return std::make_pair(ScaledBound(begin),
                          ScaledBound(b_->CreateAdd(begin, size)));
  }

  // group_sizes[i] as an i64.
  absl::StatusOr<llvm::Value*> GroupSize(llvm::Value* i) {
    const PrimitiveType type = dot_->operand(2)->shape().element_type();
    HLOC_ASSIGN_OR_RETURN(llvm::Value * size,
                          sizes_gen_(IrIndex({i}, kernel_.index_type())));
    return kernel_.elemental()->EmitConvert(size, type, S64);
  }

  // A group bound (an index of the ragged dimension, i64) clamped to the
  // dimension and scaled to flattened elements, index-typed.
  llvm::Value* ScaledBound(llvm::Value* bound) {
    llvm::Value* zero = b_->getInt64(0);
    llvm::Value* size = b_->getInt64(grouping_->ragged_size);
    bound = b_->CreateSelect(b_->CreateICmpSLT(bound, zero), zero, bound);
    bound = b_->CreateSelect(b_->CreateICmpSGT(bound, size), size, bound);
    bound =
        b_->CreateMul(bound, b_->getInt64(grouping_->inner), "", true, true);
    return b_->CreateTrunc(bound, kernel_.index_type());
  }

  // kNonContracting: for each group whose rows meet the block's tile, the
  // whole contraction with that group's rhs, the lhs rows outside the
  // group read as zeros (so they add nothing to the accumulators, whose
  // rows each belong to their own group). A tile meets one group, or a
  // few where it spans boundaries: the arithmetic is about the dense
  // dot's, where the expansion's is g times it.
  //
  // The groups are found a warp's width at a time: each lane reads one
  // size, a warp prefix sum gives every lane its group's bounds (plus the
  // running total of the chunks before), and a ballot the groups that meet
  // the tile, taken in order. Every warp computes the same (block-uniform
  // values, so all threads take the same branches around the K loop's
  // barriers); the lanes' bounds reach the whole warp through the warp's
  // own slots of a shared array. A walk of one group at a time costs a
  // dependent load per group for every block (256 experts: ~10k cycles);
  // this costs one per chunk of 32 (64 on wave64).
  absl::Status EmitGroupsOfTile() {
    const int64_t lanes = kernel_.target().device().warp_size;
    llvm::Type* i64 = b_->getInt64Ty();
    llvm::Type* index = kernel_.index_type();
    llvm::Value* running = EmitAllocaAtEntry(i64, "dot.groups_before", b_);
    b_->CreateStore(b_->getInt64(0), running);
    llvm::Value* pending =
        EmitAllocaAtEntry(b_->getIntNTy(lanes), "dot.groups_pending", b_);
    llvm::GlobalVariable* slots = SharedArray(
        kernel_, index, 2 * l_.threads_per_block, "dot_group_bounds");
    llvm::Value* lane = b_->CreateURem(tid_, I(lanes), "lane");
    llvm::Value* warp_slot0 =
        b_->CreateMul(b_->CreateUDiv(tid_, I(lanes)), I(lanes), "", true, true);
    llvm::Value* tile_end =
        b_->CreateAdd(m0_, I(l_.tile_m), "tile_end", true, true);
    const int64_t groups = grouping_->groups;
    return EmitForLoop(
        "dot.group_chunk", I(0), I((groups + lanes - 1) / lanes), I(1),
        [&](llvm::Value* chunk) -> absl::Status {
          llvm::Value* first =
              b_->CreateMul(chunk, I(lanes), "first_group", true, true);
          llvm::Value* group = b_->CreateAdd(first, lane, "", true, true);
          llvm::Value* valid = b_->CreateICmpULT(group, I(groups));
          // Lanes past the last group read it again and count nothing.
          HLOC_ASSIGN_OR_RETURN(
              llvm::Value * size,
              GroupSize(b_->CreateSelect(valid, group, I(groups - 1))));
          size = b_->CreateSelect(valid, size, b_->getInt64(0));
          llvm::Value* through = WarpInclusiveSum(size, lanes);
          llvm::Value* before = b_->CreateLoad(i64, running);
          llvm::Value* end = b_->CreateAdd(before, through);
          llvm::Value* begin = b_->CreateSub(end, size);
          b_->CreateStore(b_->CreateAdd(before, ShuffleI64(through, lanes - 1)),
                          running);
          llvm::Value* lo = ScaledBound(begin);
          llvm::Value* hi = ScaledBound(end);
          lo = b_->CreateSelect(b_->CreateICmpULT(lo, m0_), m0_, lo);
          hi = b_->CreateSelect(b_->CreateICmpUGT(hi, tile_end), tile_end, hi);
          llvm::Value* meets = b_->CreateAnd(valid, b_->CreateICmpULT(lo, hi));
          // The slots' last reads (the chunk before) are this warp's own.
          kernel_.target().EmitWarpSync(b_);
          llvm::Value* slot = b_->CreateAdd(warp_slot0, lane, "", true, true);
          b_->CreateStore(lo, SharedElement(kernel_, slots, slot));
          b_->CreateStore(
              hi, SharedElement(kernel_, slots,
                                b_->CreateAdd(slot, I(l_.threads_per_block), "",
                                              true, true)));
          kernel_.target().EmitWarpSync(b_);
          llvm::Value* mask = kernel_.target().EmitBallot(meets, b_);
          if (mask == nullptr) {
            return absl::UnimplementedError("the target has no ballot");
          }
          b_->CreateStore(mask, pending);
          llvm::Value* count = b_->CreateZExtOrTrunc(
              b_->CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, mask), index);
          return EmitForLoop(
              "dot.group", I(0), count, I(1),
              [&](llvm::Value*) -> absl::Status {
                llvm::Value* left = b_->CreateLoad(mask->getType(), pending);
                llvm::Value* bit = b_->CreateZExtOrTrunc(
                    b_->CreateBinaryIntrinsic(llvm::Intrinsic::cttz, left,
                                              b_->getTrue()),
                    index);
                b_->CreateStore(
                    b_->CreateAnd(left,
                                  b_->CreateSub(left, llvm::ConstantInt::get(
                                                          left->getType(), 1))),
                    pending);
                llvm::Value* at =
                    b_->CreateAdd(warp_slot0, bit, "", true, true);
                group_ = b_->CreateAdd(first, bit, "group", true, true);
                rows_lo_ = b_->CreateLoad(
                    index, SharedElement(kernel_, slots, at), "rows_lo");
                rows_hi_ = b_->CreateLoad(
                    index,
                    SharedElement(kernel_, slots,
                                  b_->CreateAdd(at, I(l_.threads_per_block), "",
                                                true, true)),
                    "rows_hi");
                return EmitKLoop();
              },
              b_);
        },
        b_);
  }

  // `value` (i64) of lane `source` of the warp, as two 32-bit shuffles.
  llvm::Value* ShuffleI64(llvm::Value* value, int source) {
    const GpuTarget& target = kernel_.target();
    llvm::Type* i32 = b_->getInt32Ty();
    llvm::Value* low =
        target.EmitShuffleIndexI32(b_->CreateTrunc(value, i32), source, b_);
    llvm::Value* high = target.EmitShuffleIndexI32(
        b_->CreateTrunc(b_->CreateLShr(value, 32), i32), source, b_);
    return JoinI64(low, high);
  }

  llvm::Value* JoinI64(llvm::Value* low, llvm::Value* high) {
    llvm::Type* i64 = b_->getInt64Ty();
    return b_->CreateOr(b_->CreateZExt(low, i64),
                        b_->CreateShl(b_->CreateZExt(high, i64), 32));
  }

  // The sum of `value` (i64) over the warp's lanes up to and including
  // this one (Hillis-Steele: log2(lanes) shuffled additions).
  llvm::Value* WarpInclusiveSum(llvm::Value* value, int64_t lanes) {
    const GpuTarget& target = kernel_.target();
    llvm::Type* i32 = b_->getInt32Ty();
    llvm::Value* lane = b_->CreateURem(tid_, I(lanes));
    for (int delta = 1; delta < lanes; delta *= 2) {
      llvm::Value* low =
          target.EmitShuffleUpI32(b_->CreateTrunc(value, i32), delta, b_);
      llvm::Value* high = target.EmitShuffleUpI32(
          b_->CreateTrunc(b_->CreateLShr(value, 32), i32), delta, b_);
      llvm::Value* from_below = JoinI64(low, high);
      value = b_->CreateSelect(b_->CreateICmpUGE(lane, I(delta)),
                               b_->CreateAdd(value, from_below), value);
    }
    return value;
  }

  // The contraction into the accumulators, tile_k at a time: over the
  // whole K, or over [k_begin_, k_end_) of a ragged contraction.
  absl::Status EmitKLoop() {
    llvm::Value* k_begin = k_begin_ != nullptr ? k_begin_ : I(0);
    llvm::Value* slices = I((g_.k + l_.tile_k - 1) / l_.tile_k);
    if (k_end_ != nullptr) {
      // Empty runs are clamped to begin == end: no slices.
      llvm::Value* length = b_->CreateSub(k_end_, k_begin, "", true, true);
      slices = b_->CreateUDiv(
          b_->CreateAdd(length, I(l_.tile_k - 1), "", true, true), I(l_.tile_k),
          "slices");
    }
    if (async_) return EmitAsyncKLoop(k_begin, slices);
    HLOC_RETURN_IF_ERROR(LoadSlice(/*lhs=*/true, k_begin));
    HLOC_RETURN_IF_ERROR(LoadSlice(/*lhs=*/false, k_begin));
    llvm::BasicBlock* preheader = b_->GetInsertBlock();
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "dot.k", I(0), slices, I(1),
        [&](llvm::Value* slice) -> absl::Status {
          StoreSlice(/*lhs=*/true);
          StoreSlice(/*lhs=*/false);
          kernel_.target().EmitBarrier(b_);
          llvm::Value* next = b_->CreateAdd(slice, I(1), "", true, true);
          HLOC_RETURN_IF_ERROR(EmitIfThenElse(
              b_->CreateICmpULT(next, slices),
              [&]() -> absl::Status {
                llvm::Value* k0 = b_->CreateAdd(
                    k_begin, b_->CreateMul(next, I(l_.tile_k), "", true, true),
                    "k0", true, true);
                HLOC_RETURN_IF_ERROR(LoadSlice(/*lhs=*/true, k0));
                return LoadSlice(/*lhs=*/false, k0);
              },
              nullptr, b_));
          HLOC_RETURN_IF_ERROR(matrix_ ? MultiplyMatrix() : MultiplyPlain());
          kernel_.target().EmitBarrier(b_);
          return absl::OkStatus();
        },
        b_));
    KeepRolled(preheader);
    return absl::OkStatus();
  }

  // The K loop with asynchronous staging: stages_ slices of both operands
  // in shared memory, the copies of slice s + stages_ - 1 in flight while
  // slice s is multiplied, no registers holding them, one barrier a
  // slice. Each slice's copies are one group (an empty group where there
  // is no slice, so that "all but the last stages_ - 2 groups" is always
  // the slice about to be multiplied). The barrier after the wait both
  // publishes the slice and tells every thread that the others are done
  // with the stage the next copies overwrite (last read a slice before).
  absl::Status EmitAsyncKLoop(llvm::Value* k_begin, llvm::Value* slices) {
    const GpuTarget& target = kernel_.target();
    auto issue = [&](llvm::Value* slice) {
      return EmitIfThenElse(
          b_->CreateICmpULT(slice, slices),
          [&]() -> absl::Status {
            llvm::Value* k0 = b_->CreateAdd(
                k_begin, b_->CreateMul(slice, I(l_.tile_k), "", true, true),
                "k0", true, true);
            llvm::Value* stage = b_->CreateURem(slice, I(stages_), "stage");
            IssueSlice(/*lhs=*/true, k0, stage);
            IssueSlice(/*lhs=*/false, k0, stage);
            return absl::OkStatus();
          },
          nullptr, b_);
    };
    for (int64_t j = 0; j + 1 < stages_; ++j) {
      HLOC_RETURN_IF_ERROR(issue(I(j)));
      target.EmitAsyncCommit(b_);
    }
    llvm::BasicBlock* preheader = b_->GetInsertBlock();
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "dot.k", I(0), slices, I(1),
        [&](llvm::Value* slice) -> absl::Status {
          target.EmitAsyncWait(static_cast<int>(stages_ - 2), b_);
          target.EmitBarrier(b_);
          HLOC_RETURN_IF_ERROR(
              issue(b_->CreateAdd(slice, I(stages_ - 1), "", true, true)));
          target.EmitAsyncCommit(b_);
          return MultiplyMatrix(b_->CreateURem(slice, I(stages_), "stage"));
        },
        b_));
    KeepRolled(preheader);
    // The next group's K loop (kNonContracting) refills the stages.
    target.EmitBarrier(b_);
    return absl::OkStatus();
  }

  // Marks the loop just emitted after `preheader` (b_ is at its exit) not
  // to be unrolled. Unrolled, the slices of a short K (a constant trip
  // count) let the scheduler hoist every slice's loads and products
  // together: 65-deep dots took 256 VGPRs (f32, gfx1100) and ~500 (s32,
  // gfx942), against a few dozen rolled; one slice's inner loop is
  // unrolled anyway.
  void KeepRolled(llvm::BasicBlock* preheader) {
    llvm::BasicBlock* header = b_->GetInsertBlock()->getSinglePredecessor();
    if (header == nullptr) return;
    for (llvm::BasicBlock* latch : llvm::predecessors(header)) {
      if (latch == preheader) continue;
      llvm::LLVMContext& ctx = b_->getContext();
      llvm::MDNode* disable = llvm::MDNode::get(
          ctx, llvm::MDString::get(ctx, "llvm.loop.unroll.disable"));
      llvm::MDNode* loop = llvm::MDNode::getDistinct(ctx, {nullptr, disable});
      loop->replaceOperandWith(0, loop);
      latch->getTerminator()->setMetadata(llvm::LLVMContext::MD_loop, loop);
    }
  }

  // `linear` split over `sizes` (row-major); nothing for no dimensions.
  std::vector<llvm::Value*> Split(llvm::Value* linear,
                                  const std::vector<int64_t>& sizes) {
    if (sizes.empty()) return {};
    if (sizes.size() == 1) return {linear};
    return IrIndex::FromLinear(linear, Shape::Array(F32, sizes), b_).multidim();
  }

  // The operand index of (batch, row, k): row is m (lhs) or n (rhs).
  IrIndex OperandIndex(bool lhs, llvm::Value* row, llvm::Value* k) {
    const bool group_dim = !lhs && Grouped(RaggedDotMode::kNonContracting);
    const Shape& shape = OperandShape(lhs);
    std::vector<llvm::Value*> index(shape.rank());
    auto place = [&](const std::vector<int64_t>& dims,
                     const std::vector<llvm::Value*>& values) {
      for (size_t i = 0; i < dims.size(); ++i) index[dims[i]] = values[i];
    };
    place(lhs ? g_.lhs_batch : g_.rhs_batch, Split(batch_, g_.batch_sizes));
    place(lhs ? g_.lhs_free : g_.rhs_free,
          Split(row, lhs ? g_.m_sizes : g_.n_sizes));
    place(lhs ? g_.lhs_contracting : g_.rhs_contracting, Split(k, g_.k_sizes));
    if (group_dim) {
      index.insert(index.begin() + grouping_->rhs_group_dim, group_);
    }
    return IrIndex(index, kernel_.index_type());
  }

  // The shared element of (k within the slice, row within the tile), in
  // stage `stage` (null: the first).
  llvm::Value* Slot(bool lhs, llvm::Value* kk, llvm::Value* row,
                    llvm::Value* stage = nullptr) {
    const bool k_minor = TileKMinor(lhs);
    llvm::Value* major = k_minor ? row : kk;
    llvm::Value* minor = k_minor ? kk : row;
    llvm::Value* i =
        b_->CreateAdd(b_->CreateMul(major, I(lhs ? lhs_stride_ : rhs_stride_),
                                    "", true, true),
                      minor, "", true, true);
    if (stage != nullptr) {
      const int64_t stage_elements =
          lhs ? lhs_rows_ * lhs_stride_ : rhs_rows_ * rhs_stride_;
      i = b_->CreateAdd(b_->CreateMul(stage, I(stage_elements), "", true, true),
                        i, "", true, true);
    }
    return SharedElement(kernel_, lhs ? lhs_tile_ : rhs_tile_, i);
  }

  // Elements of one operand's slice each thread copies. Every tile side
  // and thread count is a power of two (launch_dims.cc), so the threads
  // divide the slice.
  int64_t StagedPerThread(bool lhs) const {
    return (lhs ? l_.tile_m : l_.tile_n) * l_.tile_k / l_.threads_per_block;
  }

  // Consecutive elements of the operand's physically minor dimension a
  // thread stages together: 16 bytes of them where the matrix path reads
  // every element of a slice without a branch (whole tiles, or the
  // grouped kernel's selects; not along k in a ragged contraction, whose
  // groups start anywhere in k), so that the run's loads become one 16-byte
  // load and, along k, its stores to the row-major shared tile one 16-byte
  // store (LLVM's load/store vectorizer merges them: runs start at
  // multiples of their length, rows of the tile are kMatrixRowPad apart);
  // one elsewhere. The bf16 grouped kernel staged 2 x 32 single 2-byte
  // loads a slice per thread before (sm_90: ~30 TFLOP/s, 255 registers).
  int64_t Run(bool lhs) const {
    if (!matrix_) return 1;
    const bool k_minor = lhs ? g_.lhs_k_minor : g_.rhs_k_minor;
    if (k_minor && Grouped(RaggedDotMode::kContracting)) return 1;
    const int64_t tile = lhs ? l_.tile_m : l_.tile_n;
    const bool partial =
        (lhs ? g_.m : g_.n) % tile != 0 || g_.k % l_.tile_k != 0;
    if (partial && !grouping_) return 1;
    const int64_t bytes = ByteWidth(lhs ? lhs_type_ : rhs_type_);
    int64_t run = std::max<int64_t>(1, 16 / bytes);
    run = std::min({run, StagedPerThread(lhs), k_minor ? l_.tile_k : tile});
    // The run is contiguous in memory, and never crosses the operand's
    // edge, only where the physical minor dimension is the last (fastest)
    // of the flattened ones and a multiple of the run.
    const Shape& shape = OperandShape(lhs);
    const std::vector<int64_t>& flat =
        k_minor ? (lhs ? g_.lhs_contracting : g_.rhs_contracting)
                : (lhs ? g_.lhs_free : g_.rhs_free);
    const int64_t minor = shape.MinorToMajor()[0];
    if (flat.empty() || flat.back() != minor ||
        shape.dimensions(minor) % run != 0) {
      return 1;
    }
    return run;
  }

  // The operand's shape in the dot's numbering (a grouped rhs without its
  // group dimension).
  const Shape& OperandShape(bool lhs) const {
    if (!lhs && Grouped(RaggedDotMode::kNonContracting)) {
      return grouping_->rhs_without_group;
    }
    return dot_->operand(lhs ? 0 : 1)->shape();
  }

  // The (k within the slice, row within the tile) of the thread's i-th
  // element of a slice: consecutive lanes take consecutive runs (Run) of
  // the operand's physically minor dimension.
  std::pair<llvm::Value*, llvm::Value*> StagedPosition(bool lhs, int64_t i) {
    const int64_t tile = lhs ? l_.tile_m : l_.tile_n;
    const bool k_minor = lhs ? g_.lhs_k_minor : g_.rhs_k_minor;
    const int64_t run = Run(lhs);
    // The run's first element, then this one's offset along the run: plain
    // adds of constants, which the vectorizer sees are adjacent.
    llvm::Value* e = b_->CreateAdd(b_->CreateMul(tid_, I(run), "", true, true),
                                   I((i / run) * l_.threads_per_block * run),
                                   "", true, true);
    llvm::Value* kk =
        k_minor ? b_->CreateURem(e, I(l_.tile_k)) : b_->CreateUDiv(e, I(tile));
    llvm::Value* row =
        k_minor ? b_->CreateUDiv(e, I(l_.tile_k)) : b_->CreateURem(e, I(tile));
    if (i % run != 0) {
      llvm::Value*& along = k_minor ? kk : row;
      along = b_->CreateAdd(along, I(i % run), "", true, true);
    }
    return {kk, row};
  }

  llvm::Value* NextSlot(bool lhs, int64_t i) {
    llvm::Type* array = llvm::ArrayType::get(lhs ? lhs_stage_ : rhs_stage_,
                                             StagedPerThread(lhs));
    return b_->CreateConstInBoundsGEP2_32(array, lhs ? lhs_next_ : rhs_next_, 0,
                                          i);
  }

  // Reads the thread's elements of the operand's [tile, tile_k] slice at
  // k0 into its registers (zeros outside the matrix), converted to the
  // staging type.
  absl::Status LoadSlice(bool lhs, llvm::Value* k0) {
    const int64_t tile = lhs ? l_.tile_m : l_.tile_n;
    const int64_t extent = lhs ? g_.m : g_.n;
    llvm::Value* origin = lhs ? m0_ : n0_;
    llvm::Type* stage = lhs ? lhs_stage_ : rhs_stage_;
    const PrimitiveType from = lhs ? lhs_type_ : rhs_type_;
    const PrimitiveType to = matrix_ ? from : acc_type_;
    const ElementGenerator& gen = lhs ? lhs_gen_ : rhs_gen_;
    // Ungrouped, only the matrix's edges need checks (group bounds exist
    // only in the grouped branch below).
    const bool checked = extent % tile != 0 || g_.k % l_.tile_k != 0;
    for (int64_t i = 0; i < StagedPerThread(lhs); ++i) {
      auto [kk, row] = StagedPosition(lhs, i);
      llvm::Value* slot = NextSlot(lhs, i);
      llvm::Value* r = b_->CreateAdd(origin, row, "", true, true);
      llvm::Value* k = b_->CreateAdd(k0, kk, "", true, true);
      if (grouping_) {
        // Grouped: every element is read (at the nearest position inside
        // the operand) and the ones outside the group's bounds or the
        // matrix selected away, without a branch per element: the
        // branches of 2 x 32 staged elements inside the group loop took
        // sm_90's bf16 kernel past 255 registers into spills.
        const Clamped c = Clamp(lhs, r, k, i % Run(lhs));
        HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                              gen(OperandIndex(lhs, c.row, c.k)));
        HLOC_ASSIGN_OR_RETURN(v, kernel_.elemental()->EmitConvert(v, from, to));
        b_->CreateStore(
            b_->CreateSelect(c.inside, v, llvm::Constant::getNullValue(stage)),
            slot);
        continue;
      }
      auto load = [&]() -> absl::Status {
        HLOC_ASSIGN_OR_RETURN(llvm::Value * v, gen(OperandIndex(lhs, r, k)));
        HLOC_ASSIGN_OR_RETURN(v, kernel_.elemental()->EmitConvert(v, from, to));
        b_->CreateStore(v, slot);
        return absl::OkStatus();
      };
      auto zero = [&]() -> absl::Status {
        b_->CreateStore(llvm::Constant::getNullValue(stage), slot);
        return absl::OkStatus();
      };
      if (!checked) {
        HLOC_RETURN_IF_ERROR(load());
        continue;
      }
      HLOC_RETURN_IF_ERROR(EmitIfThenElse(Inside(lhs, r, k), load, zero, b_));
    }
    return absl::OkStatus();
  }

  // A staged element's operand position (row, k) moved to the nearest one
  // inside the operand, and whether the element is inside the operand,
  // the contraction's end and the group's rows (else it is staged as
  // zero). The element is `offset` into its run (Run), which is clamped
  // as a whole, from its first element, so its elements stay adjacent; a
  // run lies inside the operand or wholly outside it (Run divides the
  // minor dimension).
  struct Clamped {
    llvm::Value* row;
    llvm::Value* k;
    llvm::Value* inside;
  };
  Clamped Clamp(bool lhs, llvm::Value* r, llvm::Value* k, int64_t offset) {
    const int64_t extent = lhs ? g_.m : g_.n;
    const int64_t run = Run(lhs);
    const bool k_minor = lhs ? g_.lhs_k_minor : g_.rhs_k_minor;
    auto clamp = [&](llvm::Value* v, int64_t bound, bool along_run) {
      if (!along_run || run == 1) {
        return b_->CreateSelect(b_->CreateICmpULT(v, I(bound)), v,
                                I(bound - 1));
      }
      llvm::Value* first = b_->CreateSub(v, I(offset), "", true, true);
      first = b_->CreateSelect(b_->CreateICmpULT(first, I(bound)), first,
                               I(bound - run));
      return b_->CreateAdd(first, I(offset), "", true, true);
    };
    return {clamp(r, extent, !k_minor), clamp(k, g_.k, k_minor),
            Inside(lhs, r, k)};
  }

  // Whether operand position (r, k) is inside the operand, before the
  // contraction's end (a ragged contraction's group) and, for the lhs,
  // among the group's rows [rows_lo_, rows_hi_).
  llvm::Value* Inside(bool lhs, llvm::Value* r, llvm::Value* k) {
    llvm::Value* k_end = k_end_ != nullptr ? k_end_ : I(g_.k);
    llvm::Value* inside =
        b_->CreateAnd(b_->CreateICmpULT(r, I(lhs ? g_.m : g_.n)),
                      b_->CreateICmpULT(k, k_end));
    if (lhs && rows_lo_ != nullptr) {
      inside = b_->CreateAnd(inside, b_->CreateICmpUGE(r, rows_lo_));
      inside = b_->CreateAnd(inside, b_->CreateICmpULT(r, rows_hi_));
    }
    return inside;
  }

  // Starts the async copies of the thread's runs of the operand's
  // [tile, tile_k] slice at k0 into stage `stage` of its tile (zeros
  // outside the matrix and the group): AsyncStaging's kernels.
  void IssueSlice(bool lhs, llvm::Value* k0, llvm::Value* stage) {
    const int64_t run = Run(lhs);
    const IrArray& operand = *OperandArray(lhs);
    llvm::Value* origin = lhs ? m0_ : n0_;
    for (int64_t i = 0; i < StagedPerThread(lhs); i += run) {
      auto [kk, row] = StagedPosition(lhs, i);
      const Clamped c =
          Clamp(lhs, b_->CreateAdd(origin, row, "", true, true),
                b_->CreateAdd(k0, kk, "", true, true), /*offset=*/0);
      kernel_.target().EmitAsyncCopy(
          Slot(lhs, kk, row, stage),
          operand.EmitElementPointer(OperandIndex(lhs, c.row, c.k), b_),
          c.inside, b_);
    }
  }

  // Stores the registers LoadSlice filled into the shared slice.
  void StoreSlice(bool lhs) {
    llvm::Type* stage = lhs ? lhs_stage_ : rhs_stage_;
    for (int64_t i = 0; i < StagedPerThread(lhs); ++i) {
      auto [kk, row] = StagedPosition(lhs, i);
      b_->CreateStore(b_->CreateLoad(stage, NextSlot(lhs, i)),
                      Slot(lhs, kk, row));
    }
  }

  // Instructions a warp's tile takes along m and n.
  int64_t InstructionsM() const { return l_.wave_m / matrix_->m; }
  int64_t InstructionsN() const { return l_.wave_n / matrix_->n; }

  void InitAccumulators() {
    if (matrix_) {
      // One <accumulators x float> per instruction of the warp's tile.
      acc_vector_type_ =
          llvm::FixedVectorType::get(b_->getFloatTy(), matrix_->accumulators);
      llvm::Type* array = llvm::ArrayType::get(
          acc_vector_type_, InstructionsM() * InstructionsN());
      acc_ = EmitAllocaAtEntry(array, "dot.acc", b_);
      b_->CreateStore(llvm::Constant::getNullValue(array), acc_);
      return;
    }
    llvm::Type* array =
        llvm::ArrayType::get(acc_llvm_, l_.micro_m * l_.micro_n);
    acc_ = EmitAllocaAtEntry(array, "dot.acc", b_);
    b_->CreateStore(llvm::Constant::getNullValue(array), acc_);
  }

  llvm::Value* PlainAccumulator(int64_t i, int64_t j) {
    llvm::Type* array =
        llvm::ArrayType::get(acc_llvm_, l_.micro_m * l_.micro_n);
    return b_->CreateInBoundsGEP(
        array, acc_, {b_->getInt32(0), b_->getInt32(i * l_.micro_n + j)});
  }

  // The thread's rows and columns within the tile: thread (tm, tn) of a
  // (tile_m / micro_m) x (tile_n / micro_n) grid owns rows tm + i *
  // (tile_m / micro_m), columns tn + j * (tile_n / micro_n).
  llvm::Value* ThreadRow(int64_t i) {
    const int64_t across = l_.tile_n / l_.micro_n;
    const int64_t step = l_.tile_m / l_.micro_m;
    return b_->CreateAdd(b_->CreateUDiv(tid_, I(across)), I(i * step), "", true,
                         true);
  }
  llvm::Value* ThreadColumn(int64_t j) {
    const int64_t across = l_.tile_n / l_.micro_n;
    return b_->CreateAdd(b_->CreateURem(tid_, I(across)), I(j * across), "",
                         true, true);
  }

  absl::Status MultiplyPlain() {
    const bool is_float = IsFloatingPointType(acc_type_);
    // Every shared element the thread reads is at a constant offset from
    // its first row's (column's) element once the loop over the slice is
    // unrolled: one base address each, the offsets in the load
    // instructions (ds_read's offset field) instead of a register per
    // element (gfx942 kept ~120 addresses live for a 4x4 tile).
    llvm::Value* a_base = Slot(true, I(0), ThreadRow(0));
    llvm::Value* c_base = Slot(false, I(0), ThreadColumn(0));
    const int64_t row_step = l_.tile_m / l_.micro_m;
    const int64_t column_step = l_.tile_n / l_.micro_n;
    return EmitForLoop(
        "dot.kk", I(0), I(l_.tile_k), I(1),
        [&](llvm::Value* kk) -> absl::Status {
          std::vector<llvm::Value*> a, c;
          for (int64_t i = 0; i < l_.micro_m; ++i) {
            llvm::Value* offset =
                b_->CreateAdd(b_->CreateMul(kk, I(lhs_stride_), "", true, true),
                              I(i * row_step), "", true, true);
            a.push_back(b_->CreateLoad(
                lhs_stage_, b_->CreateInBoundsGEP(lhs_stage_, a_base, offset)));
          }
          for (int64_t j = 0; j < l_.micro_n; ++j) {
            llvm::Value* offset =
                b_->CreateAdd(b_->CreateMul(kk, I(rhs_stride_), "", true, true),
                              I(j * column_step), "", true, true);
            c.push_back(b_->CreateLoad(
                rhs_stage_, b_->CreateInBoundsGEP(rhs_stage_, c_base, offset)));
          }
          for (int64_t i = 0; i < l_.micro_m; ++i) {
            for (int64_t j = 0; j < l_.micro_n; ++j) {
              llvm::Value* slot = PlainAccumulator(i, j);
              llvm::Value* sum = b_->CreateLoad(acc_llvm_, slot);
              sum = is_float ? b_->CreateFAdd(sum, b_->CreateFMul(a[i], c[j]))
                             : b_->CreateAdd(sum, b_->CreateMul(a[i], c[j]));
              b_->CreateStore(sum, slot);
            }
          }
          return absl::OkStatus();
        },
        b_);
  }

  // The accumulators of the warp's instruction (i, j).
  llvm::Value* MatrixAccumulator(int64_t i, int64_t j) {
    llvm::Type* array = llvm::ArrayType::get(acc_vector_type_,
                                             InstructionsM() * InstructionsN());
    return b_->CreateConstInBoundsGEP2_32(array, acc_, 0,
                                          i * InstructionsN() + j);
  }

  // The warp's quadrant of the tile and the lane within the warp.
  void WaveOrigin(llvm::Value** row, llvm::Value** column, IrInt* lane) {
    const int64_t lanes = matrix_->lanes;
    llvm::Value* w = b_->CreateUDiv(tid_, I(lanes));
    const int64_t waves_n = l_.tile_n / l_.wave_n;
    *row = b_->CreateMul(b_->CreateUDiv(w, I(waves_n)), I(l_.wave_m), "", true,
                         true);
    *column = b_->CreateMul(b_->CreateURem(w, I(waves_n)), I(l_.wave_n), "",
                            true, true);
    *lane = IrInt{b_->CreateURem(tid_, I(lanes)), b_};
  }

  // The lane's operand elements of the instruction at slice row kk0 whose
  // A (B) block starts at row (column) `origin` of the tile.
  llvm::Value* MatrixOperand(bool lhs, llvm::Value* kk0, llvm::Value* origin,
                             const IrInt& lane, llvm::Value* tile_stage) {
    std::vector<llvm::Value*> values;
    const int count = lhs ? matrix_->a_values : matrix_->b_values;
    llvm::Type* stage = lhs ? lhs_stage_ : rhs_stage_;
    const int run = TileKMinor(lhs) ? matrix_->k_run : 1;
    llvm::Type* run_type =
        run == 1 ? stage : llvm::FixedVectorType::get(stage, run);
    const uint64_t element_bytes = stage->getPrimitiveSizeInBits() / 8;
    for (int v = 0; v < count; v += run) {
      MatrixElement<IrInt> e = lhs ? MatrixAElement(*matrix_, lane, v)
                                   : MatrixBElement(*matrix_, lane, v);
      // A[row = i][col = k], B[row = k][col = j].
      llvm::Value* k = lhs ? e.col.v : e.row.v;
      llvm::Value* rc = lhs ? e.row.v : e.col.v;
      // The run starts at a multiple of its length in k, and rows are a
      // multiple of kMatrixRowPad apart: the load is aligned to its size.
      llvm::Value* loaded = b_->CreateAlignedLoad(
          run_type,
          Slot(lhs, b_->CreateAdd(kk0, k, "", true, true),
               b_->CreateAdd(origin, rc, "", true, true), tile_stage),
          llvm::Align(run * element_bytes));
      for (int r = 0; r < run; ++r) {
        values.push_back(run == 1 ? loaded
                                  : b_->CreateExtractElement(loaded, r));
      }
    }
    if (values.size() == 1) return values[0];
    llvm::Value* vec = llvm::UndefValue::get(
        llvm::FixedVectorType::get(values[0]->getType(), values.size()));
    for (size_t v = 0; v < values.size(); ++v) {
      vec = b_->CreateInsertElement(vec, values[v], b_->getInt32(v));
    }
    return vec;
  }

  // Whether the lanes read their operand registers with the target's
  // matrix load (ldmatrix; GpuTarget::EmitMatrixLoad): NVIDIA's m16n8k16
  // instructions, whose registers are the load's 8 x 8 matrices, and an
  // even number of B blocks (one load covers two). A slice's register
  // reads are then a load per A block and per two B blocks instead of a
  // 4-byte load per A and B register (or two 2-byte loads where the tile
  // has k major).
  bool UseMatrixLoad() const {
    return IsNvidiaMatrixKind(matrix_->kind) &&
           kernel_.target().has_matrix_load() && InstructionsN() % 2 == 0;
  }

  // The lane's registers of the A block (lhs) at tile row `origin`, or of
  // the two B blocks at tile column `origin` and `origin` + n, at slice row
  // kk0, by one matrix load: <8 x type>. Matrix i of the load is the
  // register's 8 x 8 piece at (row offset, k offset) (0, 0), (8, 0),
  // (0, 8), (8, 8) for A (MatrixAElement's order) and (0, 0), (0, 8),
  // (8, 0), (8, 8) for B (the first block's two registers, then the
  // second's); lane 8i + r gives its row r: a row of the tile where it
  // has k minor, else a row of k (the load transposes it).
  llvm::Value* MatrixLoad(bool lhs, llvm::Value* kk0, llvm::Value* origin,
                          const IrInt& lane, llvm::Value* stage) {
    IrInt i = lane / 8;
    IrInt r = lane % 8;
    IrInt rows_off = lhs ? (i % 2) * 8 : (i / 2) * 8;
    IrInt k_off = lhs ? (i / 2) * 8 : (i % 2) * 8;
    const bool k_minor = TileKMinor(lhs);
    llvm::Value* row = b_->CreateAdd(origin, rows_off.v, "", true, true);
    llvm::Value* k = b_->CreateAdd(kk0, k_off.v, "", true, true);
    if (k_minor) {
      row = b_->CreateAdd(row, r.v, "", true, true);
    } else {
      k = b_->CreateAdd(k, r.v, "", true, true);
    }
    llvm::Value* regs = kernel_.target().EmitMatrixLoad(
        Slot(lhs, k, row, stage), /*transpose=*/!k_minor, b_);
    return b_->CreateBitCast(
        regs, llvm::FixedVectorType::get(lhs ? lhs_stage_ : rhs_stage_, 8));
  }

  // The slice in stage `stage` (null: the only one) into the accumulators.
  absl::Status MultiplyMatrix(llvm::Value* stage = nullptr) {
    llvm::Value *row, *column;
    IrInt lane;
    WaveOrigin(&row, &column, &lane);
    const int64_t im = InstructionsM();
    const int64_t jn = InstructionsN();
    std::vector<llvm::Value*> acc;
    for (int64_t i = 0; i < im; ++i) {
      for (int64_t j = 0; j < jn; ++j) {
        acc.push_back(
            b_->CreateLoad(acc_vector_type_, MatrixAccumulator(i, j)));
      }
    }
    for (int64_t kk = 0; kk < l_.tile_k; kk += matrix_->k) {
      std::vector<llvm::Value*> a, c;
      for (int64_t i = 0; i < im; ++i) {
        llvm::Value* origin =
            b_->CreateAdd(row, I(i * matrix_->m), "", true, true);
        a.push_back(UseMatrixLoad()
                        ? MatrixLoad(true, I(kk), origin, lane, stage)
                        : MatrixOperand(true, I(kk), origin, lane, stage));
      }
      for (int64_t j = 0; j < jn; ++j) {
        llvm::Value* origin =
            b_->CreateAdd(column, I(j * matrix_->n), "", true, true);
        if (!UseMatrixLoad()) {
          c.push_back(MatrixOperand(false, I(kk), origin, lane, stage));
        } else if (j % 2 == 0) {
          // One load gives two instructions' B registers.
          llvm::Value* pair = MatrixLoad(false, I(kk), origin, lane, stage);
          c.push_back(b_->CreateShuffleVector(pair, {0, 1, 2, 3}));
          c.push_back(b_->CreateShuffleVector(pair, {4, 5, 6, 7}));
        }
      }
      for (int64_t i = 0; i < im; ++i) {
        for (int64_t j = 0; j < jn; ++j) {
          llvm::Value*& d = acc[i * jn + j];
          d = kernel_.target().EmitMatrixMultiplyAdd(*matrix_, a[i], c[j], d,
                                                     b_);
          if (d == nullptr) {
            return absl::InternalError("the target has no matrix instruction");
          }
        }
      }
    }
    for (int64_t i = 0; i < im; ++i) {
      for (int64_t j = 0; j < jn; ++j) {
        b_->CreateStore(acc[i * jn + j], MatrixAccumulator(i, j));
      }
    }
    return absl::OkStatus();
  }

  // Writes output element (m, n) of the block's batch from `value` (in the
  // accumulation type), through the epilogue when fused.
  absl::Status WriteElement(llvm::Value* m, llvm::Value* n,
                            llvm::Value* value) {
    auto write = [&]() -> absl::Status {
      std::vector<llvm::Value*> index;
      if (Grouped(RaggedDotMode::kContracting)) index.push_back(group_);
      for (llvm::Value* v : Split(batch_, g_.batch_sizes)) index.push_back(v);
      for (llvm::Value* v : Split(m, g_.m_sizes)) index.push_back(v);
      for (llvm::Value* v : Split(n, g_.n_sizes)) index.push_back(v);
      IrIndex out_index(index, kernel_.index_type());
      HLOC_ASSIGN_OR_RETURN(
          llvm::Value * result,
          kernel_.elemental()->EmitConvert(value, acc_type_,
                                           dot_->shape().element_type()));
      if (info_.fused) {
        *current_ = result;
        HLOC_ASSIGN_OR_RETURN(result, out_gen_(out_index));
      }
      return kernel_.output(0).EmitWrite(out_index, result, b_);
    };
    if (g_.m % l_.tile_m == 0 && g_.n % l_.tile_n == 0) return write();
    return EmitIfThenElse(b_->CreateAnd(b_->CreateICmpULT(m, I(g_.m)),
                                        b_->CreateICmpULT(n, I(g_.n))),
                          write, nullptr, b_);
  }

  // The epilogue reads the dot at the position being written (only there:
  // FindTiledDot checked), which is the value WriteElement sets.
  absl::Status PrepareEpilogue() {
    if (!info_.fused) return absl::OkStatus();
    current_ = std::make_shared<llvm::Value*>(nullptr);
    auto current = current_;
    kernel_.generators().Bind(
        dot_, [current](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
          return *current;
        });
    HLOC_ASSIGN_OR_RETURN(out_gen_,
                          kernel_.generators().ForOutput(info_.outputs[0]));
    return absl::OkStatus();
  }

  absl::Status WritePlain() {
    HLOC_RETURN_IF_ERROR(PrepareEpilogue());
    for (int64_t i = 0; i < l_.micro_m; ++i) {
      for (int64_t j = 0; j < l_.micro_n; ++j) {
        llvm::Value* m = b_->CreateAdd(m0_, ThreadRow(i), "", true, true);
        llvm::Value* n = b_->CreateAdd(n0_, ThreadColumn(j), "", true, true);
        HLOC_RETURN_IF_ERROR(WriteElement(
            m, n, b_->CreateLoad(acc_llvm_, PlainAccumulator(i, j))));
      }
    }
    return absl::OkStatus();
  }

  absl::Status WriteMatrix() {
    HLOC_RETURN_IF_ERROR(PrepareEpilogue());
    llvm::Value *row, *column;
    IrInt lane;
    WaveOrigin(&row, &column, &lane);
    for (int64_t i = 0; i < InstructionsM(); ++i) {
      for (int64_t j = 0; j < InstructionsN(); ++j) {
        llvm::Value* acc =
            b_->CreateLoad(acc_vector_type_, MatrixAccumulator(i, j));
        llvm::Value* m_origin = b_->CreateAdd(
            m0_, b_->CreateAdd(row, I(i * matrix_->m), "", true, true), "",
            true, true);
        llvm::Value* n_origin = b_->CreateAdd(
            n0_, b_->CreateAdd(column, I(j * matrix_->n), "", true, true), "",
            true, true);
        for (int r = 0; r < matrix_->accumulators; ++r) {
          MatrixElement<IrInt> e = MatrixAccumulatorElement(*matrix_, lane, r);
          llvm::Value* m = b_->CreateAdd(m_origin, e.row.v, "", true, true);
          llvm::Value* n = b_->CreateAdd(n_origin, e.col.v, "", true, true);
          HLOC_RETURN_IF_ERROR(
              WriteElement(m, n, b_->CreateExtractElement(acc, r)));
        }
      }
    }
    return absl::OkStatus();
  }

  KernelBuilder& kernel_;
  llvm::IRBuilderBase* b_;
  const KernelInfo& info_;
  const HloInstruction* dot_;
  const DotGeometry& g_;
  const TiledDotLaunch& l_;
  std::optional<MatrixShape> matrix_;
  std::optional<Grouping> grouping_;

  PrimitiveType acc_type_ = F32, lhs_type_ = F32, rhs_type_ = F32;
  llvm::Type* acc_llvm_ = nullptr;
  llvm::Type* lhs_stage_ = nullptr;
  llvm::Type* rhs_stage_ = nullptr;
  llvm::Type* acc_vector_type_ = nullptr;
  int64_t lhs_stride_ = 0, rhs_stride_ = 0;
  int64_t lhs_rows_ = 0, rhs_rows_ = 0;
  // Asynchronous staging (AsyncStaging) and the slices in flight.
  bool async_ = false;
  int64_t stages_ = 1;
  llvm::GlobalVariable* lhs_tile_ = nullptr;
  llvm::GlobalVariable* rhs_tile_ = nullptr;
  ElementGenerator lhs_gen_, rhs_gen_, sizes_gen_, out_gen_;
  llvm::Value* tid_ = nullptr;
  llvm::Value* batch_ = nullptr;
  llvm::Value* m0_ = nullptr;
  llvm::Value* n0_ = nullptr;
  llvm::Value* acc_ = nullptr;
  // Grouped matmuls: the group being computed (index-typed), and its
  // bounds where the loads check them: [rows_lo_, rows_hi_) of the
  // flattened lhs rows (kNonContracting), [k_begin_, k_end_) of the
  // contraction (kContracting).
  llvm::Value* group_ = nullptr;
  llvm::Value* rows_lo_ = nullptr;
  llvm::Value* rows_hi_ = nullptr;
  llvm::Value* k_begin_ = nullptr;
  llvm::Value* k_end_ = nullptr;
  // The thread's elements of the next slice, between LoadSlice and
  // StoreSlice.
  llvm::Value* lhs_next_ = nullptr;
  llvm::Value* rhs_next_ = nullptr;
  std::shared_ptr<llvm::Value*> current_;
};

// Element types the tiled kernel computes: PRED has no multiply-add and
// complex elements are LLVM structs the shared tiles do not hold (the GPU
// backend refuses them anyway, gpu_compiler.cc).
bool TiledType(PrimitiveType t) { return t != PRED && !IsComplexType(t); }

// The geometry of a ragged-dot the kernel computes as a grouped matmul, or
// why not (the ragged-dot-expander keeps only those for GPUs).
absl::StatusOr<RaggedDotGeometry> AnalyzeGrouping(const HloInstruction* hlo) {
  if (hlo->operand_count() != 3 || !hlo->attrs().ragged_dot_dimension_numbers) {
    return absl::InvalidArgumentError("a ragged-dot needs three operands");
  }
  HLOC_ASSIGN_OR_RETURN(
      RaggedDotGeometry g,
      AnalyzeRaggedDot(hlo->operand(0)->shape(), hlo->operand(1)->shape(),
                       hlo->operand(2)->shape(),
                       *hlo->attrs().ragged_dot_dimension_numbers));
  if (!IsGroupedMatmul(hlo->operand(0)->shape(), hlo->operand(2)->shape(), g)) {
    return absl::UnimplementedError("not a grouped matmul");
  }
  return g;
}

}  // namespace

// Where the tiled kernel does not apply, the dot keeps the simple kernel
// (one thread per output element, contraction_generators.cc): a fusion
// with several dots or several outputs, or whose dot is read elsewhere than
// at the output's own position (a reduce or transpose of the dot's result,
// which a register tile cannot serve), and pred or complex dots.
const HloInstruction* FindTiledDot(const KernelInfo& info) {
  if (info.outputs.size() != 1 || info.outputs[0].element >= 0) return nullptr;
  const HloInstruction* root = info.outputs[0].root;
  const HloInstruction* dot = nullptr;
  if (!info.fused) {
    if (info.hlo->opcode() == HloOpcode::kDot) dot = info.hlo;
    if (info.hlo->opcode() == HloOpcode::kRaggedDot &&
        AnalyzeGrouping(info.hlo).ok()) {
      dot = info.hlo;
    }
  } else {
    for (const HloInstruction* instr :
         info.hlo->fused_computation()->instructions()) {
      if (instr->opcode() != HloOpcode::kDot) continue;
      if (dot != nullptr) return nullptr;
      dot = instr;
    }
    if (dot != nullptr && !ReadAtOutputPositionOnly(dot, root)) return nullptr;
  }
  if (dot == nullptr ||
      (dot->opcode() == HloOpcode::kDot &&
       !dot->attrs().dot_dimension_numbers) ||
      !dot->shape().IsArray() || !root->shape().IsArray() ||
      !root->shape().SameDimensions(dot->shape()) ||
      !root->shape().SameDimensions(info.output_shapes[0]) ||
      dot->shape().ElementCount() == 0) {
    return nullptr;
  }
  for (const Shape* s :
       {&dot->shape(), &dot->operand(0)->shape(), &dot->operand(1)->shape()}) {
    if (!s->IsArray() || !TiledType(s->element_type())) return nullptr;
  }
  return dot;
}

absl::StatusOr<LaunchDims> EmitTiledDotKernel(const KernelRequest& request,
                                              const HloInstruction* dot) {
  const KernelInfo& info = *request.info;
  std::optional<Grouping> grouping;
  DotGeometry g;
  if (dot->opcode() == HloOpcode::kRaggedDot) {
    HLOC_ASSIGN_OR_RETURN(RaggedDotGeometry ragged, AnalyzeGrouping(dot));
    grouping =
        Grouping{ragged.mode,
                 ragged.num_groups,
                 dot->operand(0)->shape().dimensions(ragged.lhs_ragged_dim),
                 1,
                 ragged.rhs_group_dim,
                 ragged.rhs_without_group};
    if (ragged.mode == RaggedDotMode::kNonContracting) {
      // The rhs without its group dimension in the rhs's own layout: which
      // dimension is physically minor decides how the tiles are read.
      std::vector<int64_t> minor_to_major;
      for (int64_t d : dot->operand(1)->shape().MinorToMajor()) {
        if (d == ragged.rhs_group_dim) continue;
        minor_to_major.push_back(d > ragged.rhs_group_dim ? d - 1 : d);
      }
      ragged.rhs_without_group = Shape::ArrayWithLayout(
          ragged.rhs_without_group.element_type(),
          ragged.rhs_without_group.dimensions(), minor_to_major);
      grouping->rhs_without_group = ragged.rhs_without_group;
    }
    g = AnalyzeDot(ragged.dot, dot->operand(0)->shape(),
                   ragged.rhs_without_group);
    const int64_t flattened =
        ragged.mode == RaggedDotMode::kContracting ? g.k : g.m;
    grouping->inner = flattened / std::max<int64_t>(grouping->ragged_size, 1);
  } else {
    g = AnalyzeDot(*dot->attrs().dot_dimension_numbers,
                   dot->operand(0)->shape(), dot->operand(1)->shape());
  }
  // A ragged contraction's blocks cover every group's result.
  const int64_t batch =
      g.batch * (grouping && grouping->mode == RaggedDotMode::kContracting
                     ? grouping->groups
                     : 1);
  const PrimitiveType out = dot->shape().element_type();
  const PrimitiveType lhs = dot->operand(0)->shape().element_type();
  const PrimitiveType rhs = dot->operand(1)->shape().element_type();
  std::optional<MatrixShape> matrix;
  // Matrix instructions multiply operands of one type into f32
  // accumulators: f32 dots (MFMA), and f16/bf16 dots (which accumulate in
  // f32 anyway).
  if (lhs == rhs && (out == F32 || out == lhs)) {
    matrix = request.target->MatrixInstruction(lhs);
  }
  const TiledDotLaunch launch =
      ComputeTiledDotLaunch(batch, g.m, g.n, matrix, request.target->device());
  const bool index64 = !Use32BitIndexing(
      MaxElementsTouched(info),
      launch.dims.NumBlocks() * launch.tile_m * launch.tile_n);
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, launch.threads_per_block, index64);
  TiledDot emitter(&kernel, info, dot, g, launch, matrix, grouping);
  HLOC_RETURN_IF_ERROR(kernel.Finish(emitter.Emit()));
  return launch.dims;
}

}  // namespace hloc

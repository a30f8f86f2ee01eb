#include "backends/cpu/gemv_emitter.h"

#include <algorithm>
#include <string>
#include <vector>

#include "backends/common/ir_array.h"
#include "backends/common/loop_emitter.h"
#include "backends/cpu/ir_emitter.h"
#include "backends/cpu/kernel_util.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace hloc {
namespace {

// The x buffer lives on the stack up to this size, else on the heap.
constexpr int64_t kMaxStackXBytes = 64 << 10;
// Outputs per block along K, and vector partial sums per output: R * U
// accumulators, R row loads and U x loads per R * U multiply-adds, which
// fits 16 vector registers and hides the multiply-add latency.
constexpr int64_t kRowsAlongK = 4;
constexpr int64_t kVectorsAlongK = 2;
// A lone row (the last rows of N, or N = 1) has only its own partial sums
// to hide the latency with.
constexpr int64_t kVectorsOneRow = 4;
// Vector accumulators per block along N (plus a broadcast of x[k]).
constexpr int64_t kVectorsAlongN = 8;
// Along N on several threads: narrower blocks until there are this many.
constexpr int64_t kMinParallelBlocks = 16;
// Along N, a matrix too large for the caches streams through in long runs
// of each row (the register blocks read U * VW elements of a row and jump
// to the next, which the hardware prefetchers follow poorly from memory):
// kRowsStreamed rows at a time into sums held in L1, at most
// kMaxStreamedSumBytes of them per work item, in about kStreamedItems
// items for the threads.
constexpr int64_t kGemvStreamBytes = 1 << 20;
constexpr int64_t kRowsStreamed = 4;
constexpr int64_t kMaxStreamedSumBytes = 8 << 10;
constexpr int64_t kStreamedItems = 8;

int64_t MatrixBytes(const GemvSpec& spec) {
  return spec.batch * spec.n * spec.k * (BitWidth(spec.matrix_type) / 8);
}

class GemvLoops {
 public:
  GemvLoops(const GemvSpec& spec, const GemvPlan& plan, llvm::IRBuilderBase* b)
      : spec_(spec),
        plan_(plan),
        b_(b),
        acc_(spec.acc_type == F64 ? b->getDoubleTy() : b->getFloatTy()) {}

  absl::Status Emit(llvm::Function* range) {
    llvm::Value* lo = range->getArg(range->arg_size() - 2);
    llvm::Value* hi = range->getArg(range->arg_size() - 1);
    const int64_t k_alloc = std::max<int64_t>(spec_.k, 1);
    const int64_t x_bytes = k_alloc * (BitWidth(spec_.acc_type) / 8);
    const bool x_on_heap = x_bytes > kMaxStackXBytes;
    if (x_on_heap) {
      x_ = EmitAlignedMalloc(I(x_bytes), b_);
    } else {
      x_ = EntryAlloca(llvm::ArrayType::get(acc_, k_alloc), "gemv.x");
    }
    tile_ = EntryAlloca(llvm::ArrayType::get(acc_, plan_.block), "gemv.tile");
    const int64_t blocks = CeilOfRatio(spec_.n, plan_.block);
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "gemv.item", lo, hi, I(1),
        [&](llvm::Value* w) -> absl::Status {
          llvm::Value* g = b_->CreateUDiv(w, I(blocks));
          llvm::Value* block = b_->CreateURem(w, I(blocks));
          // x is converted once per batch (a thread's items are
          // contiguous, so once per thread when there is no batch).
          HLOC_RETURN_IF_ERROR(EmitIfThenElse(
              b_->CreateOr(b_->CreateICmpEQ(w, lo),
                           b_->CreateICmpEQ(block, I(0))),
              [&]() { return PackX(g); }, nullptr, b_));
          llvm::Value* j0 = Mul(block, plan_.block);
          llvm::Value* count =
              b_->CreateBinaryIntrinsic(llvm::Intrinsic::smin, I(plan_.block),
                                        b_->CreateSub(I(spec_.n), j0));
          llvm::Value* base = spec_.matrix_batch_offset(g, b_);
          if (plan_.stream) {
            HLOC_RETURN_IF_ERROR(Stream(base, j0, count));
            return spec_.store_c(g, j0, count, tile_, b_);
          }
          HLOC_RETURN_IF_ERROR(EmitIfThenElse(
              b_->CreateICmpEQ(count, I(plan_.block)),
              [&]() { return FullBlock(base, j0); },
              [&]() { return PartialBlock(base, j0, count); }, b_));
          return spec_.store_c(g, j0, count, tile_, b_);
        },
        b_));
    if (x_on_heap) EmitFree(x_, b_);
    b_->CreateRetVoid();
    return absl::OkStatus();
  }

 private:
  llvm::Value* I(int64_t v) { return b_->getInt64(v); }
  llvm::Value* Mul(llvm::Value* x, int64_t c) {
    return c == 1 ? x : b_->CreateMul(x, I(c), "", true, true);
  }
  llvm::Value* Add(llvm::Value* x, llvm::Value* y) {
    return b_->CreateAdd(x, y, "", true, true);
  }
  llvm::Type* Vec(int64_t lanes) {
    return lanes == 1 ? acc_ : llvm::FixedVectorType::get(acc_, lanes);
  }
  llvm::Value* EntryAlloca(llvm::Type* type, const char* name) {
    llvm::IRBuilderBase::InsertPointGuard guard(*b_);
    llvm::BasicBlock* entry =
        &b_->GetInsertBlock()->getParent()->getEntryBlock();
    b_->SetInsertPoint(entry, entry->getFirstInsertionPt());
    llvm::AllocaInst* alloca = b_->CreateAlloca(type, nullptr, name);
    alloca->setAlignment(llvm::Align(64));
    return alloca;
  }
  // An accumulator of `lanes` lanes set to zero here.
  llvm::Value* ZeroAccumulator(int64_t lanes) {
    llvm::Type* type = Vec(lanes);
    llvm::Value* acc = EmitAllocaAtEntry(type, "gemv.acc", b_);
    b_->CreateStore(llvm::Constant::getNullValue(type), acc);
    return acc;
  }
  llvm::Value* LoadAcc(llvm::Value* ptr, int64_t lanes) {
    return b_->CreateLoad(Vec(lanes), ptr);
  }
  llvm::Value* XAt(llvm::Value* kk) {
    return b_->CreateInBoundsGEP(acc_, x_, kk);
  }
  llvm::Value* Element(llvm::Value* base, llvm::Value* offset) {
    return b_->CreateInBoundsGEP(acc_, base, offset);
  }
  // *acc += x * y, one multiply-add (fused where the target has FMA).
  void MultiplyAdd(llvm::Value* acc, llvm::Value* x, llvm::Value* y) {
    llvm::Value* sum =
        b_->CreateIntrinsic(llvm::Intrinsic::fmuladd, {x->getType()},
                            {x, y, b_->CreateLoad(x->getType(), acc)});
    b_->CreateStore(sum, acc);
  }
  // Stores an accumulator's lanes to dst[0, lanes).
  void StoreLanes(llvm::Value* value, llvm::Value* dst) {
    b_->CreateAlignedStore(value, dst,
                           llvm::Align(BitWidth(spec_.acc_type) / 8));
  }

  // `lanes` consecutive matrix elements from element `offset`, in the
  // accumulation type: a plain vector load, widened in registers.
  llvm::Value* LoadMatrix(llvm::Value* offset, int64_t lanes) {
    llvm::LLVMContext& ctx = b_->getContext();
    auto vec_of = [&](llvm::Type* t) -> llvm::Type* {
      return lanes == 1 ? t : llvm::FixedVectorType::get(t, lanes);
    };
    // bf16 as its bits: the upper half of an f32, exactly (no libcall).
    const bool bf16 = spec_.matrix_type == BF16;
    llvm::Type* elem =
        bf16 ? b_->getInt16Ty() : *StorageType(spec_.matrix_type, ctx);
    const llvm::Align align(BitWidth(spec_.matrix_type) / 8);
    llvm::Value* v = b_->CreateAlignedLoad(
        vec_of(elem), b_->CreateInBoundsGEP(elem, spec_.matrix, offset), align);
    if (bf16) {
      v = b_->CreateZExt(v, vec_of(b_->getInt32Ty()));
      v = b_->CreateShl(v, 16);
      return b_->CreateBitCast(v, Vec(lanes));
    }
    if (spec_.matrix_type == spec_.acc_type) return v;
    return b_->CreateFPExt(v, Vec(lanes));
  }

  absl::Status PackX(llvm::Value* g) {
    return EmitForLoop(
        "gemv.packx", I(0), I(spec_.k), I(1),
        [&](llvm::Value* kk) -> absl::Status {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * v, spec_.load_x(g, kk, b_));
          b_->CreateStore(v, XAt(kk));
          return absl::OkStatus();
        },
        b_);
  }

  absl::Status FullBlock(llvm::Value* base, llvm::Value* j0) {
    if (plan_.along_n) {
      return AlongN(base, j0, plan_.vector_width, plan_.vectors, tile_);
    }
    return AlongK(base, j0, plan_.rows, plan_.vectors, tile_);
  }

  // The last block of N, `count` outputs: along N, single vectors then
  // single lanes; along K, one row at a time.
  absl::Status PartialBlock(llvm::Value* base, llvm::Value* j0,
                            llvm::Value* count) {
    if (!plan_.along_n) {
      return EmitForLoop(
          "gemv.row", I(0), count, I(1),
          [&](llvm::Value* r) {
            return AlongK(base, Add(j0, r), 1, kVectorsOneRow,
                          Element(tile_, r));
          },
          b_);
    }
    const int64_t vw = plan_.vector_width;
    llvm::Value* full = Mul(b_->CreateUDiv(count, I(vw)), vw);
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "gemv.vec", I(0), full, I(vw),
        [&](llvm::Value* t) {
          return AlongN(base, Add(j0, t), vw, 1, Element(tile_, t));
        },
        b_));
    if (vw == 1) return absl::OkStatus();
    return EmitForLoop(
        "gemv.lane", full, count, I(1),
        [&](llvm::Value* t) {
          return AlongN(base, Add(j0, t), 1, 1, Element(tile_, t));
        },
        b_);
  }

  // Outputs j .. j + vectors * lanes (n stride 1 when lanes > 1): per k,
  // x[k] broadcast times the row segment of A, into `vectors` register
  // accumulators; stored to dst.
  absl::Status AlongN(llvm::Value* base, llvm::Value* j, int64_t lanes,
                      int64_t vectors, llvm::Value* dst) {
    std::vector<llvm::Value*> accs;
    for (int64_t u = 0; u < vectors; ++u)
      accs.push_back(ZeroAccumulator(lanes));
    llvm::Value* row0 = Add(base, Mul(j, spec_.n_stride));
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "gemv.k", I(0), I(spec_.k), I(1),
        [&](llvm::Value* kk) {
          llvm::Value* x = b_->CreateLoad(acc_, XAt(kk));
          if (lanes > 1) x = b_->CreateVectorSplat(lanes, x);
          llvm::Value* row = Add(row0, Mul(kk, spec_.k_stride));
          for (int64_t u = 0; u < vectors; ++u) {
            MultiplyAdd(accs[u], x, LoadMatrix(Add(row, I(u * lanes)), lanes));
          }
          return absl::OkStatus();
        },
        b_));
    for (int64_t u = 0; u < vectors; ++u) {
      StoreLanes(LoadAcc(accs[u], lanes), Element(dst, I(u * lanes)));
    }
    return absl::OkStatus();
  }

  // Outputs j0 .. j0 + count (n stride 1), summed in tile_ while kRowsStreamed
  // rows of A at a time stream through, each read along its contiguous run
  // of `count` elements.
  absl::Status Stream(llvm::Value* base, llvm::Value* j0, llvm::Value* count) {
    const int64_t vw = plan_.vector_width;
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "gemv.zero", I(0), count, I(1),
        [&](llvm::Value* t) {
          b_->CreateStore(llvm::Constant::getNullValue(acc_),
                          Element(tile_, t));
          return absl::OkStatus();
        },
        b_));
    llvm::Value* full = Mul(b_->CreateUDiv(count, I(vw)), vw);
    llvm::Value* row0 = Add(base, j0);
    // Rows k .. k + rows of A into the sums.
    auto rows_into_sums = [&](llvm::Value* k, int64_t rows) -> absl::Status {
      std::vector<llvm::Value*> x(rows), row(rows);
      for (int64_t r = 0; r < rows; ++r) {
        llvm::Value* kr = Add(k, I(r));
        x[r] = b_->CreateLoad(acc_, XAt(kr));
        row[r] = Add(row0, Mul(kr, spec_.k_stride));
      }
      auto columns = [&](const char* name, llvm::Value* begin, llvm::Value* end,
                         int64_t lanes) {
        return EmitForLoop(
            name, begin, end, I(lanes),
            [&](llvm::Value* t) {
              llvm::Value* sum = b_->CreateAlignedLoad(
                  Vec(lanes), Element(tile_, t),
                  llvm::Align(BitWidth(spec_.acc_type) / 8));
              for (int64_t r = 0; r < rows; ++r) {
                llvm::Value* xr =
                    lanes > 1 ? b_->CreateVectorSplat(lanes, x[r]) : x[r];
                sum = b_->CreateIntrinsic(
                    llvm::Intrinsic::fmuladd, {sum->getType()},
                    {xr, LoadMatrix(Add(row[r], t), lanes), sum});
              }
              StoreLanes(sum, Element(tile_, t));
              return absl::OkStatus();
            },
            b_);
      };
      HLOC_RETURN_IF_ERROR(columns("gemv.sv", I(0), full, vw));
      return columns("gemv.ss", full, count, 1);
    };
    const int64_t k_main = spec_.k - spec_.k % kRowsStreamed;
    if (k_main > 0) {
      HLOC_RETURN_IF_ERROR(EmitForLoop(
          "gemv.sk", I(0), I(k_main), I(kRowsStreamed),
          [&](llvm::Value* k) { return rows_into_sums(k, kRowsStreamed); },
          b_));
    }
    for (int64_t k = k_main; k < spec_.k; ++k) {
      HLOC_RETURN_IF_ERROR(rows_into_sums(I(k), 1));
    }
    return absl::OkStatus();
  }

  // Outputs j .. j + rows (k stride 1 when K >= the vector width): each a
  // dot product of its row of A with x, `vectors` vector partial sums per
  // row over the whole vectors of K, single lanes for the rest; stored to
  // dst.
  absl::Status AlongK(llvm::Value* base, llvm::Value* j, int64_t rows,
                      int64_t vectors, llvm::Value* dst) {
    const int64_t vw = plan_.vector_width;
    const int64_t k = spec_.k;
    std::vector<llvm::Value*> row_base(rows);
    for (int64_t r = 0; r < rows; ++r) {
      row_base[r] = Add(base, Mul(Add(j, I(r)), spec_.n_stride));
    }
    // acc[r][u], and a scalar per row for the last K % vw products.
    std::vector<std::vector<llvm::Value*>> accs(rows);
    std::vector<llvm::Value*> tails(rows);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t u = 0; u < vectors; ++u) {
        accs[r].push_back(ZeroAccumulator(vw));
      }
      tails[r] = ZeroAccumulator(1);
    }
    // k in [begin, end) by `step` lanes, with `nvec` vectors per step.
    auto k_loop = [&](const char* name, int64_t begin, int64_t end,
                      int64_t nvec, int64_t lanes) -> absl::Status {
      if (end <= begin) return absl::OkStatus();
      return EmitForLoop(
          name, I(begin), I(end), I(nvec * lanes),
          [&](llvm::Value* kk) {
            for (int64_t u = 0; u < nvec; ++u) {
              llvm::Value* ku = Add(kk, I(u * lanes));
              llvm::Value* x = b_->CreateAlignedLoad(
                  Vec(lanes), XAt(ku),
                  llvm::Align(BitWidth(spec_.acc_type) / 8));
              for (int64_t r = 0; r < rows; ++r) {
                llvm::Value* a = LoadMatrix(
                    Add(row_base[r], Mul(ku, spec_.k_stride)), lanes);
                MultiplyAdd(lanes == 1 ? tails[r] : accs[r][u], a, x);
              }
            }
            return absl::OkStatus();
          },
          b_);
    };
    const int64_t main_end = vw > 1 ? k - k % (vw * vectors) : 0;
    const int64_t vec_end = vw > 1 ? k - k % vw : 0;
    HLOC_RETURN_IF_ERROR(k_loop("gemv.kv", 0, main_end, vectors, vw));
    HLOC_RETURN_IF_ERROR(k_loop("gemv.kv1", main_end, vec_end, 1, vw));
    HLOC_RETURN_IF_ERROR(k_loop("gemv.ks", vec_end, k, 1, 1));
    for (int64_t r = 0; r < rows; ++r) {
      llvm::Value* sum = LoadAcc(tails[r], 1);
      if (vec_end > 0) {
        llvm::Value* v = LoadAcc(accs[r][0], vw);
        for (int64_t u = 1; u < vectors; ++u) {
          v = b_->CreateFAdd(v, LoadAcc(accs[r][u], vw));
        }
        // Across the lanes in any order, as a vectorised sum does.
        llvm::IRBuilderBase::FastMathFlagGuard guard(*b_);
        llvm::FastMathFlags reassoc;
        reassoc.setAllowReassoc();
        b_->setFastMathFlags(reassoc);
        sum = b_->CreateFAddReduce(sum, v);
      }
      b_->CreateStore(sum, Element(dst, I(r)));
    }
    return absl::OkStatus();
  }

  const GemvSpec& spec_;
  const GemvPlan& plan_;
  llvm::IRBuilderBase* b_;
  llvm::Type* acc_;
  llvm::Value* x_ = nullptr;
  llvm::Value* tile_ = nullptr;
};

}  // namespace

bool GemvSupportsMatrixType(PrimitiveType matrix_type, PrimitiveType acc_type) {
  if (matrix_type == acc_type) return acc_type == F32 || acc_type == F64;
  if (acc_type == F32) return matrix_type == F16 || matrix_type == BF16;
  return acc_type == F64 && matrix_type == F32;
}

bool ChooseGemvPlan(const VectorTarget& target,
                    const CpuCodegenOptions& options, const GemvSpec& spec,
                    GemvPlan* plan) {
  if (!GemvSupportsMatrixType(spec.matrix_type, spec.acc_type)) return false;
  GemvPlan p;
  p.vector_width =
      std::max<int64_t>(1, target.vector_bits / BitWidth(spec.acc_type));
  if (spec.n_stride == 1 && spec.n > 1) {
    p.along_n = true;
    const int64_t vw = p.vector_width;
    if (MatrixBytes(spec) >= kGemvStreamBytes) {
      p.stream = true;
      const int64_t per_batch =
          std::max<int64_t>(1, CeilOfRatio(kStreamedItems, spec.batch));
      const int64_t most = kMaxStreamedSumBytes / (BitWidth(spec.acc_type) / 8);
      p.block = RoundUpTo(CeilOfRatio(spec.n, per_batch), vw);
      p.block = std::min(std::max(p.block, 8 * vw), most);
      p.block = std::min(p.block, RoundUpTo(spec.n, vw));
      *plan = p;
      return true;
    }
    const int64_t vectors_needed = CeilOfRatio(spec.n, p.vector_width);
    p.vectors = std::min(kVectorsAlongN, vectors_needed);
    if (options.parallel && MatrixBytes(spec) >= kGemvParallelBytes) {
      while (p.vectors > 1 &&
             spec.batch * CeilOfRatio(spec.n, p.vectors * p.vector_width) <
                 kMinParallelBlocks) {
        p.vectors /= 2;
      }
    }
    p.block = p.vectors * p.vector_width;
  } else if (spec.k_stride == 1 || spec.k <= 1) {
    p.along_n = false;
    p.rows = kRowsAlongK;
    p.vectors = kVectorsAlongK;
    p.block = p.rows;
  } else {
    return false;
  }
  *plan = p;
  return true;
}

int64_t GemvWorkItems(const GemvSpec& spec, const GemvPlan& plan) {
  return spec.batch * CeilOfRatio(spec.n, plan.block);
}

bool GemvRunsParallel(const CpuCodegenOptions& options, const GemvSpec& spec,
                      int64_t work_items) {
  return MatrixBytes(spec) >= kGemvParallelBytes &&
         ShouldRunParallel(options, work_items, spec.batch * spec.n * spec.k);
}

absl::Status EmitGemv(const GemvSpec& spec, const GemvPlan& plan,
                      llvm::Function* range, llvm::IRBuilderBase* b) {
  // The accumulators are vectors of the target's widest registers: keep
  // them whole where the target would prefer narrower ones.
  range->addFnAttr("min-legal-vector-width",
                   std::to_string(plan.vector_width * BitWidth(spec.acc_type)));
  HLOC_RETURN_IF_ERROR(GemvLoops(spec, plan, b).Emit(range));
  DisableLoopUnrolling(range);
  return absl::OkStatus();
}

}  // namespace hloc

// Sort and top-k: a row per group of threads in shared memory. The row
// (P elements, its length rounded up to a power of two) is sorted by a
// bitonic network: log2(P) * (log2(P) + 1) / 2 stages of compare-exchanges,
// each thread taking its pairs together, a barrier after each stage. Slots
// hold the elements' original positions; the operands that fit the block's
// shared memory are copied there and read through them (SharedRow); any
// number of operands of any type sort together, and the comparator is
// inlined. Rows that are bitonic sequences already
// (sort-splitter's merges, kBitonicRowsBackendConfig) take only the last
// log2(P) stages. Short rows share a block (RowLayout).
//
// Positions past the row (the padding) are "after everything", decided by
// position, never by a sentinel value, so NaNs and extreme keys order as the
// comparator says. Ties (neither element before the other) are broken by
// original position: a bitonic network is not stable by itself, and this
// makes every sort the stable one (what is_stable asks, and a valid answer
// when it does not). Last, each thread copies elements of the sorted row
// (or its first k, for top-k) to the outputs.
//
// Top-k with k well under the row does not sort the whole row (a bitonic
// top-k): runs of K = k rounded up to a power of two are sorted, all in the
// same direction; then, round after round, each pair of runs A, B becomes
// one: C[i] = the earlier of A[i] and B[K-1-i] holds the first K of A and
// B as a bitonic sequence, which log2(K) merge stages sort, in A's place.
// For the 32768-long rows (topk-splitter's chunks of 8192, k = 64)
// that is 70 barriers and a third of the compare-exchanges of the full
// sort's 91 stages.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "backends/common/loop_emitter.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/reduction_util.h"
#include "backends/gpu/row_element.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Module.h"
#include "passes/sort_splitter.h"

namespace hloc {
namespace {

// i32 positions of a row of up to this length take 32 KiB of shared
// memory: within the 48 KiB a block may have without opting in, on every
// architecture we target.
constexpr int64_t kMaxSharedSortLength = 8192;
constexpr int64_t kMaxSortThreads = 1024;
// Short rows share blocks of this many threads: enough warps a block to
// hide the barriers' latency, without the single-warp blocks rows of up to
// 64 elements would otherwise get.
constexpr int64_t kRowThreadsPerBlock = 256;

int64_t NextPowerOfTwo(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

int64_t Log2(int64_t power_of_two) {
  int64_t log = 0;
  while ((int64_t{1} << log) < power_of_two) ++log;
  return log;
}

// A row's operands: how their elements are read, ordered and written.
struct RowOperands {
  std::vector<PrimitiveType> types;
  // Operand k's element at original position `pos` of the row.
  std::function<absl::StatusOr<llvm::Value*>(size_t k, llvm::Value* pos)>
      read;
  // Whether the element with values `x` (one per operand) comes before the
  // element with values `y`.
  std::function<absl::StatusOr<llvm::Value*>(
      const std::vector<llvm::Value*>& x, const std::vector<llvm::Value*>& y)>
      less;
  // Writes output position `dst` from the element with `values` that was at
  // original position `src`.
  std::function<absl::Status(llvm::Value* dst,
                             const std::vector<llvm::Value*>& values,
                             llvm::Value* src)>
      store;
};

struct RowSort {
  // The dimension sorted: rows are along it.
  int64_t dim;
  int64_t rows;
  int64_t length;
  // How many leading positions of the sorted row are stored.
  int64_t stored;
  // Every row is a bitonic sequence under a total order (sort-splitter's
  // merges, kBitonicRowsBackendConfig): one merge stage sorts it.
  bool bitonic = false;
};

// The run length of a bitonic top-k of `sort` in a row padded to `padded`
// positions, or 0 where sorting the whole row is as good: the stored
// prefix rounded up to a power of two, at most a quarter of the row.
int64_t TopKRun(const RowSort& sort, int64_t padded) {
  int64_t run = 1;
  while (run < sort.stored) run <<= 1;
  return run * 4 <= padded ? run : 0;
}

// The row in shared memory: slot i holds the original position of the
// element now at i (u16: rows are at most kMaxSharedSortLength long), and
// the operands that fit are copied there once, at their original
// positions, where the comparator reads them through the position. A
// compare-exchange moves two positions only: moving the values too was
// slower (argsort of 4096 rows of 1024 on the H200: 0.322 ms against 0.274
// reading them from global memory, session 17), as it loads and stores
// every operand twice a stage. An operand that does not fit is read from
// global memory at the position, only where the comparator or the final
// store needs it.
class SharedRow {
 public:
  // The block's `rows_per_block` rows of `padded` slots; this thread's
  // row is `row_in_block`.
  SharedRow(KernelBuilder& kernel, const RowOperands& ops, int64_t padded,
            int64_t rows_per_block, llvm::Value* row_in_block)
      : kernel_(kernel), ops_(ops), b_(kernel.b()) {
    static_assert(kMaxSharedSortLength <= 65536, "positions are u16");
    const int64_t slots = padded * rows_per_block;
    base_ = b_->CreateMul(row_in_block, kernel.Index(padded));
    positions_ = Array(b_->getInt16Ty(), slots, "pos");
    // Operands are cached in order (the first is usually the key the
    // comparator reads first) while the block's static shared memory
    // allows.
    int64_t budget =
        kernel.target().device().shared_memory_per_block - slots * 2;
    const llvm::DataLayout& layout =
        kernel.function()->getParent()->getDataLayout();
    for (size_t k = 0; k < ops.types.size(); ++k) {
      absl::StatusOr<llvm::Type*> type =
          StorageType(ops.types[k], b_->getContext());
      const int64_t bytes =
          type.ok() ? slots * static_cast<int64_t>(
                                  layout.getTypeAllocSize(*type))
                    : budget + 1;
      if (bytes > budget) {
        cached_.push_back(nullptr);
        storage_.push_back(nullptr);
        continue;
      }
      budget -= bytes;
      storage_.push_back(*type);
      cached_.push_back(Array(*type, slots, absl::StrCat("op", k)));
    }
  }

  // Slot `i` of a row of `length` elements takes position i and, inside
  // the row, its values (the padding's are never read).
  absl::Status Init(llvm::Value* i, llvm::Value* length) {
    b_->CreateStore(b_->CreateTrunc(i, b_->getInt16Ty()), Slot(positions_, i));
    return EmitIfThenElse(
        b_->CreateICmpULT(i, length),
        [&]() -> absl::Status {
          for (size_t k = 0; k < cached_.size(); ++k) {
            if (cached_[k] == nullptr) continue;
            HLOC_ASSIGN_OR_RETURN(llvm::Value * v, ops_.read(k, i));
            if (ops_.types[k] == PRED) v = b_->CreateZExt(v, storage_[k]);
            b_->CreateStore(v, Slot(cached_[k], i));
          }
          return absl::OkStatus();
        },
        nullptr, b_);
  }

  // The original position of the element at slot `i` (index-typed).
  llvm::Value* Load(llvm::Value* i) {
    return b_->CreateZExt(b_->CreateLoad(b_->getInt16Ty(), Slot(positions_, i)),
                          kernel_.index_type());
  }

  void Store(llvm::Value* pos, llvm::Value* i) {
    b_->CreateStore(b_->CreateTrunc(pos, b_->getInt16Ty()),
                    Slot(positions_, i));
  }

  // Every operand's value of the element at original position `pos`
  // inside the row: the cached ones from shared memory, the others from
  // global memory.
  absl::StatusOr<std::vector<llvm::Value*>> Values(llvm::Value* pos) {
    std::vector<llvm::Value*> values;
    for (size_t k = 0; k < cached_.size(); ++k) {
      if (cached_[k] == nullptr) {
        HLOC_ASSIGN_OR_RETURN(llvm::Value * v, ops_.read(k, pos));
        values.push_back(v);
        continue;
      }
      llvm::Value* v = b_->CreateLoad(storage_[k], Slot(cached_[k], pos));
      if (ops_.types[k] == PRED) v = b_->CreateTrunc(v, b_->getInt1Ty());
      values.push_back(v);
    }
    return values;
  }

 private:
  llvm::GlobalVariable* Array(llvm::Type* element, int64_t n,
                              absl::string_view name) {
    return SharedArray(kernel_, element, n, std::string(name));
  }
  llvm::Value* Slot(llvm::GlobalVariable* array, llvm::Value* i) {
    return b_->CreateInBoundsGEP(array->getValueType(), array,
                                 {kernel_.Index(0), b_->CreateAdd(base_, i)});
  }

  KernelBuilder& kernel_;
  const RowOperands& ops_;
  llvm::IRBuilderBase* b_;
  llvm::Value* base_;  // The row's first slot.
  llvm::GlobalVariable* positions_;
  std::vector<llvm::GlobalVariable*> cached_;
  std::vector<llvm::Type*> storage_;
};

// How a block's threads share out rows: `threads` a row (a power of two,
// at most padded / 2), `rows_per_block` rows. Several rows to a block
// where rows are short, so that blocks are not a few threads each; their
// threads numbered row-minor when the rows interleave in memory (the sort
// dimension is not the minor one: sort-splitter's groups), so that a warp
// reads consecutive rows' elements together.
struct RowLayout {
  int64_t padded;
  int64_t threads;
  int64_t rows_per_block;
  bool rows_minor;
};

// The kernel body: sorts this thread's row and stores it, where `valid`
// (the last block's rows past the end compute on a copy of the last row
// and store nothing). `tid` is the thread's number within its row.
// With `top_run` > 0 (TopKRun), only the first top_run positions end
// sorted.
absl::Status EmitRowSort(KernelBuilder& kernel, const RowSort& sort,
                         const RowLayout& layout, llvm::Value* tid,
                         llvm::Value* row_in_block, llvm::Value* valid,
                         int64_t top_run, const RowOperands& ops) {
  llvm::IRBuilderBase* b = kernel.b();
  const int64_t padded = layout.padded;
  const int64_t threads = layout.threads;
  SharedRow row(kernel, ops, padded, layout.rows_per_block, row_in_block);
  llvm::Value* length = kernel.Index(sort.length);
  llvm::Value* before_slot = EmitAllocaAtEntry(b->getInt1Ty(), "before", b);

  // Whether the element at original position x goes before the one at y.
  // Positions in the padding come after every element and after each other
  // in order; inside the row the comparator decides and a tie goes to the
  // earlier position.
  auto before = [&](llvm::Value* x,
                    llvm::Value* y) -> absl::StatusOr<llvm::Value*> {
    llvm::Value* padding = b->CreateOr(b->CreateICmpUGE(x, length),
                                       b->CreateICmpUGE(y, length));
    llvm::Value* by_position = b->CreateICmpULT(x, y);
    b->CreateStore(by_position, before_slot);
    HLOC_RETURN_IF_ERROR(EmitIfThenElse(
        b->CreateNot(padding),
        [&]() -> absl::Status {
          HLOC_ASSIGN_OR_RETURN(std::vector<llvm::Value*> xv, row.Values(x));
          HLOC_ASSIGN_OR_RETURN(std::vector<llvm::Value*> yv, row.Values(y));
          HLOC_ASSIGN_OR_RETURN(llvm::Value * lt, ops.less(xv, yv));
          b->CreateStore(b->getTrue(), before_slot);
          return EmitIfThenElse(
              b->CreateNot(lt),
              [&]() -> absl::Status {
                HLOC_ASSIGN_OR_RETURN(llvm::Value * gt, ops.less(yv, xv));
                b->CreateStore(b->CreateAnd(b->CreateNot(gt), by_position),
                               before_slot);
                return absl::OkStatus();
              },
              nullptr, b);
        },
        nullptr, b));
    return b->CreateLoad(b->getInt1Ty(), before_slot);
  };

  llvm::Value* step = kernel.Index(threads);
  llvm::Value* zero = kernel.Index(0);
  llvm::Value* one = kernel.Index(1);
  HLOC_RETURN_IF_ERROR(EmitForLoop(
      "init", tid, kernel.Index(padded), step,
      [&](llvm::Value* i) { return row.Init(i, length); }, b));
  kernel.target().EmitBarrier(b);
  // Pair t of a stage at distance j: its first position, in the runs of
  // 2j that t / j numbers.
  auto pair_start = [&](llvm::Value* t, llvm::Value* j) {
    llvm::Value* low = b->CreateAnd(t, b->CreateSub(j, one));
    return b->CreateAdd(b->CreateShl(b->CreateSub(t, low), 1), low);
  };
  // The elements at slots lo and hi, whose positions `x` and `y` are
  // loaded, put in order (`ascending`) or reversed: swapped where the
  // second is before the first.
  auto compare_exchange = [&](llvm::Value* x, llvm::Value* y, llvm::Value* lo,
                              llvm::Value* hi,
                              llvm::Value* ascending) -> absl::Status {
    HLOC_ASSIGN_OR_RETURN(llvm::Value * swap,
                          before(b->CreateSelect(ascending, y, x),
                                 b->CreateSelect(ascending, x, y)));
    row.Store(b->CreateSelect(swap, y, x), lo);
    row.Store(b->CreateSelect(swap, x, y), hi);
    return absl::OkStatus();
  };
  // One stage at distance j: every thread takes pairs tid, tid + threads,
  // ... (padded / 2 is a multiple of `threads`), emitted one after the
  // other so that all their position loads are in flight together before
  // the first comparison. `ascending(i)` says which way pair i goes.
  const int64_t pairs_per_thread = padded / 2 / threads;
  auto stage = [&](llvm::Value* j,
                   const std::function<llvm::Value*(llvm::Value*)>& ascending)
      -> absl::Status {
    std::vector<llvm::Value*> lows, highs, ups, xs, ys;
    for (int64_t p = 0; p < pairs_per_thread; ++p) {
      llvm::Value* t = b->CreateAdd(tid, kernel.Index(p * threads));
      lows.push_back(pair_start(t, j));
      highs.push_back(b->CreateAdd(lows.back(), j));
      ups.push_back(ascending(lows.back()));
      xs.push_back(row.Load(lows.back()));
      ys.push_back(row.Load(highs.back()));
    }
    for (int64_t p = 0; p < pairs_per_thread; ++p) {
      HLOC_RETURN_IF_ERROR(
          compare_exchange(xs[p], ys[p], lows[p], highs[p], ups[p]));
    }
    kernel.target().EmitBarrier(b);
    return absl::OkStatus();
  };
  // Sorts runs of `run` positions (the whole row when run == padded): merge
  // stages of bitonic sequences of 2^log_k, each a run of compare-exchanges
  // at distances k/2, k/4, ..., 1. Runs shorter than the row all end in
  // the same direction. Rows that are bitonic already need the last merge
  // only.
  const int64_t run = top_run > 0 ? top_run : padded;
  const int64_t first_log_k = sort.bitonic ? Log2(run) : 1;
  HLOC_RETURN_IF_ERROR(EmitForLoop(
      "merge", kernel.Index(first_log_k), kernel.Index(Log2(run) + 1), one,
      [&](llvm::Value* log_k) -> absl::Status {
        llvm::Value* k = b->CreateShl(one, log_k);
        llvm::Value* last = b->CreateICmpEQ(k, kernel.Index(run));
        return EmitForLoop(
            "stage", zero, log_k, one,
            [&](llvm::Value* s) -> absl::Status {
              llvm::Value* j =
                  b->CreateLShr(k, b->CreateAdd(s, one, "", true, true));
              return stage(j, [&](llvm::Value* i) {
                return b->CreateOr(last,
                                   b->CreateICmpEQ(b->CreateAnd(i, k), zero));
              });
            },
            b);
      },
      b));
  // Top-k rounds: the sorted runs of K = top_run positions lie `stride`
  // apart; run 2m + 1 is folded into run 2m, doubling the stride.
  for (int64_t stride = top_run; top_run > 0 && stride < padded; stride *= 2) {
    const int64_t pairs = padded / (2 * stride);
    llvm::Value* k_run = kernel.Index(top_run);
    auto run_base = [&](llvm::Value* m) {
      return b->CreateMul(m, kernel.Index(2 * stride));
    };
    // C[i] = the earlier of A[i] and B[K-1-i], into A[i]: each thread
    // writes only its own A position and reads B, which nothing writes.
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "fold", tid, kernel.Index(pairs * top_run), step,
        [&](llvm::Value* t) -> absl::Status {
          llvm::Value* i = b->CreateURem(t, k_run);
          llvm::Value* a_pos =
              b->CreateAdd(run_base(b->CreateUDiv(t, k_run)), i);
          llvm::Value* b_pos = b->CreateAdd(
              a_pos, b->CreateSub(kernel.Index(stride + top_run - 1),
                                  b->CreateShl(i, 1)));
          llvm::Value* a = row.Load(a_pos);
          llvm::Value* c = row.Load(b_pos);
          HLOC_ASSIGN_OR_RETURN(llvm::Value * take_c, before(c, a));
          row.Store(b->CreateSelect(take_c, c, a), a_pos);
          return absl::OkStatus();
        },
        b));
    kernel.target().EmitBarrier(b);
    // The bitonic C sorted in place: distances K/2, ..., 1.
    for (int64_t j = top_run / 2; j >= 1; j /= 2) {
      llvm::Value* half = kernel.Index(top_run / 2);
      HLOC_RETURN_IF_ERROR(EmitForLoop(
          "fold_merge", tid, kernel.Index(pairs * (top_run / 2)), step,
          [&](llvm::Value* t) -> absl::Status {
            llvm::Value* base = run_base(b->CreateUDiv(t, half));
            llvm::Value* i = b->CreateAdd(
                base, pair_start(b->CreateURem(t, half), kernel.Index(j)));
            llvm::Value* l = b->CreateAdd(i, kernel.Index(j));
            // Loaded in order (argument evaluation order is unspecified).
            llvm::Value* x = row.Load(i);
            llvm::Value* y = row.Load(l);
            return compare_exchange(x, y, i, l, b->getTrue());
          },
          b));
      kernel.target().EmitBarrier(b);
    }
  }
  return EmitIfThenElse(
      valid,
      [&] {
        return EmitForLoop(
            "store", tid, kernel.Index(sort.stored), step,
            [&](llvm::Value* j) -> absl::Status {
              llvm::Value* pos = row.Load(j);
              HLOC_ASSIGN_OR_RETURN(std::vector<llvm::Value*> values,
                                    row.Values(pos));
              return ops.store(j, values, pos);
            },
            b);
      },
      nullptr, b);
}

// Builds the kernel: `threads` a row (padded / 2 up to 1024), and rows
// short enough (padded / 2 at most kRowThreadsPerBlock) several to a block
// of kRowThreadsPerBlock threads.
absl::StatusOr<LaunchDims> EmitRowSortKernel(
    const KernelRequest& request, const HloInstruction* op, const RowSort& sort,
    const std::function<absl::Status(KernelBuilder&, llvm::Value* row,
                                     RowOperands*)>& bind) {
  if (sort.length > kMaxSharedSortLength) {
    return CodegenUnimplemented(
        *op, absl::StrCat("rows longer than ", kMaxSharedSortLength,
                          " elements have no GPU sort yet"));
  }
  for (bool aliased : request.buffers->may_alias) {
    // The outputs are written while other threads still read the operands.
    if (aliased) return CodegenUnimplemented(*op, "sort in place");
  }
  RowLayout layout;
  layout.padded = NextPowerOfTwo(std::max<int64_t>(sort.length, 2));
  layout.threads = std::min(kMaxSortThreads, layout.padded / 2);
  layout.rows_per_block =
      std::max<int64_t>(1, std::min(kRowThreadsPerBlock / layout.threads,
                                    NextPowerOfTwo(sort.rows)));
  layout.rows_minor =
      op->operand(0)->shape().MinorToMajor()[0] != sort.dim;
  const int64_t block_threads = layout.threads * layout.rows_per_block;
  LaunchDims dims;
  dims.grid[0] = sort.length == 0 ? 0
                                  : (sort.rows + layout.rows_per_block - 1) /
                                        layout.rows_per_block;
  dims.block[0] = block_threads;
  bool index64 = MaxElementsTouched(*request.info) > (int64_t{1} << 31) - 1;
  KernelBuilder kernel(*request.target, request.module, *request.info,
                       *request.buffers, request.symbol, block_threads,
                       index64);
  absl::Status status = [&]() -> absl::Status {
    llvm::IRBuilderBase* b = kernel.b();
    llvm::Value* tid = kernel.ThreadId(0);
    llvm::Value* rows_per_block = kernel.Index(layout.rows_per_block);
    llvm::Value* threads = kernel.Index(layout.threads);
    llvm::Value* row_in_block = layout.rows_minor
                                    ? b->CreateURem(tid, rows_per_block)
                                    : b->CreateUDiv(tid, threads);
    llvm::Value* tid_in_row = layout.rows_minor
                                  ? b->CreateUDiv(tid, rows_per_block)
                                  : b->CreateURem(tid, threads);
    llvm::Value* row = b->CreateAdd(
        b->CreateMul(kernel.BlockId(0), rows_per_block), row_in_block);
    llvm::Value* last = kernel.Index(std::max<int64_t>(sort.rows - 1, 0));
    llvm::Value* valid = b->CreateICmpULE(row, last);
    RowOperands ops;
    HLOC_RETURN_IF_ERROR(
        bind(kernel, b->CreateSelect(valid, row, last), &ops));
    return EmitRowSort(kernel, sort, layout, tid_in_row, row_in_block, valid,
                       TopKRun(sort, layout.padded), ops);
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return dims;
}

// x < y in the total order (floats: -NaN < -inf < ... < -0 < +0 < ... <
// inf < NaN, by their bits), for register values of `type`.
llvm::Value* TotalOrderLess(llvm::Value* x, llvm::Value* y, PrimitiveType type,
                            llvm::IRBuilderBase* b) {
  if (IsFloatingPointType(type)) {
    const unsigned bits = x->getType()->getPrimitiveSizeInBits();
    llvm::Type* int_type = b->getIntNTy(bits);
    auto key = [&](llvm::Value* v) {
      llvm::Value* i = b->CreateBitCast(v, int_type);
      // Negative values: flip every bit but the sign, reversing their order.
      return b->CreateXor(i, b->CreateLShr(b->CreateAShr(i, bits - 1), 1));
    };
    return b->CreateICmpSLT(key(x), key(y));
  }
  if (IsSignedIntegralType(type)) return b->CreateICmpSLT(x, y);
  return b->CreateICmpULT(x, y);
}

}  // namespace

absl::StatusOr<LaunchDims> EmitSortKernel(const KernelRequest& request,
                                          const HloInstruction* sort) {
  const int64_t n = sort->operand_count();
  if (n == 0 || sort->dimensions().size() != 1 || sort->to_apply() == nullptr ||
      static_cast<int64_t>(request.info->output_shapes.size()) != n) {
    return CodegenUnimplemented(*sort, "malformed sort");
  }
  const int64_t dim = sort->dimensions(0);
  const Shape& shape = sort->operand(0)->shape();
  const int64_t length = shape.dimensions(dim);
  RowSort rows{dim, length == 0 ? 0 : shape.ElementCount() / length, length,
               length};
  // The merge-only sort needs rows without the kernel's own padding.
  rows.bitonic = sort->backend_config() == kBitonicRowsBackendConfig &&
                 length == NextPowerOfTwo(length);
  return EmitRowSortKernel(
      request, sort, rows,
      [&](KernelBuilder& kernel, llvm::Value* row,
          RowOperands* ops) -> absl::Status {
        llvm::IRBuilderBase* b = kernel.b();
        std::vector<ElementGenerator> operands;
        for (int64_t k = 0; k < n; ++k) {
          HLOC_ASSIGN_OR_RETURN(ElementGenerator g,
                                kernel.generators().Get(sort->operand(k)));
          operands.push_back(std::move(g));
          ops->types.push_back(sort->operand(k)->shape().element_type());
        }
        ops->read = [operands, sort, dim, row, b](
                        size_t k, llvm::Value* pos) {
          return operands[k](
              RowElement(sort->operand(k)->shape(), dim, row, pos, b));
        };
        // comparator(op0[x], op0[y], op1[x], op1[y], ...).
        ops->less = [&kernel, sort](const std::vector<llvm::Value*>& x,
                                    const std::vector<llvm::Value*>& y) {
          std::vector<llvm::Value*> args;
          for (size_t k = 0; k < x.size(); ++k) {
            args.insert(args.end(), {x[k], y[k]});
          }
          return kernel.elemental()->EmitScalarComputation(sort->to_apply(),
                                                           args);
        };
        ops->store = [&kernel, dim, b, row](
                         llvm::Value* dst,
                         const std::vector<llvm::Value*>& values,
                         llvm::Value*) -> absl::Status {
          for (size_t k = 0; k < values.size(); ++k) {
            const IrArray& out = kernel.output(k);
            HLOC_RETURN_IF_ERROR(out.EmitWrite(
                RowElement(out.shape(), dim, row, dst, b), values[k], b));
          }
          return absl::OkStatus();
        };
        return absl::OkStatus();
      });
}

absl::StatusOr<LaunchDims> EmitTopKKernel(const KernelRequest& request,
                                          const HloInstruction* topk) {
  const Shape& shape = topk->operand(0)->shape();
  if (shape.rank() == 0 || request.info->output_shapes.size() != 2) {
    return CodegenUnimplemented(*topk, "malformed topk");
  }
  const int64_t dim = shape.rank() - 1;
  const int64_t length = shape.dimensions(dim);
  const int64_t k = topk->attrs().k;
  const bool largest = topk->attrs().largest;
  const PrimitiveType type = shape.element_type();
  RowSort rows{dim, length == 0 ? 0 : shape.ElementCount() / length, length,
               k};
  return EmitRowSortKernel(
      request, topk, rows,
      [&](KernelBuilder& kernel, llvm::Value* row,
          RowOperands* ops) -> absl::Status {
        llvm::IRBuilderBase* b = kernel.b();
        HLOC_ASSIGN_OR_RETURN(ElementGenerator input,
                              kernel.generators().Get(topk->operand(0)));
        ops->types = {type};
        ops->read = [input, &shape, dim, row, b](size_t, llvm::Value* pos) {
          return input(RowElement(shape, dim, row, pos, b));
        };
        ops->less = [largest, type, b](const std::vector<llvm::Value*>& x,
                                       const std::vector<llvm::Value*>& y)
            -> absl::StatusOr<llvm::Value*> {
          return largest ? TotalOrderLess(y[0], x[0], type, b)
                         : TotalOrderLess(x[0], y[0], type, b);
        };
        ops->store = [&kernel, dim, row, b](
                         llvm::Value* dst,
                         const std::vector<llvm::Value*>& values,
                         llvm::Value* src) -> absl::Status {
          const IrArray& out_values = kernel.output(0);
          const IrArray& out_indices = kernel.output(1);
          HLOC_RETURN_IF_ERROR(out_values.EmitWrite(
              RowElement(out_values.shape(), dim, row, dst, b), values[0], b));
          return out_indices.EmitWrite(
              RowElement(out_indices.shape(), dim, row, dst, b),
              b->CreateTrunc(src, b->getInt32Ty()), b);
        };
        return absl::OkStatus();
      });
}

}  // namespace hloc

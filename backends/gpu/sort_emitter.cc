// Sort and top-k: one block per row. The row's permutation (i32 positions
// 0..P-1, P the row length rounded up to a power of two) is sorted in
// shared memory by a bitonic network: log2(P) * (log2(P) + 1) / 2 stages of
// compare-exchanges, every thread taking pairs in turn, a barrier after each
// stage. Elements are compared where they lie (the operands' generators
// read them at the permuted positions), so any number of operands of any
// type sort together, and the comparator is inlined.
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
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

// i32 positions of a row of up to this length take 32 KiB of shared
// memory: within the 48 KiB a block may have without opting in, on every
// architecture we target.
constexpr int64_t kMaxSharedSortLength = 8192;
constexpr int64_t kMaxSortThreads = 1024;

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

// The index of position `pos` of row `row` in an array of `shape` sorted
// along `dim`: rows are numbered row-major over the other dimensions.
IrIndex RowElement(const Shape& shape, int64_t dim, llvm::Value* row,
                   llvm::Value* pos, llvm::IRBuilderBase* b) {
  std::vector<int64_t> dims = shape.dimensions();
  dims.erase(dims.begin() + dim);
  IrIndex r = IrIndex::FromLinear(
      row, Shape::Array(shape.element_type(), std::move(dims)), b);
  std::vector<llvm::Value*> multidim = r.multidim();
  multidim.insert(multidim.begin() + dim, pos);
  return IrIndex(std::move(multidim), row->getType());
}

// "x before y" for positions x, y of the row being sorted (both inside it).
using PositionLess =
    std::function<absl::StatusOr<llvm::Value*>(llvm::Value* x, llvm::Value* y)>;
// Writes output position `dst` from the element at original position `src`.
using PositionStore =
    std::function<absl::Status(llvm::Value* dst, llvm::Value* src)>;

struct RowSort {
  int64_t rows;
  int64_t length;
  // How many leading positions of the sorted row are stored.
  int64_t stored;
};

// The run length of a bitonic top-k of `sort` in a row padded to `padded`
// positions, or 0 where sorting the whole row is as good: the stored
// prefix rounded up to a power of two, at most a quarter of the row.
int64_t TopKRun(const RowSort& sort, int64_t padded) {
  int64_t run = 1;
  while (run < sort.stored) run <<= 1;
  return run * 4 <= padded ? run : 0;
}

// The kernel body: sorts row BlockId(0) and stores it.
// With `top_run` > 0 (TopKRun), only the first top_run positions end
// sorted.
absl::Status EmitRowSort(KernelBuilder& kernel, const RowSort& sort,
                         int64_t padded, int64_t top_run, int64_t threads,
                         const PositionLess& less, const PositionStore& store) {
  llvm::IRBuilderBase* b = kernel.b();
  llvm::Type* i32 = b->getInt32Ty();
  llvm::Type* array = llvm::ArrayType::get(i32, padded);
  auto* perm = new llvm::GlobalVariable(
      *kernel.function()->getParent(), array, false,
      llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(array),
      absl::StrCat(kernel.function()->getName().str(), ".perm"), nullptr,
      llvm::GlobalValue::NotThreadLocal,
      kernel.target().shared_address_space());
  auto slot = [&](llvm::Value* i) {
    return b->CreateInBoundsGEP(array, perm, {kernel.Index(0), i});
  };
  auto load = [&](llvm::Value* i) {
    return b->CreateZExt(b->CreateLoad(i32, slot(i)), kernel.index_type());
  };
  auto store_pos = [&](llvm::Value* v, llvm::Value* i) {
    b->CreateStore(b->CreateTrunc(v, i32), slot(i));
  };
  llvm::Value* tid = kernel.ThreadId(0);
  llvm::Value* length = kernel.Index(sort.length);
  llvm::Value* before_slot = EmitAllocaAtEntry(b->getInt1Ty(), "before", b);

  // Positions in the padding come after every element and after each
  // other in order; inside the row the comparator decides and a tie goes to
  // the earlier position.
  auto before = [&](llvm::Value* x, llvm::Value* y) -> absl::Status {
    llvm::Value* padding =
        b->CreateOr(b->CreateICmpUGE(x, length), b->CreateICmpUGE(y, length));
    llvm::Value* by_position = b->CreateICmpULT(x, y);
    b->CreateStore(by_position, before_slot);
    return EmitIfThenElse(
        b->CreateNot(padding),
        [&]() -> absl::Status {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * lt, less(x, y));
          b->CreateStore(b->getTrue(), before_slot);
          return EmitIfThenElse(
              b->CreateNot(lt),
              [&]() -> absl::Status {
                HLOC_ASSIGN_OR_RETURN(llvm::Value * gt, less(y, x));
                b->CreateStore(b->CreateAnd(b->CreateNot(gt), by_position),
                               before_slot);
                return absl::OkStatus();
              },
              nullptr, b);
        },
        nullptr, b);
  };

  llvm::Value* step = kernel.Index(threads);
  llvm::Value* zero = kernel.Index(0);
  llvm::Value* one = kernel.Index(1);
  HLOC_RETURN_IF_ERROR(EmitForLoop(
      "iota", tid, kernel.Index(padded), step,
      [&](llvm::Value* i) {
        store_pos(i, i);
        return absl::OkStatus();
      },
      b));
  kernel.target().EmitBarrier(b);
  // The positions at i and i + j in order (`ascending`) or reversed.
  auto compare_exchange = [&](llvm::Value* i, llvm::Value* j,
                              llvm::Value* ascending) -> absl::Status {
    llvm::Value* l = b->CreateAdd(i, j);
    llvm::Value* a = load(i);
    llvm::Value* c = load(l);
    // Ascending: swap when c belongs before a.
    HLOC_RETURN_IF_ERROR(before(b->CreateSelect(ascending, c, a),
                                b->CreateSelect(ascending, a, c)));
    llvm::Value* swap = b->CreateLoad(b->getInt1Ty(), before_slot);
    store_pos(b->CreateSelect(swap, c, a), i);
    store_pos(b->CreateSelect(swap, a, c), l);
    return absl::OkStatus();
  };
  // Pair t of a stage at distance j: its first position, in the runs of
  // 2j that t / j numbers.
  auto pair_start = [&](llvm::Value* t, llvm::Value* j) {
    llvm::Value* low = b->CreateAnd(t, b->CreateSub(j, one));
    return b->CreateAdd(b->CreateShl(b->CreateSub(t, low), 1), low);
  };
  // Sorts runs of `run` positions (the whole row when run == padded): merge
  // stages of bitonic sequences of 2^log_k, each a run of compare-exchanges
  // at distances k/2, k/4, ..., 1. Runs shorter than the row all end in
  // the same direction.
  const int64_t run = top_run > 0 ? top_run : padded;
  HLOC_RETURN_IF_ERROR(EmitForLoop(
      "merge", one, kernel.Index(Log2(run) + 1), one,
      [&](llvm::Value* log_k) -> absl::Status {
        llvm::Value* k = b->CreateShl(one, log_k);
        llvm::Value* last = b->CreateICmpEQ(k, kernel.Index(run));
        return EmitForLoop(
            "stage", zero, log_k, one,
            [&](llvm::Value* s) -> absl::Status {
              llvm::Value* j =
                  b->CreateLShr(k, b->CreateAdd(s, one, "", true, true));
              HLOC_RETURN_IF_ERROR(EmitForLoop(
                  "pair", tid, kernel.Index(padded / 2), step,
                  [&](llvm::Value* t) -> absl::Status {
                    llvm::Value* i = pair_start(t, j);
                    llvm::Value* ascending = b->CreateOr(
                        last, b->CreateICmpEQ(b->CreateAnd(i, k), zero));
                    return compare_exchange(i, j, ascending);
                  },
                  b));
              kernel.target().EmitBarrier(b);
              return absl::OkStatus();
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
          llvm::Value* a = load(a_pos);
          llvm::Value* c = load(b_pos);
          HLOC_RETURN_IF_ERROR(before(c, a));
          llvm::Value* take_c = b->CreateLoad(b->getInt1Ty(), before_slot);
          store_pos(b->CreateSelect(take_c, c, a), a_pos);
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
            return compare_exchange(i, kernel.Index(j), b->getTrue());
          },
          b));
      kernel.target().EmitBarrier(b);
    }
  }
  return EmitForLoop(
      "store", tid, kernel.Index(sort.stored), step,
      [&](llvm::Value* j) { return store(j, load(j)); }, b);
}

// Builds the kernel: a block of `threads` per row.
absl::StatusOr<LaunchDims> EmitRowSortKernel(
    const KernelRequest& request, const HloInstruction* op, const RowSort& sort,
    const std::function<absl::Status(KernelBuilder&, llvm::Value* row,
                                     PositionLess*, PositionStore*)>& bind) {
  if (sort.length > kMaxSharedSortLength) {
    return CodegenUnimplemented(
        *op, absl::StrCat("rows longer than ", kMaxSharedSortLength,
                          " elements have no GPU sort yet"));
  }
  for (bool aliased : request.buffers->may_alias) {
    // The outputs are written while other threads still read the operands.
    if (aliased) return CodegenUnimplemented(*op, "sort in place");
  }
  const int64_t padded = NextPowerOfTwo(std::max<int64_t>(sort.length, 2));
  const int64_t threads = std::min(kMaxSortThreads, padded / 2);
  LaunchDims dims;
  dims.grid[0] = sort.length == 0 ? 0 : sort.rows;
  dims.block[0] = threads;
  bool index64 = MaxElementsTouched(*request.info) > (int64_t{1} << 31) - 1;
  KernelBuilder kernel(*request.target, request.module, *request.info,
                       *request.buffers, request.symbol, threads, index64);
  absl::Status status = [&]() -> absl::Status {
    PositionLess less;
    PositionStore store;
    HLOC_RETURN_IF_ERROR(bind(kernel, kernel.BlockId(0), &less, &store));
    return EmitRowSort(kernel, sort, padded, TopKRun(sort, padded), threads,
                       less, store);
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
  RowSort rows{length == 0 ? 0 : shape.ElementCount() / length, length, length};
  return EmitRowSortKernel(
      request, sort, rows,
      [&](KernelBuilder& kernel, llvm::Value* row, PositionLess* less,
          PositionStore* store) -> absl::Status {
        llvm::IRBuilderBase* b = kernel.b();
        std::vector<ElementGenerator> operands;
        for (int64_t k = 0; k < n; ++k) {
          HLOC_ASSIGN_OR_RETURN(ElementGenerator g,
                                kernel.generators().Get(sort->operand(k)));
          operands.push_back(std::move(g));
        }
        auto at = [b, sort, dim, row](int64_t k, llvm::Value* pos) {
          return RowElement(sort->operand(k)->shape(), dim, row, pos, b);
        };
        // comparator(op0[x], op0[y], op1[x], op1[y], ...).
        *less = [&kernel, operands, at, sort, n](
                    llvm::Value* x,
                    llvm::Value* y) -> absl::StatusOr<llvm::Value*> {
          std::vector<llvm::Value*> args;
          for (int64_t k = 0; k < n; ++k) {
            for (llvm::Value* pos : {x, y}) {
              HLOC_ASSIGN_OR_RETURN(llvm::Value * v, operands[k](at(k, pos)));
              args.push_back(v);
            }
          }
          return kernel.elemental()->EmitScalarComputation(sort->to_apply(),
                                                           args);
        };
        *store = [&kernel, operands, at, dim, n, b, row](
                     llvm::Value* dst, llvm::Value* src) -> absl::Status {
          for (int64_t k = 0; k < n; ++k) {
            HLOC_ASSIGN_OR_RETURN(llvm::Value * v, operands[k](at(k, src)));
            const IrArray& out = kernel.output(k);
            HLOC_RETURN_IF_ERROR(
                out.EmitWrite(RowElement(out.shape(), dim, row, dst, b), v, b));
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
  RowSort rows{length == 0 ? 0 : shape.ElementCount() / length, length, k};
  return EmitRowSortKernel(
      request, topk, rows,
      [&](KernelBuilder& kernel, llvm::Value* row, PositionLess* less,
          PositionStore* store) -> absl::Status {
        llvm::IRBuilderBase* b = kernel.b();
        HLOC_ASSIGN_OR_RETURN(ElementGenerator input,
                              kernel.generators().Get(topk->operand(0)));
        auto value = [input, &shape, dim, row, b](llvm::Value* pos) {
          return input(RowElement(shape, dim, row, pos, b));
        };
        *less = [value, largest, type, b](
                    llvm::Value* x,
                    llvm::Value* y) -> absl::StatusOr<llvm::Value*> {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * vx, value(x));
          HLOC_ASSIGN_OR_RETURN(llvm::Value * vy, value(y));
          return largest ? TotalOrderLess(vy, vx, type, b)
                         : TotalOrderLess(vx, vy, type, b);
        };
        *store = [&kernel, value, dim, row, b](
                     llvm::Value* dst, llvm::Value* src) -> absl::Status {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * v, value(src));
          const IrArray& values = kernel.output(0);
          const IrArray& indices = kernel.output(1);
          HLOC_RETURN_IF_ERROR(values.EmitWrite(
              RowElement(values.shape(), dim, row, dst, b), v, b));
          return indices.EmitWrite(
              RowElement(indices.shape(), dim, row, dst, b),
              b->CreateTrunc(src, b->getInt32Ty()), b);
        };
        return absl::OkStatus();
      });
}

}  // namespace hloc

#include "backends/cpu/sort_emitter.h"

#include <algorithm>
#include <vector>

#include "backends/common/elemental_emitter.h"
#include "backends/common/ir_array.h"
#include "backends/common/loop_emitter.h"
#include "backends/cpu/ir_emitter.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

constexpr int64_t kInsertionRun = 16;

// The offsets of one operand's rows: the group of every dimension but the
// sort dimension, and the stride along it.
struct RowView {
  DimGroup rows;
  int64_t stride;
};

RowView MakeRowView(const Shape& shape, int64_t dim) {
  std::vector<int64_t> strides = LayoutStrides(shape);
  std::vector<int64_t> sizes, s;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (d == dim) continue;
    sizes.push_back(shape.dimensions(d));
    s.push_back(strides[d]);
  }
  return RowView{DimGroup(sizes, s), strides[dim]};
}

}  // namespace

absl::Status EmitSortKernel(const HloInstruction& hlo,
                            const std::string& symbol,
                            const OpEmitterContext& ctx) {
  const int64_t n = hlo.operand_count();
  if (n == 0 || hlo.dimensions().size() != 1 || hlo.to_apply() == nullptr) {
    return OpUnimplemented(hlo, "malformed sort");
  }
  std::vector<Shape> outputs;
  if (hlo.shape().IsTuple()) {
    for (const Shape& s : hlo.shape().tuple_shapes()) outputs.push_back(s);
  } else {
    outputs.push_back(hlo.shape());
  }
  if (static_cast<int64_t>(outputs.size()) != n) {
    return OpUnimplemented(hlo, "sort result does not match its operands");
  }
  llvm::Module* module = ctx.module;
  llvm::LLVMContext& context = module->getContext();
  for (int64_t k = 0; k < n; ++k) {
    const Shape& s = hlo.operand(k)->shape();
    if (!s.IsArray() || !outputs[k].IsArray() ||
        !StorageType(s.element_type(), context).ok()) {
      return OpUnimplemented(hlo, "sort operand type");
    }
  }
  const int64_t dim = hlo.dimensions(0);
  const Shape& shape0 = hlo.operand(0)->shape();
  const int64_t length = shape0.dimensions(dim);
  const int64_t total = shape0.ElementCount();
  const int64_t rows = length == 0 ? 0 : total / length;
  std::vector<RowView> in_views, out_views;
  for (int64_t k = 0; k < n; ++k) {
    in_views.push_back(MakeRowView(hlo.operand(k)->shape(), dim));
    out_views.push_back(MakeRowView(outputs[k], dim));
  }

  llvm::Function* range = CreateRangeFunction(module, symbol + ".rows", 2 * n);
  llvm::IRBuilder<> builder(&range->getEntryBlock());
  llvm::IRBuilderBase* b = &builder;
  ElementalEmitter elemental(module, b, ctx.math);
  llvm::Value* lo = range->getArg(2 * n);
  llvm::Value* hi = range->getArg(2 * n + 1);
  llvm::Type* idx =
      length <= (int64_t{1} << 31) - 1 ? b->getInt32Ty() : b->getInt64Ty();
  const int64_t idx_bytes = idx->getIntegerBitWidth() / 8;
  auto i64 = [b](int64_t v) { return b->getInt64(v); };
  auto at = [&](llvm::Value* base, llvm::Value* i) {
    return b->CreateInBoundsGEP(idx, base, i);
  };
  auto load_index = [&](llvm::Value* base, llvm::Value* i) {
    return b->CreateZExt(b->CreateLoad(idx, at(base, i)), b->getInt64Ty());
  };
  auto store_index = [&](llvm::Value* v, llvm::Value* base, llvm::Value* i) {
    b->CreateStore(b->CreateTrunc(v, idx), at(base, i));
  };
  auto new_block = [&](const char* name) {
    return llvm::BasicBlock::Create(context, name, range);
  };

  llvm::Value* perm = EmitAlignedMalloc(i64(length * idx_bytes), b);
  llvm::Value* scratch = EmitAlignedMalloc(i64(length * idx_bytes), b);
  llvm::Value* src_slot = EmitAllocaAtEntry(b->getPtrTy(), "src", b);
  llvm::Value* dst_slot = EmitAllocaAtEntry(b->getPtrTy(), "dst", b);
  llvm::Value* i_slot = EmitAllocaAtEntry(b->getInt64Ty(), "i", b);
  llvm::Value* j_slot = EmitAllocaAtEntry(b->getInt64Ty(), "j", b);

  HLOC_RETURN_IF_ERROR(EmitForLoop(
      "row", lo, hi, i64(1),
      [&](llvm::Value* r) -> absl::Status {
        std::vector<llvm::Value*> in_base, out_base;
        for (int64_t k = 0; k < n; ++k) {
          in_base.push_back(in_views[k].rows.Offset(r, b));
          out_base.push_back(out_views[k].rows.Offset(r, b));
        }
        // comparator(op0[x], op0[y], op1[x], op1[y], ...): x before y.
        auto less = [&](llvm::Value* x,
                        llvm::Value* y) -> absl::StatusOr<llvm::Value*> {
          std::vector<llvm::Value*> args;
          for (int64_t k = 0; k < n; ++k) {
            const PrimitiveType t = hlo.operand(k)->shape().element_type();
            for (llvm::Value* e : {x, y}) {
              llvm::Value* off = b->CreateAdd(
                  in_base[k], b->CreateMul(e, i64(in_views[k].stride)));
              HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                                    LoadFlat(t, range->getArg(k), off, b));
              args.push_back(v);
            }
          }
          return elemental.EmitScalarComputation(hlo.to_apply(), args);
        };
        HLOC_RETURN_IF_ERROR(EmitForLoop(
            "iota", i64(0), i64(length), i64(1),
            [&](llvm::Value* j) {
              store_index(j, perm, j);
              return absl::OkStatus();
            },
            b));
        // Insertion sort of each run of kInsertionRun.
        HLOC_RETURN_IF_ERROR(EmitForLoop(
            "run", i64(0), i64(length), i64(kInsertionRun),
            [&](llvm::Value* s) -> absl::Status {
              llvm::Value* e = b->CreateBinaryIntrinsic(
                  llvm::Intrinsic::smin, b->CreateAdd(s, i64(kInsertionRun)),
                  i64(length));
              return EmitForLoop(
                  "ins", b->CreateAdd(s, i64(1)), e, i64(1),
                  [&](llvm::Value* i) -> absl::Status {
                    llvm::Value* v = load_index(perm, i);
                    b->CreateStore(i, j_slot);
                    llvm::BasicBlock* header = new_block("shift.header");
                    llvm::BasicBlock* check = new_block("shift.check");
                    llvm::BasicBlock* shift = new_block("shift.body");
                    llvm::BasicBlock* done = new_block("shift.done");
                    b->CreateBr(header);
                    b->SetInsertPoint(header);
                    llvm::Value* j = b->CreateLoad(b->getInt64Ty(), j_slot);
                    b->CreateCondBr(b->CreateICmpSGT(j, s), check, done);
                    b->SetInsertPoint(check);
                    llvm::Value* jm1 = b->CreateSub(j, i64(1));
                    llvm::Value* prev = load_index(perm, jm1);
                    HLOC_ASSIGN_OR_RETURN(llvm::Value * lt, less(v, prev));
                    b->CreateCondBr(lt, shift, done);
                    b->SetInsertPoint(shift);
                    store_index(prev, perm, j);
                    b->CreateStore(jm1, j_slot);
                    b->CreateBr(header);
                    b->SetInsertPoint(done);
                    store_index(v, perm,
                                b->CreateLoad(b->getInt64Ty(), j_slot));
                    return absl::OkStatus();
                  },
                  b);
            },
            b));
        // Bottom-up merges of runs of width, 2 width, ...
        b->CreateStore(perm, src_slot);
        b->CreateStore(scratch, dst_slot);
        HLOC_RETURN_IF_ERROR(EmitWhileLoop(
            "width", i64(kInsertionRun), i64(length),
            [&](llvm::Value* width) -> absl::StatusOr<llvm::Value*> {
              llvm::Value* src = b->CreateLoad(b->getPtrTy(), src_slot);
              llvm::Value* dst = b->CreateLoad(b->getPtrTy(), dst_slot);
              llvm::Value* step = b->CreateMul(width, i64(2));
              HLOC_RETURN_IF_ERROR(EmitWhileLoop(
                  "pair", i64(0), i64(length),
                  [&](llvm::Value* p) -> absl::StatusOr<llvm::Value*> {
                    auto min_len = [&](llvm::Value* v) {
                      return b->CreateBinaryIntrinsic(llvm::Intrinsic::smin, v,
                                                      i64(length));
                    };
                    llvm::Value* mid = min_len(b->CreateAdd(p, width));
                    llvm::Value* end = min_len(b->CreateAdd(p, step));
                    b->CreateStore(p, i_slot);
                    b->CreateStore(mid, j_slot);
                    HLOC_RETURN_IF_ERROR(EmitForLoop(
                        "merge", p, end, i64(1),
                        [&](llvm::Value* o) -> absl::Status {
                          llvm::Value* i =
                              b->CreateLoad(b->getInt64Ty(), i_slot);
                          llvm::Value* j =
                              b->CreateLoad(b->getInt64Ty(), j_slot);
                          llvm::BasicBlock* right_left =
                              new_block("merge.right_left");
                          llvm::BasicBlock* compare =
                              new_block("merge.compare");
                          llvm::BasicBlock* take_left = new_block("merge.left");
                          llvm::BasicBlock* take_right =
                              new_block("merge.right");
                          llvm::BasicBlock* next = new_block("merge.next");
                          b->CreateCondBr(b->CreateICmpSGE(j, end), take_left,
                                          right_left);
                          b->SetInsertPoint(right_left);
                          b->CreateCondBr(b->CreateICmpSGE(i, mid), take_right,
                                          compare);
                          // Both runs have elements: branch-free (the
                          // comparison is unpredictable).
                          b->SetInsertPoint(compare);
                          llvm::Value* x = load_index(src, j);
                          llvm::Value* y = load_index(src, i);
                          HLOC_ASSIGN_OR_RETURN(llvm::Value * lt, less(x, y));
                          store_index(b->CreateSelect(lt, x, y), dst, o);
                          llvm::Value* step_right =
                              b->CreateZExt(lt, b->getInt64Ty());
                          b->CreateStore(b->CreateAdd(j, step_right), j_slot);
                          b->CreateStore(
                              b->CreateAdd(i, b->CreateSub(i64(1), step_right)),
                              i_slot);
                          b->CreateBr(next);
                          b->SetInsertPoint(take_left);
                          store_index(load_index(src, i), dst, o);
                          b->CreateStore(b->CreateAdd(i, i64(1)), i_slot);
                          b->CreateBr(next);
                          b->SetInsertPoint(take_right);
                          store_index(load_index(src, j), dst, o);
                          b->CreateStore(b->CreateAdd(j, i64(1)), j_slot);
                          b->CreateBr(next);
                          b->SetInsertPoint(next);
                          return absl::OkStatus();
                        },
                        b));
                    return b->CreateAdd(p, step);
                  },
                  b));
              b->CreateStore(dst, src_slot);
              b->CreateStore(src, dst_slot);
              return step;
            },
            b));
        // Gather every output row through the permutation.
        llvm::Value* sorted = b->CreateLoad(b->getPtrTy(), src_slot);
        return EmitForLoop(
            "gather", i64(0), i64(length), i64(1),
            [&](llvm::Value* j) -> absl::Status {
              llvm::Value* p = load_index(sorted, j);
              for (int64_t k = 0; k < n; ++k) {
                const PrimitiveType t = hlo.operand(k)->shape().element_type();
                HLOC_ASSIGN_OR_RETURN(
                    llvm::Value * v,
                    LoadFlat(
                        t, range->getArg(k),
                        b->CreateAdd(in_base[k],
                                     b->CreateMul(p, i64(in_views[k].stride))),
                        b));
                HLOC_RETURN_IF_ERROR(StoreFlat(
                    t, range->getArg(n + k),
                    b->CreateAdd(out_base[k],
                                 b->CreateMul(j, i64(out_views[k].stride))),
                    v, b));
              }
              return absl::OkStatus();
            },
            b);
      },
      b));
  EmitFree(perm, b);
  EmitFree(scratch, b);
  b->CreateRetVoid();
  DisableLoopUnrolling(range);
  // About length * log2(length) comparisons per row.
  int64_t log_length = 1;
  while ((int64_t{1} << log_length) < length) ++log_length;
  EmitKernelEntry(
      module, symbol, 2 * n,
      {{range, rows,
        ShouldRunParallel(*ctx.options, rows, total * log_length)}});
  return absl::OkStatus();
}

}  // namespace hloc

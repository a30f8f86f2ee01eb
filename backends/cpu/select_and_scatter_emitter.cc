#include "backends/cpu/select_and_scatter_emitter.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/common/elemental_emitter.h"
#include "backends/common/ir_array.h"
#include "backends/common/loop_emitter.h"
#include "backends/cpu/ir_emitter.h"
#include "hlo/computation.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

// Work items of the parallel scatter: about this many, so that any thread
// count up to a few dozen gets balanced shares.
constexpr int64_t kTargetItems = 256;

// The lane path unrolls the window in the IR: at most this many elements.
constexpr int64_t kMaxUnrolledWindow = 64;

// Lanes are processed in blocks of at most this many (the picks of a block
// are kept in a stack array between the scan and the scatter).
constexpr int64_t kLaneBlock = 512;

bool IsScalarOf(const Shape& shape, PrimitiveType type) {
  return shape.IsArray() && shape.rank() == 0 && shape.element_type() == type;
}

// How the output is cut into work items: dimensions [0, split) one index
// per item, dimension `split` in blocks of `block` rows; split == -1 is
// one item covering everything.
struct Partition {
  int64_t split = -1;
  int64_t block = 1;
  std::vector<int64_t> item_sizes;  // D_0 .. D_{split-1}, number of blocks
  int64_t items = 1;
};

Partition ChoosePartition(const Shape& out, const Window& window) {
  Partition p;
  int64_t leading = 1;
  for (int64_t d = 0; d < out.rank(); ++d) {
    const WindowDimension& w = window.dimensions[d];
    const int64_t size = out.dimensions(d);
    const int64_t extent = (w.size - 1) * w.window_dilation + 1;
    if (extent == 1 && leading * size < kTargetItems && d + 1 < out.rank()) {
      // A window of size 1 touches one row: one index per item costs no
      // redundant select work.
      p.item_sizes.push_back(size);
      leading *= size;
      continue;
    }
    // Blocks of at least four window extents (in operand rows), so that
    // the windows evaluated by two neighbouring items stay a small share.
    const int64_t min_block =
        extent > 1 ? CeilOfRatio(4 * (extent - 1), w.base_dilation) : 1;
    int64_t block = std::max(
        min_block,
        CeilOfRatio(size,
                    std::max<int64_t>(1, CeilOfRatio(kTargetItems, leading))));
    block = std::max<int64_t>(1, std::min(block, size));
    const int64_t blocks = CeilOfRatio(size, block);
    p.split = d;
    p.block = block;
    p.item_sizes.push_back(blocks);
    p.items = leading * blocks;
    return p;
  }
  return Partition{};
}

}  // namespace

absl::Status EmitSelectAndScatterKernel(const HloInstruction& hlo,
                                        const std::string& symbol,
                                        const OpEmitterContext& ctx) {
  if (hlo.operand_count() != 3 || hlo.called_computations().size() != 2) {
    return OpUnimplemented(hlo, "malformed select-and-scatter");
  }
  llvm::Module* module = ctx.module;
  llvm::LLVMContext& context = module->getContext();
  const Shape& op = hlo.operand(0)->shape();
  const Shape& src = hlo.operand(1)->shape();
  const Shape& init = hlo.operand(2)->shape();
  const Shape& out = hlo.shape();
  if (!op.IsArray() || !src.IsArray() || !init.IsArray() || !out.IsArray()) {
    return OpUnimplemented(hlo, "select-and-scatter of non-arrays");
  }
  for (const Shape* s : {&op, &src, &init, &out}) {
    if (!StorageType(s->element_type(), context).ok()) {
      return OpUnimplemented(
          hlo, absl::StrCat("select-and-scatter element type ",
                            std::string(PrimitiveTypeName(s->element_type()))));
    }
  }
  // XLA omits the empty window of a rank-0 operand.
  const Window window = hlo.attrs().window.value_or(Window{});
  const int64_t rank = op.rank();
  if (src.rank() != rank || out.dimensions() != op.dimensions() ||
      static_cast<int64_t>(window.dimensions.size()) != rank ||
      init.ElementCount() != 1 || init.element_type() != out.element_type()) {
    return OpUnimplemented(hlo, "select-and-scatter shapes do not match");
  }
  int64_t window_elements = 1;
  bool base_dilated = false;
  for (const WindowDimension& w : window.dimensions) {
    if (w.window_reversal) {
      return OpUnimplemented(hlo, "select-and-scatter with window reversal");
    }
    if (w.size < 0 || w.stride <= 0 || w.window_dilation <= 0 ||
        w.base_dilation <= 0) {
      return OpUnimplemented(hlo, "select-and-scatter with a bad window");
    }
    window_elements *= w.size;
    base_dilated |= w.base_dilation > 1;
  }
  const HloComputation* select = hlo.called_computations()[0];
  const HloComputation* scatter = hlo.called_computations()[1];
  if (select == nullptr || scatter == nullptr ||
      select->num_parameters() != 2 || scatter->num_parameters() != 2 ||
      !IsScalarOf(select->parameter_instruction(0)->shape(),
                  op.element_type()) ||
      !IsScalarOf(select->parameter_instruction(1)->shape(),
                  op.element_type()) ||
      !IsScalarOf(select->root_instruction()->shape(), PRED) ||
      !IsScalarOf(scatter->parameter_instruction(0)->shape(),
                  out.element_type()) ||
      !IsScalarOf(scatter->parameter_instruction(1)->shape(),
                  src.element_type()) ||
      !IsScalarOf(scatter->root_instruction()->shape(), out.element_type())) {
    return OpUnimplemented(
        hlo, "select or scatter computation does not match the operands");
  }

  const std::vector<int64_t> op_strides = LayoutStrides(op);
  const std::vector<int64_t> src_strides = LayoutStrides(src);
  const std::vector<int64_t> out_strides = LayoutStrides(out);
  const int64_t out_count = out.ElementCount();
  const int64_t src_count = src.ElementCount();
  constexpr int64_t kNumBuffers = 4;  // operand, source, init, output
  std::vector<KernelLoop> loops;

  // 1. The output starts as the init value.
  {
    llvm::Function* range =
        CreateRangeFunction(module, symbol + ".init", kNumBuffers);
    llvm::IRBuilder<> builder(&range->getEntryBlock());
    llvm::IRBuilderBase* b = &builder;
    HLOC_ASSIGN_OR_RETURN(
        llvm::Value * value,
        LoadFlat(out.element_type(), range->getArg(2), b->getInt64(0), b));
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "init", range->getArg(kNumBuffers), range->getArg(kNumBuffers + 1),
        b->getInt64(1),
        [&](llvm::Value* i) {
          return StoreFlat(out.element_type(), range->getArg(3), i, value, b);
        },
        b));
    b->CreateRetVoid();
    loops.push_back({range, out_count,
                     ShouldRunParallel(*ctx.options, out_count, out_count)});
  }

  if (src_count == 0 || window_elements == 0 || out_count == 0) {
    // No window has an element: nothing is scattered.
    EmitKernelEntry(module, symbol, kNumBuffers, loops);
    return absl::OkStatus();
  }

  // 2. The scatter.
  Partition partition = ChoosePartition(out, window);
  const int64_t work = src_count * window_elements;
  const bool parallel = partition.items >= 2 &&
                        ShouldRunParallel(*ctx.options, partition.items, work);
  if (!parallel) partition = Partition{};
  const int64_t split = partition.split;

  llvm::Function* range =
      CreateRangeFunction(module, symbol + ".scatter", kNumBuffers);
  llvm::IRBuilder<> builder(&range->getEntryBlock());
  llvm::IRBuilderBase* b = &builder;
  ElementalEmitter elemental(module, b, ctx.math);
  auto i64 = [b](int64_t v) { return b->getInt64(v); };
  llvm::Value* operand_buffer = range->getArg(0);
  llvm::Value* source_buffer = range->getArg(1);
  llvm::Value* out_buffer = range->getArg(3);
  HLOC_ASSIGN_OR_RETURN(llvm::Type * value_type,
                        RegisterType(op.element_type(), context));
  llvm::Value* have_slot = EmitAllocaAtEntry(b->getInt1Ty(), "have", b);
  llvm::Value* pick_slot = EmitAllocaAtEntry(value_type, "pick", b);
  std::vector<llvm::Value*> pos_slots;
  for (int64_t d = 0; d < rank; ++d) {
    pos_slots.push_back(EmitAllocaAtEntry(b->getInt64Ty(), "pos", b));
  }
  // Floor division by a positive constant.
  auto floor_div = [&](llvm::Value* a, int64_t divisor) -> llvm::Value* {
    if (divisor == 1) return a;
    llvm::Value* q = b->CreateSDiv(a, i64(divisor));
    llvm::Value* r = b->CreateSRem(a, i64(divisor));
    return b->CreateSub(
        q, b->CreateZExt(b->CreateICmpSLT(r, i64(0)), b->getInt64Ty()));
  };
  auto smax = [&](llvm::Value* x, llvm::Value* y) {
    return b->CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, y);
  };
  auto smin = [&](llvm::Value* x, llvm::Value* y) {
    return b->CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, y);
  };

  // The windows of source index `o` (one value per dimension): scans it,
  // then scatters if the pick lies in [own_lo, own_hi) along the split
  // dimensions.
  auto emit_window =
      [&](const std::vector<llvm::Value*>& o,
          const std::vector<llvm::Value*>& own_lo,
          const std::vector<llvm::Value*>& own_hi) -> absl::Status {
    b->CreateStore(b->getFalse(), have_slot);
    // A defined value, so that the first select call sees no undef.
    b->CreateStore(llvm::Constant::getNullValue(value_type), pick_slot);
    // The window's first coordinate (in the padded, base-dilated operand).
    std::vector<llvm::Value*> start(rank);
    llvm::Value* interior = b->getTrue();
    for (int64_t d = 0; d < rank; ++d) {
      const WindowDimension& w = window.dimensions[d];
      start[d] =
          b->CreateSub(b->CreateMul(o[d], i64(w.stride)), i64(w.padding_low));
      const int64_t extent = (w.size - 1) * w.window_dilation + 1;
      interior = b->CreateAnd(
          interior,
          b->CreateAnd(
              b->CreateICmpSGE(start[d], i64(0)),
              b->CreateICmpSLE(start[d], i64(op.dimensions(d) - extent))));
    }
    // Scans the window; `checked` tests every element for padding.
    auto scan = [&](bool checked) -> absl::Status {
      std::vector<llvm::Value*> k(rank);
      std::function<absl::Status(int64_t)> loop =
          [&](int64_t d) -> absl::Status {
        if (d < rank) {
          return EmitForLoop(
              "window", i64(0), i64(window.dimensions[d].size), i64(1),
              [&](llvm::Value* kd) {
                k[d] = kd;
                return loop(d + 1);
              },
              b);
        }
        std::vector<llvm::Value*> pos(rank);
        llvm::Value* valid = b->getTrue();
        llvm::Value* offset = i64(0);
        for (int64_t e = 0; e < rank; ++e) {
          const WindowDimension& w = window.dimensions[e];
          llvm::Value* c = b->CreateAdd(
              start[e], b->CreateMul(k[e], i64(w.window_dilation)));
          if (checked) {
            valid = b->CreateAnd(valid, b->CreateICmpSGE(c, i64(0)));
            if (w.base_dilation > 1) {
              valid = b->CreateAnd(
                  valid, b->CreateICmpEQ(b->CreateSRem(c, i64(w.base_dilation)),
                                         i64(0)));
              c = b->CreateSDiv(c, i64(w.base_dilation));
            }
            valid =
                b->CreateAnd(valid, b->CreateICmpSLT(c, i64(op.dimensions(e))));
          }
          pos[e] = c;
          offset = b->CreateAdd(offset, b->CreateMul(c, i64(op_strides[e])));
        }
        auto consider = [&]() -> absl::Status {
          HLOC_ASSIGN_OR_RETURN(
              llvm::Value * candidate,
              LoadFlat(op.element_type(), operand_buffer, offset, b));
          llvm::Value* have = b->CreateLoad(b->getInt1Ty(), have_slot);
          llvm::Value* pick = b->CreateLoad(value_type, pick_slot);
          HLOC_ASSIGN_OR_RETURN(
              llvm::Value * keep,
              elemental.EmitScalarComputation(select, {pick, candidate}));
          // The first valid element is taken; later ones unless
          // select(pick, candidate).
          llvm::Value* take =
              b->CreateSelect(have, b->CreateNot(keep), b->getTrue());
          b->CreateStore(b->CreateSelect(take, candidate, pick), pick_slot);
          for (int64_t e = 0; e < rank; ++e) {
            llvm::Value* old = b->CreateLoad(b->getInt64Ty(), pos_slots[e]);
            b->CreateStore(b->CreateSelect(take, pos[e], old), pos_slots[e]);
          }
          b->CreateStore(b->getTrue(), have_slot);
          return absl::OkStatus();
        };
        if (!checked) return consider();
        return EmitIfThenElse(valid, consider, nullptr, b);
      };
      return loop(0);
    };
    if (base_dilated) {
      HLOC_RETURN_IF_ERROR(scan(true));
    } else {
      HLOC_RETURN_IF_ERROR(EmitIfThenElse(
          interior, [&]() { return scan(false); }, [&]() { return scan(true); },
          b));
    }

    llvm::Value* apply = b->CreateLoad(b->getInt1Ty(), have_slot);
    std::vector<llvm::Value*> pos(rank);
    for (int64_t d = 0; d < rank; ++d) {
      pos[d] = b->CreateLoad(b->getInt64Ty(), pos_slots[d]);
    }
    for (int64_t d = 0; d <= split; ++d) {
      apply = b->CreateAnd(apply,
                           b->CreateAnd(b->CreateICmpSGE(pos[d], own_lo[d]),
                                        b->CreateICmpSLT(pos[d], own_hi[d])));
    }
    return EmitIfThenElse(
        apply,
        [&]() -> absl::Status {
          llvm::Value* out_offset = i64(0);
          llvm::Value* src_offset = i64(0);
          for (int64_t d = 0; d < rank; ++d) {
            out_offset = b->CreateAdd(
                out_offset, b->CreateMul(pos[d], i64(out_strides[d])));
            src_offset = b->CreateAdd(src_offset,
                                      b->CreateMul(o[d], i64(src_strides[d])));
          }
          HLOC_ASSIGN_OR_RETURN(
              llvm::Value * current,
              LoadFlat(out.element_type(), out_buffer, out_offset, b));
          HLOC_ASSIGN_OR_RETURN(
              llvm::Value * update,
              LoadFlat(src.element_type(), source_buffer, src_offset, b));
          HLOC_ASSIGN_OR_RETURN(
              llvm::Value * result,
              elemental.EmitScalarComputation(scatter, {current, update}));
          return StoreFlat(out.element_type(), out_buffer, out_offset, result,
                           b);
        },
        nullptr, b);
  };

  // The lane dimension: contiguous in operand and output, window 1,
  // stride 1, no padding or dilation. Each of its indices is then a window
  // of its own with the same geometry as its neighbours, and its pick can
  // only lie at the same index.
  int64_t lane_dim = -1;
  if (window_elements <= kMaxUnrolledWindow) {
    for (int64_t d = rank - 1; d > split; --d) {
      const WindowDimension& w = window.dimensions[d];
      if (op_strides[d] == 1 && out_strides[d] == 1 && w.size == 1 &&
          w.stride == 1 && w.padding_low == 0 && w.padding_high == 0 &&
          w.base_dilation == 1 && src.dimensions(d) == op.dimensions(d) &&
          (lane_dim < 0 || op.dimensions(d) > op.dimensions(lane_dim))) {
        lane_dim = d;
      }
    }
  }

  // The windows of source indices `o` (o[lane_dim] unused) for every lane:
  // a loop over the lanes (vectorizable: the window is unrolled, the pick
  // of each lane lives in registers, the validity of each window element
  // is the same for all lanes) stores each lane's pick (window element
  // number, or -1) in a stack array; a scalar loop then applies the
  // scatter of each lane. The updates of one output element keep their
  // serial order: only the windows of its own lane update it, and those
  // come in row-major order of the other dimensions.
  auto emit_lanes =
      [&](const std::vector<llvm::Value*>& o,
          const std::vector<llvm::Value*>& own_lo,
          const std::vector<llvm::Value*>& own_hi) -> absl::Status {
    const int64_t v = lane_dim;
    const int64_t lanes = op.dimensions(v);
    const int64_t block = std::min(lanes, kLaneBlock);
    llvm::Type* pick_array = llvm::ArrayType::get(b->getInt32Ty(), block);
    llvm::Type* table_array =
        llvm::ArrayType::get(b->getInt64Ty(), window_elements);
    llvm::Value* picks = EmitAllocaAtEntry(pick_array, "lane.picks", b);
    llvm::Value* table = EmitAllocaAtEntry(table_array, "lane.out", b);
    // Per window element: valid for all lanes, operand offset of lane 0
    // (0 where invalid, so that every load stays in bounds), and in the
    // table the output offset of lane 0 where valid and owned, else -1.
    std::vector<llvm::Value*> valid(window_elements), op_offset(window_elements);
    std::vector<llvm::Value*> start(rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (d == v) continue;
      const WindowDimension& w = window.dimensions[d];
      start[d] =
          b->CreateSub(b->CreateMul(o[d], i64(w.stride)), i64(w.padding_low));
    }
    for (int64_t j = 0; j < window_elements; ++j) {
      int64_t rest = j;
      std::vector<int64_t> k(rank);
      for (int64_t d = rank - 1; d >= 0; --d) {
        k[d] = rest % window.dimensions[d].size;
        rest /= window.dimensions[d].size;
      }
      llvm::Value* ok = b->getTrue();
      llvm::Value* owned = b->getTrue();
      llvm::Value* op_off = i64(0);
      llvm::Value* out_off = i64(0);
      for (int64_t e = 0; e < rank; ++e) {
        if (e == v) continue;
        const WindowDimension& w = window.dimensions[e];
        llvm::Value* c =
            b->CreateAdd(start[e], i64(k[e] * w.window_dilation));
        ok = b->CreateAnd(ok, b->CreateICmpSGE(c, i64(0)));
        if (w.base_dilation > 1) {
          ok = b->CreateAnd(
              ok, b->CreateICmpEQ(b->CreateSRem(c, i64(w.base_dilation)),
                                  i64(0)));
          c = b->CreateSDiv(c, i64(w.base_dilation));
        }
        ok = b->CreateAnd(ok, b->CreateICmpSLT(c, i64(op.dimensions(e))));
        if (e <= split) {
          owned = b->CreateAnd(owned,
                               b->CreateAnd(b->CreateICmpSGE(c, own_lo[e]),
                                            b->CreateICmpSLT(c, own_hi[e])));
        }
        op_off = b->CreateAdd(op_off, b->CreateMul(c, i64(op_strides[e])));
        out_off = b->CreateAdd(out_off, b->CreateMul(c, i64(out_strides[e])));
      }
      valid[j] = ok;
      op_offset[j] = b->CreateSelect(ok, op_off, i64(0));
      b->CreateStore(
          b->CreateSelect(b->CreateAnd(ok, owned), out_off, i64(-1)),
          b->CreateInBoundsGEP(table_array, table, {i64(0), i64(j)}));
    }
    llvm::Value* src_base = i64(0);
    for (int64_t e = 0; e < rank; ++e) {
      if (e == v) continue;
      src_base =
          b->CreateAdd(src_base, b->CreateMul(o[e], i64(src_strides[e])));
    }
    return EmitForLoop(
        "lane.block", i64(0), i64(lanes), i64(block),
        [&](llvm::Value* c0) -> absl::Status {
          llvm::Value* c1 = smin(b->CreateAdd(c0, i64(block)), i64(lanes));
          HLOC_RETURN_IF_ERROR(EmitForLoop(
              "lane.scan", c0, c1, i64(1),
              [&](llvm::Value* c) -> absl::Status {
                llvm::Value* pick = llvm::Constant::getNullValue(value_type);
                llvm::Value* pick_j = b->getInt32(-1);
                llvm::Value* have = b->getFalse();
                for (int64_t j = 0; j < window_elements; ++j) {
                  HLOC_ASSIGN_OR_RETURN(
                      llvm::Value * candidate,
                      LoadFlat(op.element_type(), operand_buffer,
                               b->CreateAdd(op_offset[j], c), b));
                  HLOC_ASSIGN_OR_RETURN(
                      llvm::Value * keep,
                      elemental.EmitScalarComputation(select,
                                                      {pick, candidate}));
                  // The first valid element is taken; later ones unless
                  // select(pick, candidate).
                  llvm::Value* take = b->CreateAnd(
                      valid[j],
                      b->CreateOr(b->CreateNot(have), b->CreateNot(keep)));
                  pick = b->CreateSelect(take, candidate, pick);
                  pick_j = b->CreateSelect(take, b->getInt32(j), pick_j);
                  have = b->CreateOr(have, valid[j]);
                }
                b->CreateStore(
                    pick_j,
                    b->CreateInBoundsGEP(pick_array, picks,
                                         {i64(0), b->CreateSub(c, c0)}));
                return absl::OkStatus();
              },
              b));
          return EmitForLoop(
              "lane.scatter", c0, c1, i64(1),
              [&](llvm::Value* c) -> absl::Status {
                llvm::Value* j = b->CreateLoad(
                    b->getInt32Ty(),
                    b->CreateInBoundsGEP(pick_array, picks,
                                         {i64(0), b->CreateSub(c, c0)}));
                return EmitIfThenElse(
                    b->CreateICmpSGE(j, b->getInt32(0)),
                    [&]() -> absl::Status {
                      llvm::Value* base = b->CreateLoad(
                          b->getInt64Ty(),
                          b->CreateInBoundsGEP(
                              table_array, table,
                              {i64(0), b->CreateSExt(j, b->getInt64Ty())}));
                      return EmitIfThenElse(
                          b->CreateICmpSGE(base, i64(0)),
                          [&]() -> absl::Status {
                            llvm::Value* out_offset = b->CreateAdd(base, c);
                            llvm::Value* src_offset = b->CreateAdd(
                                src_base,
                                b->CreateMul(c, i64(src_strides[v])));
                            HLOC_ASSIGN_OR_RETURN(
                                llvm::Value * current,
                                LoadFlat(out.element_type(), out_buffer,
                                         out_offset, b));
                            HLOC_ASSIGN_OR_RETURN(
                                llvm::Value * update,
                                LoadFlat(src.element_type(), source_buffer,
                                         src_offset, b));
                            HLOC_ASSIGN_OR_RETURN(
                                llvm::Value * result,
                                elemental.EmitScalarComputation(
                                    scatter, {current, update}));
                            return StoreFlat(out.element_type(), out_buffer,
                                             out_offset, result, b);
                          },
                          nullptr, b);
                    },
                    nullptr, b);
              },
              b);
        },
        b);
  };

  std::vector<int64_t> dummy_strides(partition.item_sizes.size(), 1);
  const DimGroup items(partition.item_sizes, dummy_strides);
  HLOC_RETURN_IF_ERROR(EmitForLoop(
      "item", range->getArg(kNumBuffers), range->getArg(kNumBuffers + 1),
      i64(1),
      [&](llvm::Value* item) -> absl::Status {
        // The item's block of the output along the split dimensions and
        // the source indices whose windows overlap it.
        std::vector<llvm::Value*> own_lo, own_hi, src_lo, src_hi;
        std::vector<llvm::Value*> index =
            split >= 0 ? items.Split(item, b) : std::vector<llvm::Value*>{};
        for (int64_t d = 0; d <= split; ++d) {
          const WindowDimension& w = window.dimensions[d];
          const int64_t extent = (w.size - 1) * w.window_dilation + 1;
          llvm::Value *lo, *hi;
          if (d < split) {
            lo = index[d];
            hi = b->CreateAdd(lo, i64(1));
          } else {
            lo = b->CreateMul(index[d], i64(partition.block));
            hi = smin(b->CreateAdd(lo, i64(partition.block)),
                      i64(op.dimensions(d)));
          }
          own_lo.push_back(lo);
          own_hi.push_back(hi);
          // Window o covers coordinates [o*stride - pad, ... + extent - 1];
          // the block covers [lo*bdil, (hi-1)*bdil].
          llvm::Value* c_lo = b->CreateMul(lo, i64(w.base_dilation));
          llvm::Value* c_hi =
              b->CreateMul(b->CreateSub(hi, i64(1)), i64(w.base_dilation));
          llvm::Value* first = floor_div(
              b->CreateAdd(c_lo,
                           i64(w.padding_low - (extent - 1) + (w.stride - 1))),
              w.stride);
          llvm::Value* last =
              floor_div(b->CreateAdd(c_hi, i64(w.padding_low)), w.stride);
          src_lo.push_back(smax(first, i64(0)));
          src_hi.push_back(
              smin(b->CreateAdd(last, i64(1)), i64(src.dimensions(d))));
        }
        std::vector<llvm::Value*> o(rank);
        std::function<absl::Status(int64_t)> loop =
            [&](int64_t d) -> absl::Status {
          if (d == rank) {
            return lane_dim >= 0 ? emit_lanes(o, own_lo, own_hi)
                                 : emit_window(o, own_lo, own_hi);
          }
          if (d == lane_dim) {
            o[d] = nullptr;
            return loop(d + 1);
          }
          llvm::Value* lo = d <= split ? src_lo[d] : i64(0);
          llvm::Value* hi = d <= split ? src_hi[d] : i64(src.dimensions(d));
          return EmitForLoop(
              "source", lo, hi, i64(1),
              [&](llvm::Value* od) {
                o[d] = od;
                return loop(d + 1);
              },
              b);
        };
        return loop(0);
      },
      b));
  b->CreateRetVoid();
  loops.push_back({range, partition.items, parallel});
  EmitKernelEntry(module, symbol, kNumBuffers, loops);
  return absl::OkStatus();
}

}  // namespace hloc

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
#include "hlo/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

// Work items of the parallel scatter: about this many, so that any thread
// count up to a few dozen gets balanced shares.
constexpr int64_t kTargetItems = 256;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

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
        extent > 1 ? CeilDiv(4 * (extent - 1), w.base_dilation) : 1;
    int64_t block = std::max(
        min_block,
        CeilDiv(size, std::max<int64_t>(1, CeilDiv(kTargetItems, leading))));
    block = std::max<int64_t>(1, std::min(block, size));
    const int64_t blocks = CeilDiv(size, block);
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
  if (hlo.operand_count() != 3 || hlo.called_computations().size() != 2 ||
      !hlo.attrs().window.has_value()) {
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
  const Window& window = *hlo.attrs().window;
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
          if (d == rank) return emit_window(o, own_lo, own_hi);
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

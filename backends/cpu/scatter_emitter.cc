#include "backends/cpu/scatter_emitter.h"

#include <algorithm>
#include <vector>

#include "backends/common/elemental_emitter.h"
#include "backends/common/ir_array.h"
#include "backends/common/loop_emitter.h"
#include "backends/common/scatter_analysis.h"
#include "backends/cpu/ir_emitter.h"
#include "hlo/computation.h"
#include "hlo/opcode.h"
#include "hlo/status_macros.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

DimGroup Group(const Shape& shape, const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides = LayoutStrides(shape);
  std::vector<int64_t> sizes, s;
  for (int64_t d : dims) {
    sizes.push_back(shape.dimensions(d));
    s.push_back(strides[d]);
  }
  return DimGroup(sizes, s);
}

std::vector<int64_t> AllDims(const Shape& shape) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < shape.rank(); ++d) dims.push_back(d);
  return dims;
}

// Whether the combiner is a few cheap operations that are defined for any
// inputs (no division, no calls, no control flow): then a thread may run it
// on updates it does not own, into scratch, rather than branch on
// ownership.
bool IsCheapCombiner(const HloComputation* computation) {
  int64_t ops = 0;
  for (const HloInstruction* instr : computation->instructions()) {
    switch (instr->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kConstant:
      case HloOpcode::kTuple:
      case HloOpcode::kGetTupleElement:
        break;
      case HloOpcode::kAdd:
      case HloOpcode::kSubtract:
      case HloOpcode::kMultiply:
      case HloOpcode::kMaximum:
      case HloOpcode::kMinimum:
      case HloOpcode::kAnd:
      case HloOpcode::kOr:
      case HloOpcode::kXor:
      case HloOpcode::kNot:
      case HloOpcode::kNegate:
      case HloOpcode::kAbs:
      case HloOpcode::kSelect:
      case HloOpcode::kCompare:
      case HloOpcode::kClamp:
        ++ops;
        break;
      default:
        return false;
    }
  }
  return ops <= 8;
}

}  // namespace

absl::Status EmitScatterKernel(const HloInstruction& hlo,
                               const std::string& symbol,
                               const OpEmitterContext& ctx) {
  HLOC_ASSIGN_OR_RETURN(const ScatterGeometry geometry, AnalyzeScatter(hlo));
  const int64_t count = hlo.operand_count();
  const int64_t n = geometry.n;
  const ScatterDimensionNumbers& dn = *hlo.attrs().scatter_dimension_numbers;
  llvm::Module* module = ctx.module;
  llvm::LLVMContext& context = module->getContext();
  std::vector<Shape> outputs;
  if (hlo.shape().IsTuple()) {
    for (const Shape& s : hlo.shape().tuple_shapes()) outputs.push_back(s);
  } else {
    outputs.push_back(hlo.shape());
  }
  if (static_cast<int64_t>(outputs.size()) != n) {
    return OpUnimplemented(hlo, "scatter result does not match its operands");
  }
  for (const HloInstruction* operand : hlo.operands()) {
    if (!StorageType(operand->shape().element_type(), context).ok()) {
      return OpUnimplemented(hlo, "scatter operand type");
    }
  }
  const Shape& op = hlo.operand(0)->shape();
  const Shape& idx = hlo.operand(n)->shape();
  const Shape& upd = hlo.operand(n + 1)->shape();
  const int64_t rank = op.rank();
  const std::vector<int64_t>& scatter_dims = geometry.scatter_dims;
  const std::vector<int64_t>& index_batch_dims = geometry.index_batch_dims;
  const std::vector<int64_t>& window_dims = geometry.window_dims;
  const std::vector<int64_t>& window_size = geometry.window_size;
  const std::vector<int64_t>& batching_position = geometry.batching_position;
  const std::vector<int64_t> idx_strides = LayoutStrides(idx);
  const int64_t vector_size = geometry.vector_size;
  const int64_t vector_stride =
      geometry.implicit_vector ? 0 : idx_strides[dn.index_vector_dim];

  const DimGroup scatter_group = Group(upd, scatter_dims);
  const DimGroup index_group = Group(idx, index_batch_dims);
  const DimGroup upd_window = Group(upd, dn.update_window_dims);
  std::vector<DimGroup> out_windows, out_alls, op_alls;
  for (int64_t k = 0; k < n; ++k) {
    // The window box walked in the update's window order, at the output's
    // strides.
    std::vector<int64_t> strides = LayoutStrides(outputs[k]), box, box_strides;
    for (int64_t d : window_dims) {
      box.push_back(window_size[d]);
      box_strides.push_back(strides[d]);
    }
    out_windows.push_back(DimGroup(box, box_strides));
    out_alls.push_back(Group(outputs[k], AllDims(outputs[k])));
    op_alls.push_back(
        Group(hlo.operand(k)->shape(), AllDims(hlo.operand(k)->shape())));
  }
  std::vector<std::vector<int64_t>> all_out_strides;
  for (int64_t k = 0; k < n; ++k) {
    all_out_strides.push_back(LayoutStrides(outputs[k]));
  }

  // Ownership: the elements of the outputs are split into contiguous
  // ranges of output 0's physical order (the same logical element of every
  // output belongs to the same range), in chunks of kChunk elements so that
  // no two threads write one cache line of output 0. Every thread copies
  // its range of the operands and then walks all updates in order, applying
  // only those that land in its range: each element is updated by one
  // thread in the serial order, so the result is bit-identical to the
  // serial kernel for any combiner, with no atomics or barriers. The walk
  // over the indices is repeated by every thread; whole windows outside the
  // range are skipped by their extent in output 0. Whether a single-element
  // window is owned is a coin toss the branch predictor loses (half the
  // time on two threads), so with a cheap combiner a thread applies every
  // such update but, when it does not own the element, to a scratch slot
  // (one of 16 in turn, so that consecutive strangers do not chain through
  // one slot): no branch, and the loads and stores of owned elements are
  // the same as the serial kernel's.
  constexpr int64_t kChunk = 64;
  const int64_t elements = outputs[0].ElementCount();
  for (int64_t k = 0; k < count; ++k) {
    if (k == n) continue;
    const Shape& s = hlo.operand(k)->shape();
    const Shape& expected = k < n ? outputs[0] : hlo.operand(n + 1)->shape();
    if (s.dimensions() != expected.dimensions()) {
      return OpUnimplemented(hlo, "scatter operands differ in shape");
    }
  }
  for (int64_t k = 1; k < n; ++k) {
    if (outputs[k].dimensions() != outputs[0].dimensions()) {
      return OpUnimplemented(hlo, "scatter outputs differ in shape");
    }
  }
  const int64_t chunks = (elements + kChunk - 1) / kChunk;
  const bool parallel =
      ShouldRunParallel(*ctx.options, chunks,
                        elements + scatter_group.size() * upd_window.size());
  // Output 0's dimensions, major to minor: walking them row-major is
  // walking output 0's buffer in order.
  std::vector<int64_t> major_to_minor = outputs[0].MinorToMajor();
  std::reverse(major_to_minor.begin(), major_to_minor.end());
  std::vector<DimGroup> out_phys, op_phys;
  for (int64_t k = 0; k < n; ++k) {
    out_phys.push_back(Group(outputs[k], major_to_minor));
    op_phys.push_back(Group(hlo.operand(k)->shape(), major_to_minor));
  }
  // The largest offset in output 0 of a window element past its corner.
  int64_t window_extent = 0;
  for (int64_t d = 0; d < rank; ++d) {
    window_extent += (window_size[d] - 1) * all_out_strides[0][d];
  }
  constexpr int64_t kScratchSlots = 16;
  const bool branchless = parallel && window_extent == 0 &&
                          upd_window.size() == 1 &&
                          IsCheapCombiner(hlo.to_apply());

  const int64_t num_buffers = count + n;
  llvm::Function* range =
      CreateRangeFunction(module, symbol + ".scatter", num_buffers);
  llvm::IRBuilder<> builder(&range->getEntryBlock());
  llvm::IRBuilderBase* b = &builder;
  ElementalEmitter elemental(module, b, ctx.math);
  auto i64 = [b](int64_t v) { return b->getInt64(v); };
  auto out_buffer = [&](int64_t k) { return range->getArg(count + k); };
  // This range of output 0's elements: [lo, hi).
  llvm::Value* lo = b->CreateMul(range->getArg(num_buffers), i64(kChunk));
  llvm::Value* hi = b->CreateSelect(
      b->CreateICmpEQ(range->getArg(num_buffers + 1), i64(chunks)),
      i64(elements), b->CreateMul(range->getArg(num_buffers + 1), i64(kChunk)));
  // Branchless: per output, kScratchSlots elements (zeroed: the combiner
  // only ever sees defined values).
  std::vector<llvm::Value*> scratch;
  if (branchless) {
    for (int64_t k = 0; k < n; ++k) {
      HLOC_ASSIGN_OR_RETURN(llvm::Type * t,
                            StorageType(outputs[k].element_type(), context));
      llvm::Type* array = llvm::ArrayType::get(t, kScratchSlots);
      llvm::Value* slots = b->CreateAlloca(array);
      b->CreateMemSet(
          slots, b->getInt8(0),
          module->getDataLayout().getTypeAllocSize(array).getFixedValue(),
          llvm::MaybeAlign(1));
      scratch.push_back(slots);
    }
  }

  // The outputs start as the operands.
  for (int64_t k = 0; k < n; ++k) {
    const PrimitiveType t = outputs[k].element_type();
    HLOC_RETURN_IF_ERROR(EmitForLoop(
        "copy", lo, hi, i64(1),
        [&](llvm::Value* p) -> absl::Status {
          HLOC_ASSIGN_OR_RETURN(
              llvm::Value * v,
              LoadFlat(t, range->getArg(k), op_phys[k].Offset(p, b), b));
          return StoreFlat(t, out_buffer(k), out_phys[k].Offset(p, b), v, b);
        },
        b));
  }

  // How a window element is applied: always (serial, or a window inside
  // this range), only if it lies in [lo, hi) (a window across its ends), or
  // branchless, to scratch slot `slot` when it does not.
  enum class Apply { kAlways, kIfOwned, kOwnedOrScratch };
  // One element of the window at `start` of the update at upd_base.
  auto emit_element = [&](const std::vector<llvm::Value*>& start,
                          llvm::Value* upd_base, llvm::Value* w, Apply how,
                          llvm::Value* slot) -> absl::Status {
    llvm::Value* upd_off = b->CreateAdd(upd_base, upd_window.Offset(w, b));
    std::vector<llvm::Value*> bases, offsets;
    for (int64_t k = 0; k < n; ++k) {
      llvm::Value* off = out_windows[k].Offset(w, b);
      for (int64_t d = 0; d < rank; ++d) {
        off = b->CreateAdd(off,
                           b->CreateMul(start[d], i64(all_out_strides[k][d])));
      }
      bases.push_back(out_buffer(k));
      offsets.push_back(off);
    }
    llvm::Value* owned = nullptr;
    if (how != Apply::kAlways) {
      owned = b->CreateAnd(b->CreateICmpSGE(offsets[0], lo),
                           b->CreateICmpSLT(offsets[0], hi));
    }
    if (how == Apply::kOwnedOrScratch) {
      for (int64_t k = 0; k < n; ++k) {
        bases[k] = b->CreateSelect(owned, bases[k], scratch[k]);
        offsets[k] = b->CreateSelect(owned, offsets[k], slot);
      }
    }
    auto apply = [&]() -> absl::Status {
      std::vector<llvm::Value*> args;
      for (int64_t k = 0; k < n; ++k) {
        HLOC_ASSIGN_OR_RETURN(
            llvm::Value * v,
            LoadFlat(outputs[k].element_type(), bases[k], offsets[k], b));
        args.push_back(v);
      }
      for (int64_t k = 0; k < n; ++k) {
        HLOC_ASSIGN_OR_RETURN(
            llvm::Value * v,
            LoadFlat(hlo.operand(n + 1 + k)->shape().element_type(),
                     range->getArg(n + 1 + k), upd_off, b));
        args.push_back(v);
      }
      HLOC_ASSIGN_OR_RETURN(llvm::Value * r, elemental.EmitScalarComputation(
                                                 hlo.to_apply(), args));
      for (int64_t k = 0; k < n; ++k) {
        llvm::Value* v =
            n == 1 ? r : b->CreateExtractValue(r, {static_cast<unsigned>(k)});
        HLOC_RETURN_IF_ERROR(
            StoreFlat(outputs[k].element_type(), bases[k], offsets[k], v, b));
      }
      return absl::OkStatus();
    };
    if (how != Apply::kIfOwned) return apply();
    return EmitIfThenElse(owned, apply, nullptr, b);
  };

  auto emit_scatter = [&]() -> absl::Status {
    return EmitForLoop(
        "scatter", i64(0), i64(scatter_group.size()), i64(1),
        [&](llvm::Value* g) -> absl::Status {
          std::vector<llvm::Value*> batch = scatter_group.Split(g, b);
          llvm::Value* index_base = index_group.Offset(g, b);
          std::vector<llvm::Value*> start(rank, i64(0));
          for (int64_t k = 0; k < vector_size; ++k) {
            const int64_t d = dn.scatter_dims_to_operand_dims[k];
            HLOC_ASSIGN_OR_RETURN(
                llvm::Value * v,
                LoadFlat(idx.element_type(), range->getArg(n),
                         b->CreateAdd(index_base, i64(k * vector_stride)), b));
            start[d] =
                ConvertStartIndex(v, idx.element_type(), b->getInt64Ty(), b);
          }
          for (size_t j = 0; j < dn.input_batching_dims.size(); ++j) {
            start[dn.input_batching_dims[j]] = batch[batching_position[j]];
          }
          llvm::Value* fits = b->getTrue();
          for (int64_t d = 0; d < rank; ++d) {
            fits = b->CreateAnd(
                fits,
                b->CreateAnd(b->CreateICmpSGE(start[d], i64(0)),
                             b->CreateICmpSLE(start[d], i64(op.dimensions(d) -
                                                            window_size[d]))));
          }
          llvm::Value* upd_base = scatter_group.Offset(g, b);
          auto window = [&](Apply how) -> absl::Status {
            return EmitForLoop(
                "window", i64(0), i64(upd_window.size()), i64(1),
                [&](llvm::Value* w) -> absl::Status {
                  return emit_element(start, upd_base, w, how, nullptr);
                },
                b);
          };
          return EmitIfThenElse(
              fits,
              [&]() -> absl::Status {
                if (!parallel) return window(Apply::kAlways);
                if (branchless) {
                  return emit_element(start, upd_base, i64(0),
                                      Apply::kOwnedOrScratch,
                                      b->CreateAnd(g, i64(kScratchSlots - 1)));
                }
                // The window spans [first, last] in output 0.
                llvm::Value* first = i64(0);
                for (int64_t d = 0; d < rank; ++d) {
                  first = b->CreateAdd(
                      first,
                      b->CreateMul(start[d], i64(all_out_strides[0][d])));
                }
                llvm::Value* last = b->CreateAdd(first, i64(window_extent));
                llvm::Value* overlaps = b->CreateAnd(
                    b->CreateICmpSLT(first, hi), b->CreateICmpSGE(last, lo));
                return EmitIfThenElse(
                    overlaps,
                    [&]() -> absl::Status {
                      if (window_extent == 0) return window(Apply::kAlways);
                      llvm::Value* inside =
                          b->CreateAnd(b->CreateICmpSGE(first, lo),
                                       b->CreateICmpSLT(last, hi));
                      return EmitIfThenElse(
                          inside, [&]() { return window(Apply::kAlways); },
                          [&]() { return window(Apply::kIfOwned); }, b);
                    },
                    nullptr, b);
              },
              nullptr, b);
        },
        b);
  };
  // A thread without elements (more threads than chunks) skips the walk.
  HLOC_RETURN_IF_ERROR(
      EmitIfThenElse(b->CreateICmpSLT(lo, hi), emit_scatter, nullptr, b));
  b->CreateRetVoid();
  EmitKernelEntry(module, symbol, num_buffers, {{range, chunks, parallel}});
  return absl::OkStatus();
}

}  // namespace hloc

#include "backends/cpu/scan_emitter.h"

#include <vector>

#include "backends/common/elemental_emitter.h"
#include "backends/common/ir_array.h"
#include "backends/common/loop_emitter.h"
#include "backends/common/scan_analysis.h"
#include "backends/cpu/ir_emitter.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

// Inner columns per work item: enough for long vector loops, small enough
// that a scan along a major axis of a few rows still has a work item per
// thread (a 1024-wide f32 row splits four ways).
constexpr int64_t kColumnBlock = 256;

// How one buffer is addressed: the element offset of (outer o, step k,
// inner i) is outer.Offset(o) + k * step + inner.Offset(i). Carry-shaped
// buffers (inits, carry outputs) lack the scan dimension: step is 0.
struct ScanView {
  DimGroup outer;
  DimGroup inner;
  int64_t step = 0;
};

// `outer` and `inner` are logical dimensions of the scanned shape, major to
// minor; a slice-shaped buffer numbers the dimensions after `dim` one lower.
ScanView MakeScanView(const Shape& shape, int64_t dim, bool is_slice,
                      const std::vector<int64_t>& outer,
                      const std::vector<int64_t>& inner) {
  const std::vector<int64_t> strides = LayoutStrides(shape);
  auto group = [&](const std::vector<int64_t>& dims) {
    std::vector<int64_t> sizes, s;
    for (int64_t d : dims) {
      const int64_t here = is_slice && d > dim ? d - 1 : d;
      sizes.push_back(shape.dimensions(here));
      s.push_back(strides[here]);
    }
    return DimGroup(sizes, s);
  };
  return ScanView{group(outer), group(inner), is_slice ? 0 : strides[dim]};
}

}  // namespace

absl::Status EmitScanKernel(const HloInstruction& hlo,
                            const std::string& symbol,
                            const OpEmitterContext& ctx) {
  const HloComputation* body = hlo.to_apply();
  if (body == nullptr || hlo.dimensions().size() != 1 ||
      !hlo.shape().IsTuple() || body->num_parameters() != hlo.operand_count()) {
    return OpUnimplemented(hlo, "malformed scan");
  }
  if (!IsElementwiseScanBody(body)) {
    return OpUnimplemented(hlo, "scan body is not elementwise");
  }
  const int64_t num_operands = hlo.operand_count();
  const int64_t num_carries = NumScanCarries(hlo);
  const int64_t num_inputs = num_operands - num_carries;
  const std::vector<Shape>& results = hlo.shape().tuple_shapes();
  const int64_t num_results = static_cast<int64_t>(results.size());
  const int64_t num_outputs = num_results - num_carries;
  const int64_t dim = hlo.dimensions(0);
  const Shape& first = hlo.operand(0)->shape();
  if (num_inputs < 1 || num_outputs < 0 || !first.IsArray() || dim < 0 ||
      dim >= first.rank()) {
    return OpUnimplemented(hlo, "malformed scan");
  }
  std::vector<int64_t> slice_dims = first.dimensions();
  slice_dims.erase(slice_dims.begin() + dim);
  llvm::Module* module = ctx.module;
  llvm::LLVMContext& context = module->getContext();
  // Inputs and outputs have the scanned shape, inits and carry outputs the
  // slice's (shape inference guarantees it; checked since the addressing
  // below relies on it).
  auto expect = [&](const Shape& s, bool is_slice) {
    return s.IsArray() &&
           s.dimensions() == (is_slice ? slice_dims : first.dimensions()) &&
           StorageType(s.element_type(), context).ok();
  };
  for (int64_t i = 0; i < num_operands; ++i) {
    if (!expect(hlo.operand(i)->shape(), i >= num_inputs)) {
      return OpUnimplemented(hlo, "scan operand shape or type");
    }
  }
  for (int64_t r = 0; r < num_results; ++r) {
    if (!expect(results[r], r >= num_outputs)) {
      return OpUnimplemented(hlo, "scan result shape or type");
    }
  }

  // Outer and inner dimensions by the first input's layout.
  std::vector<int64_t> outer, inner;
  {
    const std::vector<int64_t> m2m = first.MinorToMajor();
    bool past_dim = false;
    for (auto it = m2m.begin(); it != m2m.end(); ++it) {
      if (*it == dim) {
        past_dim = true;
      } else if (past_dim) {
        outer.insert(outer.begin(), *it);
      } else {
        inner.insert(inner.begin(), *it);
      }
    }
  }
  // Buffers: the operands, then the results (outputs, carries).
  std::vector<ScanView> views;
  std::vector<PrimitiveType> types;
  for (int64_t i = 0; i < num_operands; ++i) {
    views.push_back(MakeScanView(hlo.operand(i)->shape(), dim, i >= num_inputs,
                                 outer, inner));
    types.push_back(hlo.operand(i)->shape().element_type());
  }
  for (int64_t r = 0; r < num_results; ++r) {
    views.push_back(
        MakeScanView(results[r], dim, r >= num_outputs, outer, inner));
    types.push_back(results[r].element_type());
  }
  const int64_t num_buffers = num_operands + num_results;
  const int64_t length = first.dimensions(dim);
  const int64_t outer_size = views[0].outer.size();
  const int64_t inner_size = views[0].inner.size();
  const int64_t blocks =
      inner_size <= 1 ? 1 : (inner_size + kColumnBlock - 1) / kColumnBlock;
  // An empty slice leaves nothing to do (not even the carries).
  const int64_t work_items = inner_size == 0 ? 0 : outer_size * blocks;
  const bool reverse = hlo.attrs().is_reverse;

  llvm::Function* range =
      CreateRangeFunction(module, symbol + ".scan", num_buffers);
  llvm::IRBuilder<> builder(&range->getEntryBlock());
  llvm::IRBuilderBase* b = &builder;
  ElementalEmitter elemental(module, b, ctx.math);
  auto i64 = [b](int64_t v) { return b->getInt64(v); };
  auto buffer = [&](int64_t k) { return range->getArg(k); };
  const int64_t first_result = num_operands;
  const int64_t first_carry_out = num_operands + num_outputs;

  // One step of the body at (o, k, i): reads the inputs there and the
  // carries from `carry_in`, writes the outputs there and hands the new
  // carries to `carry_out`.
  auto step = [&](const std::vector<llvm::Value*>& outer_off, llvm::Value* pos,
                  llvm::Value* i, const std::vector<llvm::Value*>& carries)
      -> absl::StatusOr<std::vector<llvm::Value*>> {
    auto offset = [&](int64_t k) {
      llvm::Value* off = b->CreateAdd(
          outer_off[k], b->CreateMul(pos, i64(views[k].step), "", true, true),
          "", true, true);
      return i == nullptr ? off
                          : b->CreateAdd(off, views[k].inner.Offset(i, b), "",
                                         true, true);
    };
    std::vector<llvm::Value*> args;
    for (int64_t k = 0; k < num_inputs; ++k) {
      HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                            LoadFlat(types[k], buffer(k), offset(k), b));
      args.push_back(v);
    }
    args.insert(args.end(), carries.begin(), carries.end());
    HLOC_ASSIGN_OR_RETURN(llvm::Value * r,
                          elemental.EmitScalarComputation(body, args));
    auto part = [&](int64_t k) {
      return !body->root_instruction()->shape().IsTuple()
                 ? r
                 : b->CreateExtractValue(r, {static_cast<unsigned>(k)});
    };
    for (int64_t o = 0; o < num_outputs; ++o) {
      const int64_t k = first_result + o;
      HLOC_RETURN_IF_ERROR(
          StoreFlat(types[k], buffer(k), offset(k), part(o), b));
    }
    std::vector<llvm::Value*> next;
    for (int64_t c = 0; c < num_carries; ++c) {
      next.push_back(part(num_outputs + c));
    }
    return next;
  };
  auto position = [&](llvm::Value* k) {
    return reverse ? b->CreateSub(i64(length - 1), k) : k;
  };

  HLOC_RETURN_IF_ERROR(EmitForLoop(
      "item", range->getArg(num_buffers), range->getArg(num_buffers + 1),
      i64(1),
      [&](llvm::Value* w) -> absl::Status {
        llvm::Value* o = blocks == 1 ? w : b->CreateUDiv(w, i64(blocks));
        std::vector<llvm::Value*> outer_off;
        for (const ScanView& v : views)
          outer_off.push_back(v.outer.Offset(o, b));
        if (inner_size <= 1) {
          // A row: the carries live in registers (allocas mem2reg removes).
          std::vector<llvm::Type*> carry_types;
          std::vector<llvm::Value*> slots;
          for (int64_t c = 0; c < num_carries; ++c) {
            const int64_t k = num_inputs + c;
            HLOC_ASSIGN_OR_RETURN(llvm::Type * t,
                                  RegisterType(types[k], context));
            carry_types.push_back(t);
            slots.push_back(EmitAllocaAtEntry(t, "carry", b));
            HLOC_ASSIGN_OR_RETURN(
                llvm::Value * init,
                LoadFlat(types[k], buffer(k), outer_off[k], b));
            b->CreateStore(init, slots[c]);
          }
          HLOC_RETURN_IF_ERROR(EmitForLoop(
              "step", i64(0), i64(length), i64(1),
              [&](llvm::Value* k) -> absl::Status {
                std::vector<llvm::Value*> carries;
                for (int64_t c = 0; c < num_carries; ++c) {
                  carries.push_back(b->CreateLoad(carry_types[c], slots[c]));
                }
                HLOC_ASSIGN_OR_RETURN(
                    std::vector<llvm::Value*> next,
                    step(outer_off, position(k), nullptr, carries));
                for (int64_t c = 0; c < num_carries; ++c) {
                  b->CreateStore(next[c], slots[c]);
                }
                return absl::OkStatus();
              },
              b));
          for (int64_t c = 0; c < num_carries; ++c) {
            const int64_t k = first_carry_out + c;
            HLOC_RETURN_IF_ERROR(
                StoreFlat(types[k], buffer(k), outer_off[k],
                          b->CreateLoad(carry_types[c], slots[c]), b));
          }
          return absl::OkStatus();
        }
        // A block of columns: each column's carry lives in the carry
        // output, which starts as the init.
        llvm::Value* begin = blocks == 1
                                 ? i64(0)
                                 : b->CreateMul(b->CreateURem(w, i64(blocks)),
                                                i64(kColumnBlock));
        llvm::Value* end = b->CreateBinaryIntrinsic(
            llvm::Intrinsic::smin, b->CreateAdd(begin, i64(kColumnBlock)),
            i64(inner_size));
        auto carry_at = [&](int64_t k, llvm::Value* i) {
          return b->CreateAdd(outer_off[k], views[k].inner.Offset(i, b), "",
                              true, true);
        };
        HLOC_RETURN_IF_ERROR(EmitForLoop(
            "init", begin, end, i64(1),
            [&](llvm::Value* i) -> absl::Status {
              for (int64_t c = 0; c < num_carries; ++c) {
                const int64_t from = num_inputs + c;
                const int64_t to = first_carry_out + c;
                HLOC_ASSIGN_OR_RETURN(
                    llvm::Value * v,
                    LoadFlat(types[from], buffer(from), carry_at(from, i), b));
                HLOC_RETURN_IF_ERROR(
                    StoreFlat(types[to], buffer(to), carry_at(to, i), v, b));
              }
              return absl::OkStatus();
            },
            b));
        return EmitForLoop(
            "step", i64(0), i64(length), i64(1),
            [&](llvm::Value* k) -> absl::Status {
              llvm::Value* pos = position(k);
              return EmitForLoop(
                  "column", begin, end, i64(1),
                  [&](llvm::Value* i) -> absl::Status {
                    std::vector<llvm::Value*> carries;
                    for (int64_t c = 0; c < num_carries; ++c) {
                      const int64_t at = first_carry_out + c;
                      HLOC_ASSIGN_OR_RETURN(
                          llvm::Value * v,
                          LoadFlat(types[at], buffer(at), carry_at(at, i), b));
                      carries.push_back(v);
                    }
                    HLOC_ASSIGN_OR_RETURN(std::vector<llvm::Value*> next,
                                          step(outer_off, pos, i, carries));
                    for (int64_t c = 0; c < num_carries; ++c) {
                      const int64_t at = first_carry_out + c;
                      HLOC_RETURN_IF_ERROR(StoreFlat(
                          types[at], buffer(at), carry_at(at, i), next[c], b));
                    }
                    return absl::OkStatus();
                  },
                  b);
            },
            b);
      },
      b));
  b->CreateRetVoid();
  DisableLoopUnrolling(range);
  EmitKernelEntry(
      module, symbol, num_buffers,
      {{range, work_items,
        ShouldRunParallel(*ctx.options, work_items, first.ElementCount())}});
  return absl::OkStatus();
}

}  // namespace hloc

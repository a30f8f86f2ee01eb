// Select-and-scatter (max-pool gradients) in two steps, as XLA:GPU does:
//   1. the output is filled with the init value (a loop kernel);
//   2. one thread per source element scans its window of the operand
//      (padding and base dilation skipped), keeping the first element and
//      then each later one that select(kept, candidate) does not keep,
//      and combines its source value into the output at the kept
//      position (atomic_combine.h: an atomic add for f32 sums, so
//      overlapping windows add in an unspecified order).
// Outputs with no atomic (pred, sub-byte integers; atomic_combine.h): one
// thread walks every source element in order.
#include <functional>

#include "backends/common/loop_emitter.h"
#include "backends/gpu/atomic_combine.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/loop_mapping.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

bool IsScalarOf(const Shape& shape, PrimitiveType type) {
  return shape.IsArray() && shape.rank() == 0 && shape.element_type() == type;
}

absl::Status Check(const HloInstruction& hlo) {
  if (hlo.operand_count() != 3 || hlo.called_computations().size() != 2 ||
      !hlo.attrs().window.has_value() || !hlo.shape().IsArray()) {
    return CodegenUnimplemented(hlo, "malformed select-and-scatter");
  }
  const Shape& op = hlo.operand(0)->shape();
  const Shape& src = hlo.operand(1)->shape();
  const Shape& out = hlo.shape();
  const Window& window = *hlo.attrs().window;
  if (src.rank() != op.rank() || out.dimensions() != op.dimensions() ||
      static_cast<int64_t>(window.dimensions.size()) != op.rank() ||
      hlo.operand(2)->shape().ElementCount() != 1) {
    return CodegenUnimplemented(hlo, "select-and-scatter shapes do not match");
  }
  for (const WindowDimension& w : window.dimensions) {
    if (w.window_reversal || w.size < 0 || w.stride <= 0 ||
        w.window_dilation <= 0 || w.base_dilation <= 0) {
      return CodegenUnimplemented(
          hlo, "select-and-scatter window (reversed or malformed)");
    }
  }
  const HloComputation* select = hlo.called_computations()[0];
  const HloComputation* scatter = hlo.called_computations()[1];
  if (select->num_parameters() != 2 || scatter->num_parameters() != 2 ||
      !IsScalarOf(select->root_instruction()->shape(), PRED) ||
      !IsScalarOf(scatter->root_instruction()->shape(), out.element_type()) ||
      !IsScalarOf(scatter->parameter_instruction(1)->shape(),
                  src.element_type())) {
    return CodegenUnimplemented(
        hlo, "select or scatter computation does not match the operands");
  }
  return absl::OkStatus();
}

bool Index64(const KernelRequest& request) {
  return MaxElementsTouched(*request.info) > (int64_t{1} << 31) - 1;
}

absl::StatusOr<LaunchDims> EmitInitKernel(const KernelRequest& request,
                                          const HloInstruction* hlo) {
  const Shape& out = request.info->output_shapes[0];
  LoopLaunch launch =
      ComputeLoopLaunch(out.ElementCount(), ByteWidth(out.element_type()),
                        request.target->device());
  KernelBuilder kernel(*request.target, request.module, *request.info,
                       *request.buffers, request.symbol,
                       launch.threads_per_block, Index64(request));
  absl::Status status = [&]() -> absl::Status {
    HLOC_ASSIGN_OR_RETURN(ElementGenerator init,
                          kernel.generators().Get(hlo->operand(2)));
    llvm::Type* index_type = kernel.index_type();
    ElementGenerator fill = [init, index_type](const IrIndex&) {
      return init(IrIndex::Scalar(index_type));
    };
    LoopEmitter emitter({fill}, {kernel.output(0)}, kernel.b());
    GpuLoopMapping mapping(&kernel, launch);
    return emitter.EmitLoop(mapping);
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return launch.dims;
}

absl::StatusOr<LaunchDims> EmitScatterStep(const KernelRequest& request,
                                           const HloInstruction* hlo) {
  const Shape& op = hlo->operand(0)->shape();
  const Shape& src = hlo->operand(1)->shape();
  const Window& window = *hlo->attrs().window;
  const int64_t rank = op.rank();
  const HloComputation* select = hlo->called_computations()[0];
  const HloComputation* scatter = hlo->called_computations()[1];
  const CombinePlan plan =
      PlanCombine(scatter, hlo->shape().element_type(), false);
  const bool serial = plan.how == Combine::kNone;
  LoopLaunch launch;
  if (serial) {
    launch.threads_per_block = 1;
  } else {
    launch = ComputeLoopLaunch(src.ElementCount(),
                               ByteWidth(hlo->shape().element_type()),
                               request.target->device());
  }
  KernelBuilder kernel(*request.target, request.module, *request.info,
                       *request.buffers, request.symbol,
                       launch.threads_per_block, Index64(request));
  absl::Status status = [&]() -> absl::Status {
    llvm::IRBuilderBase* b = kernel.b();
    HLOC_ASSIGN_OR_RETURN(ElementGenerator operand,
                          kernel.generators().Get(hlo->operand(0)));
    HLOC_ASSIGN_OR_RETURN(ElementGenerator source,
                          kernel.generators().Get(hlo->operand(1)));
    HLOC_ASSIGN_OR_RETURN(llvm::Type * value_type,
                          RegisterType(op.element_type(), b->getContext()));
    llvm::Type* index_type = kernel.index_type();
    llvm::Value* have_slot = EmitAllocaAtEntry(b->getInt1Ty(), "have", b);
    llvm::Value* pick_slot = EmitAllocaAtEntry(value_type, "pick", b);
    std::vector<llvm::Value*> pos_slots;
    for (int64_t d = 0; d < rank; ++d) {
      pos_slots.push_back(EmitAllocaAtEntry(index_type, "pos", b));
    }
    auto body = [&](const IrIndex& o) -> absl::Status {
      b->CreateStore(b->getFalse(), have_slot);
      // A defined value, so that the first select call sees no undef.
      b->CreateStore(llvm::Constant::getNullValue(value_type), pick_slot);
      std::vector<llvm::Value*> k(rank);
      std::function<absl::Status(int64_t)> loop =
          [&](int64_t d) -> absl::Status {
        if (d < rank) {
          return EmitForLoop(
              "window", kernel.Index(0),
              kernel.Index(window.dimensions[d].size), kernel.Index(1),
              [&](llvm::Value* kd) {
                k[d] = kd;
                return loop(d + 1);
              },
              b);
        }
        // The element's coordinate in the padded, base-dilated operand,
        // and whether it is a real operand element.
        std::vector<llvm::Value*> pos(rank);
        llvm::Value* valid = b->getTrue();
        for (int64_t e = 0; e < rank; ++e) {
          const WindowDimension& w = window.dimensions[e];
          llvm::Value* c = b->CreateAdd(
              b->CreateSub(b->CreateMul(o[e], kernel.Index(w.stride)),
                           kernel.Index(w.padding_low)),
              b->CreateMul(k[e], kernel.Index(w.window_dilation)));
          valid = b->CreateAnd(valid, b->CreateICmpSGE(c, kernel.Index(0)));
          if (w.base_dilation > 1) {
            valid = b->CreateAnd(
                valid,
                b->CreateICmpEQ(b->CreateSRem(c, kernel.Index(w.base_dilation)),
                                kernel.Index(0)));
            c = b->CreateSDiv(c, kernel.Index(w.base_dilation));
          }
          pos[e] = c;
          valid = b->CreateAnd(
              valid, b->CreateICmpSLT(c, kernel.Index(op.dimensions(e))));
        }
        return EmitIfThenElse(
            valid,
            [&]() -> absl::Status {
              HLOC_ASSIGN_OR_RETURN(llvm::Value * candidate,
                                    operand(IrIndex(pos, index_type)));
              llvm::Value* have = b->CreateLoad(b->getInt1Ty(), have_slot);
              llvm::Value* pick = b->CreateLoad(value_type, pick_slot);
              HLOC_ASSIGN_OR_RETURN(llvm::Value * keep,
                                    kernel.elemental()->EmitScalarComputation(
                                        select, {pick, candidate}));
              llvm::Value* take =
                  b->CreateSelect(have, b->CreateNot(keep), b->getTrue());
              b->CreateStore(b->CreateSelect(take, candidate, pick), pick_slot);
              for (int64_t e = 0; e < rank; ++e) {
                llvm::Value* old = b->CreateLoad(index_type, pos_slots[e]);
                b->CreateStore(b->CreateSelect(take, pos[e], old),
                               pos_slots[e]);
              }
              b->CreateStore(b->getTrue(), have_slot);
              return absl::OkStatus();
            },
            nullptr, b);
      };
      HLOC_RETURN_IF_ERROR(loop(0));
      return EmitIfThenElse(
          b->CreateLoad(b->getInt1Ty(), have_slot),
          [&]() -> absl::Status {
            std::vector<llvm::Value*> pos(rank);
            for (int64_t d = 0; d < rank; ++d) {
              pos[d] = b->CreateLoad(index_type, pos_slots[d]);
            }
            HLOC_ASSIGN_OR_RETURN(llvm::Value * value, source(o));
            return EmitCombine(kernel, plan, scatter, kernel.output(0),
                               IrIndex(pos, index_type), value);
          },
          nullptr, b);
    };
    if (serial) {
      SerialLoopMapping mapping(kernel.index_type());
      return mapping.EmitLoopNest(src, body, b);
    }
    GpuLoopMapping mapping(&kernel, launch);
    return mapping.EmitLoopNest(src, body, b);
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  if (serial) {
    LaunchDims dims;
    if (src.ElementCount() == 0) dims.grid[0] = 0;
    return dims;
  }
  return launch.dims;
}

}  // namespace

absl::StatusOr<LaunchDims> EmitSelectAndScatterKernel(
    const KernelRequest& request, const HloInstruction* hlo, int step) {
  HLOC_RETURN_IF_ERROR(Check(*hlo));
  if (step == 0) return EmitInitKernel(request, hlo);
  return EmitScatterStep(request, hlo);
}

}  // namespace hloc

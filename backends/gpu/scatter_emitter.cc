// Scatter (the instruction, or a fusion rooted at one: XLA's
// input_scatter_fusion) in two steps:
//   1. the outputs start as the operands: a loop kernel copies them, unless
//      the buffer plan put each output in its operand's buffer already;
//   2. one thread per update element finds its place in the operand (the
//      full dimension numbers, scatter_analysis.h); a window whose start is
//      out of bounds is skipped whole, as XLA does; the combiner then runs
//      on the output element:
//      - unique_indices: load, combine, store (no two threads meet);
//      - add of f32/f64/integers, min/max of integers: one atomicrmw;
//      - a combiner that returns the update: a plain store;
//      - any other combiner of a 32- or 64-bit type: a compare-and-swap
//        loop around the inlined combiner;
//      - anything else (several operands, 8/16-bit types): a single thread
//        walks every update in order.
//      With atomics, duplicate indices are combined in an unspecified order,
//      so a float sum may differ in its last bits from run to run (XLA:GPU
//      does the same); the single-thread path is exactly the serial order.
#include <algorithm>

#include "backends/common/loop_emitter.h"
#include "backends/common/scatter_analysis.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/loop_mapping.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

enum class Combine { kPlain, kAtomicRmw, kStore, kCompareAndSwap, kSerial };

struct CombinePlan {
  Combine how;
  llvm::AtomicRMWInst::BinOp op = llvm::AtomicRMWInst::BAD_BINOP;
};

// The atomicrmw that computes `root(p0, p1)` in place, if there is one.
llvm::AtomicRMWInst::BinOp AtomicOp(HloOpcode opcode, PrimitiveType type) {
  const bool is_float = type == F32 || type == F64;
  const bool is_int = type == S32 || type == U32 || type == S64 || type == U64;
  const bool is_signed = type == S32 || type == S64;
  switch (opcode) {
    case HloOpcode::kAdd:
      if (is_float) return llvm::AtomicRMWInst::FAdd;
      if (is_int) return llvm::AtomicRMWInst::Add;
      break;
    case HloOpcode::kMaximum:
      if (is_int) {
        return is_signed ? llvm::AtomicRMWInst::Max : llvm::AtomicRMWInst::UMax;
      }
      break;
    case HloOpcode::kMinimum:
      if (is_int) {
        return is_signed ? llvm::AtomicRMWInst::Min : llvm::AtomicRMWInst::UMin;
      }
      break;
    default:
      break;
  }
  return llvm::AtomicRMWInst::BAD_BINOP;
}

CombinePlan PlanCombine(const HloInstruction& scatter, int64_t n) {
  if (scatter.attrs().unique_indices) return {Combine::kPlain};
  if (n != 1) return {Combine::kSerial};
  const PrimitiveType type = scatter.operand(0)->shape().element_type();
  const HloInstruction* root = scatter.to_apply()->root_instruction();
  if (root->opcode() == HloOpcode::kParameter &&
      root->parameter_number() == 1) {
    return {Combine::kStore};
  }
  if (root->operand_count() == 2 &&
      root->operand(0)->opcode() == HloOpcode::kParameter &&
      root->operand(1)->opcode() == HloOpcode::kParameter &&
      root->operand(0) != root->operand(1)) {
    llvm::AtomicRMWInst::BinOp op = AtomicOp(root->opcode(), type);
    if (op != llvm::AtomicRMWInst::BAD_BINOP) {
      return {Combine::kAtomicRmw, op};
    }
  }
  const int64_t bytes = ByteWidth(type);
  if (type != PRED && (bytes == 4 || bytes == 8)) {
    return {Combine::kCompareAndSwap};
  }
  return {Combine::kSerial};
}

// The kernel parameter (operand number) whose buffer output `k` of the
// scatter would reuse in place: the scatter's operand k, itself or a
// fusion parameter.
int64_t OperandNumber(const KernelRequest& request, const HloInstruction* op,
                      int64_t k) {
  if (!request.info->fused) return k;
  const HloInstruction* operand = op->operand(k);
  if (operand->opcode() != HloOpcode::kParameter) return -1;
  return operand->parameter_number();
}

bool OutputsInPlace(const KernelRequest& request, const HloInstruction* op,
                    int64_t n) {
  const std::vector<int64_t>& in_place = request.buffers->output_in_place_of;
  if (static_cast<int64_t>(in_place.size()) != n) return false;
  for (int64_t k = 0; k < n; ++k) {
    if (in_place[k] < 0 || in_place[k] != OperandNumber(request, op, k)) {
      return false;
    }
  }
  return true;
}

bool Index64(const KernelRequest& request) {
  return MaxElementsTouched(*request.info) > (int64_t{1} << 31) - 1;
}

// Step 1: the outputs start as the operands.
absl::StatusOr<LaunchDims> EmitCopyKernel(const KernelRequest& request,
                                          const HloInstruction* scatter,
                                          int64_t n) {
  const KernelInfo& info = *request.info;
  LoopLaunch launch =
      ComputeLoopLaunch(info.output_shapes[0].ElementCount(),
                        WidestOutputBytes(info), request.target->device());
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, launch.threads_per_block,
                       Index64(request));
  absl::Status status = [&]() -> absl::Status {
    std::vector<ElementGenerator> generators;
    std::vector<IrArray> arrays;
    for (int64_t k = 0; k < n; ++k) {
      HLOC_ASSIGN_OR_RETURN(ElementGenerator g,
                            kernel.generators().Get(scatter->operand(k)));
      generators.push_back(std::move(g));
      arrays.push_back(kernel.output(k));
    }
    LoopEmitter emitter(std::move(generators), std::move(arrays), kernel.b());
    GpuLoopMapping mapping(&kernel, launch);
    return emitter.EmitLoop(mapping);
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return launch.dims;
}

// `combine(old, update)` stored into *ptr by compare-and-swap until no other
// thread changed the element in between.
absl::Status EmitCompareAndSwap(
    llvm::Value* ptr, llvm::Type* type, llvm::Value* update,
    const std::function<absl::StatusOr<llvm::Value*>(llvm::Value*,
                                                     llvm::Value*)>& combine,
    llvm::IRBuilderBase* b) {
  llvm::Type* bits = b->getIntNTy(type->getPrimitiveSizeInBits());
  llvm::Function* fn = b->GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = b->getContext();
  llvm::Value* initial = b->CreateLoad(bits, ptr);
  llvm::BasicBlock* entry = b->GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx, "cas.loop", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, "cas.done", fn);
  b->CreateBr(loop);
  b->SetInsertPoint(loop);
  llvm::PHINode* old = b->CreatePHI(bits, 2);
  old->addIncoming(initial, entry);
  HLOC_ASSIGN_OR_RETURN(llvm::Value * value,
                        combine(b->CreateBitCast(old, type), update));
  llvm::Value* pair = b->CreateAtomicCmpXchg(
      ptr, old, b->CreateBitCast(value, bits), llvm::MaybeAlign(),
      llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
  old->addIncoming(b->CreateExtractValue(pair, {0}), b->GetInsertBlock());
  b->CreateCondBr(b->CreateExtractValue(pair, {1}), done, loop);
  b->SetInsertPoint(done);
  return absl::OkStatus();
}

// Step 2: the updates.
absl::StatusOr<LaunchDims> EmitUpdateKernel(const KernelRequest& request,
                                            const HloInstruction* scatter,
                                            const ScatterGeometry& g) {
  const KernelInfo& info = *request.info;
  const int64_t n = g.n;
  const ScatterDimensionNumbers& dn =
      *scatter->attrs().scatter_dimension_numbers;
  const Shape& op_shape = scatter->operand(0)->shape();
  const Shape& idx_shape = scatter->operand(n)->shape();
  const Shape& upd_shape = scatter->operand(n + 1)->shape();
  const int64_t rank = op_shape.rank();
  const CombinePlan plan = PlanCombine(*scatter, n);
  for (int64_t k = 0; k < n; ++k) {
    if (ByteWidth(scatter->operand(k)->shape().element_type()) == 0) {
      return CodegenUnimplemented(*scatter, "scatter operand type");
    }
  }
  LoopLaunch launch;
  if (plan.how == Combine::kSerial) {
    launch.threads_per_block = 1;
    launch.elements = upd_shape.ElementCount();
  } else {
    launch =
        ComputeLoopLaunch(upd_shape.ElementCount(), WidestOutputBytes(info),
                          request.target->device());
  }
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, launch.threads_per_block,
                       Index64(request));
  absl::Status status = [&]() -> absl::Status {
    llvm::IRBuilderBase* b = kernel.b();
    llvm::Type* i64 = b->getInt64Ty();
    HLOC_ASSIGN_OR_RETURN(ElementGenerator indices,
                          kernel.generators().Get(scatter->operand(n)));
    std::vector<ElementGenerator> updates;
    for (int64_t k = 0; k < n; ++k) {
      HLOC_ASSIGN_OR_RETURN(
          ElementGenerator u,
          kernel.generators().Get(scatter->operand(n + 1 + k)));
      updates.push_back(std::move(u));
    }
    auto body = [&](const IrIndex& u) -> absl::Status {
      std::vector<llvm::Value*> batch;
      for (int64_t d : g.scatter_dims) batch.push_back(u[d]);
      // Starts in 64 bits, so that no index wraps into bounds.
      std::vector<llvm::Value*> start(rank, b->getInt64(0));
      for (int64_t v = 0; v < g.vector_size; ++v) {
        std::vector<llvm::Value*> at(idx_shape.rank());
        for (size_t i = 0; i < g.index_batch_dims.size(); ++i) {
          at[g.index_batch_dims[i]] = batch[i];
        }
        if (!g.implicit_vector) at[dn.index_vector_dim] = kernel.Index(v);
        HLOC_ASSIGN_OR_RETURN(llvm::Value * x,
                              indices(IrIndex(at, kernel.index_type())));
        start[dn.scatter_dims_to_operand_dims[v]] = b->CreateIntCast(
            x, i64, IsSignedIntegralType(idx_shape.element_type()));
      }
      for (size_t j = 0; j < dn.input_batching_dims.size(); ++j) {
        start[dn.input_batching_dims[j]] =
            b->CreateZExt(batch[g.batching_position[j]], i64);
      }
      llvm::Value* fits = b->getTrue();
      for (int64_t d = 0; d < rank; ++d) {
        fits = b->CreateAnd(
            fits,
            b->CreateAnd(
                b->CreateICmpSGE(start[d], b->getInt64(0)),
                b->CreateICmpSLE(start[d], b->getInt64(op_shape.dimensions(d) -
                                                       g.window_size[d]))));
      }
      return EmitIfThenElse(
          fits,
          [&]() -> absl::Status {
            std::vector<llvm::Value*> full(rank);
            for (int64_t d = 0; d < rank; ++d) {
              full[d] = b->CreateTrunc(start[d], kernel.index_type());
            }
            for (size_t k = 0; k < g.window_dims.size(); ++k) {
              const int64_t d = g.window_dims[k];
              full[d] = b->CreateAdd(full[d], u[dn.update_window_dims[k]]);
            }
            const IrIndex target(full, kernel.index_type());
            std::vector<llvm::Value*> values;
            for (int64_t k = 0; k < n; ++k) {
              HLOC_ASSIGN_OR_RETURN(llvm::Value * v, updates[k](u));
              values.push_back(v);
            }
            const IrArray& out0 = kernel.output(0);
            switch (plan.how) {
              case Combine::kStore:
                return out0.EmitWrite(target, values[0], b);
              case Combine::kAtomicRmw:
                b->CreateAtomicRMW(plan.op, out0.EmitElementPointer(target, b),
                                   values[0], llvm::MaybeAlign(),
                                   llvm::AtomicOrdering::Monotonic);
                return absl::OkStatus();
              case Combine::kCompareAndSwap:
                return EmitCompareAndSwap(
                    out0.EmitElementPointer(target, b), values[0]->getType(),
                    values[0],
                    [&](llvm::Value* old, llvm::Value* update) {
                      return kernel.elemental()->EmitScalarComputation(
                          scatter->to_apply(), {old, update});
                    },
                    b);
              case Combine::kPlain:
              case Combine::kSerial: {
                std::vector<llvm::Value*> args;
                for (int64_t k = 0; k < n; ++k) {
                  HLOC_ASSIGN_OR_RETURN(llvm::Value * old,
                                        kernel.output(k).EmitRead(target, b));
                  args.push_back(old);
                }
                args.insert(args.end(), values.begin(), values.end());
                HLOC_ASSIGN_OR_RETURN(llvm::Value * r,
                                      kernel.elemental()->EmitScalarComputation(
                                          scatter->to_apply(), args));
                for (int64_t k = 0; k < n; ++k) {
                  llvm::Value* v = n == 1 ? r
                                          : b->CreateExtractValue(
                                                r, {static_cast<unsigned>(k)});
                  HLOC_RETURN_IF_ERROR(
                      kernel.output(k).EmitWrite(target, v, b));
                }
                return absl::OkStatus();
              }
            }
            return absl::OkStatus();
          },
          nullptr, b);
    };
    if (plan.how == Combine::kSerial) {
      SerialLoopMapping mapping;
      return mapping.EmitLoopNest(upd_shape, body, b);
    }
    GpuLoopMapping mapping(&kernel, launch);
    return mapping.EmitLoopNest(upd_shape, body, b);
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  if (plan.how == Combine::kSerial) {
    LaunchDims dims;
    if (upd_shape.ElementCount() == 0) dims.grid[0] = 0;
    return dims;
  }
  return launch.dims;
}

}  // namespace

int ScatterKernelSteps(const KernelRequest& request,
                       const HloInstruction* scatter) {
  const int64_t n = (scatter->operand_count() - 1) / 2;
  return OutputsInPlace(request, scatter, n) ? 1 : 2;
}

absl::StatusOr<LaunchDims> EmitScatterKernel(const KernelRequest& request,
                                             const HloInstruction* scatter,
                                             int step) {
  HLOC_ASSIGN_OR_RETURN(ScatterGeometry g, AnalyzeScatter(*scatter));
  if (static_cast<int64_t>(request.info->output_shapes.size()) != g.n) {
    return CodegenUnimplemented(*scatter,
                                "scatter result does not match its operands");
  }
  if (step == 0 && !OutputsInPlace(request, scatter, g.n)) {
    return EmitCopyKernel(request, scatter, g.n);
  }
  return EmitUpdateKernel(request, scatter, g);
}

}  // namespace hloc

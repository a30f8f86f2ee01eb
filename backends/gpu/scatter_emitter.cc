// Scatter (the instruction, or a fusion rooted at one: XLA's
// input_scatter_fusion) in two steps:
//   1. the outputs start as the operands: a loop kernel copies them, unless
//      the buffer plan put each output in its operand's buffer already;
//   2. one thread per update element finds its place in the operand (the
//      full dimension numbers, scatter_analysis.h); a window whose start is
//      out of bounds is skipped whole, as XLA does; the combiner then runs
//      on the output element atomically as atomic_combine.h says
//      (load-combine-store with unique_indices: no two threads meet).
//      Assignment and combiners with no atomic (several operands, pred)
//      keep the serial order instead (Walk below); the GPU pipelines turn
//      long assignments into a scatter of the last position per element
//      with unique indices first (passes/scatter_winners.h).
//      With atomics, duplicate indices are combined in an unspecified order,
//      so a float sum may differ in its last bits from run to run (XLA:GPU
//      does the same); the ordered walks give exactly the serial result.
//      Sorted indices (indices_are_sorted: JAX's segment ops) meet in runs
//      of consecutive scatter positions; there a thread walks a chunk of
//      them and applies one atomic per run it holds (Walk::kSortedRuns).
//      Many updates of a small output (a histogram) are combined per block
//      in a shared-memory copy of the output first (Walk::kPrivateCopy).
#include <algorithm>
#include <vector>

#include "backends/common/elemental_emitter.h"
#include "backends/common/loop_emitter.h"
#include "backends/common/scatter_analysis.h"
#include "backends/gpu/atomic_combine.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/loop_mapping.h"
#include "backends/gpu/reduction_util.h"
#include "hlo/computation.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

// How the update kernel's threads cover the updates.
enum class Walk {
  kParallel,  // a thread per update element (atomics, or unique indices)
  kOrdered,   // a thread per window position, scatter positions in order
  kSerial,    // one thread, scatter positions in order, each whole window
  // A thread per window position and chunk of consecutive scatter
  // positions, combining each run of equal targets in registers before
  // one atomic: 60000 values into 700 sorted segments are runs of ~86
  // updates of one element, which a thread per update made ~86 contending
  // atomics (segment_prod's compare-and-swap loops took 0.35 ms on an
  // H200, session 27). Only for sorted indices (elsewhere runs are rare)
  // and a one-op associative combiner (a run combined first must give
  // what its atomics would).
  kSortedRuns,
  // A grid-stride loop over the update elements whose blocks each combine
  // theirs in a shared-memory copy of the output, initialised to the
  // combiner's identity, then apply each element of it that changed with
  // one atomic (launch_dims.h, PrivateScatterLaunch, says when).
  kPrivateCopy,
};

// The identity of `reducer` (MatchSimpleReducer's opcode) on `type`, in
// register type `ir_type`, or null if none is known: combining it with any
// x gives x, bit for bit, so a private copy's element still holding it
// received nothing to apply. A float sum's is -0 (-0 + x is x for x = -0
// too, where +0 would give +0).
llvm::Constant* ReducerIdentity(HloOpcode reducer, PrimitiveType type,
                                llvm::Type* ir_type) {
  const bool is_float =
      type == F16 || type == BF16 || type == F32 || type == F64;
  const bool is_signed =
      type == S8 || type == S16 || type == S32 || type == S64;
  const bool is_int =
      is_signed || type == U8 || type == U16 || type == U32 || type == U64;
  if (is_float) {
    switch (reducer) {
      case HloOpcode::kAdd:
        return llvm::ConstantFP::getNegativeZero(ir_type);
      case HloOpcode::kMultiply:
        return llvm::ConstantFP::get(ir_type, 1.0);
      case HloOpcode::kMaximum:
        return llvm::ConstantFP::getInfinity(ir_type, /*Negative=*/true);
      case HloOpcode::kMinimum:
        return llvm::ConstantFP::getInfinity(ir_type, /*Negative=*/false);
      default:
        return nullptr;
    }
  }
  if (!is_int) return nullptr;
  const unsigned bits = ir_type->getIntegerBitWidth();
  switch (reducer) {
    case HloOpcode::kAdd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return llvm::ConstantInt::get(ir_type, 0);
    case HloOpcode::kMultiply:
      return llvm::ConstantInt::get(ir_type, 1);
    case HloOpcode::kAnd:
      return llvm::ConstantInt::get(ir_type, llvm::APInt::getAllOnes(bits));
    case HloOpcode::kMaximum:
      return llvm::ConstantInt::get(
          ir_type, is_signed ? llvm::APInt::getSignedMinValue(bits)
                             : llvm::APInt::getMinValue(bits));
    case HloOpcode::kMinimum:
      return llvm::ConstantInt::get(
          ir_type, is_signed ? llvm::APInt::getSignedMaxValue(bits)
                             : llvm::APInt::getMaxValue(bits));
    default:
      return nullptr;
  }
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
  // Several operands are combined together: no atomic covers them.
  const CombinePlan plan =
      n == 1 ? PlanCombine(scatter->to_apply(), op_shape.element_type(),
                           scatter->attrs().unique_indices)
             : CombinePlan{scatter->attrs().unique_indices ? Combine::kPlain
                                                           : Combine::kNone};
  // Assignment, and combiners with no atomic, must give the serial result
  // (the last update of an element wins, as XLA's outputs show for
  // `.at[].set` with duplicate indices). Where two updates can meet only
  // at the same window position (every indexed operand dimension has a
  // window of 1), a thread per window position walks the scatter indices
  // in order; otherwise one thread walks everything.
  std::vector<int64_t> window_dims, scatter_dims;
  for (int64_t d : dn.update_window_dims) {
    window_dims.push_back(upd_shape.dimensions(d));
  }
  for (int64_t d : g.scatter_dims) {
    scatter_dims.push_back(upd_shape.dimensions(d));
  }
  const Shape window_shape =
      Shape::Array(upd_shape.element_type(), window_dims);
  const Shape scatter_shape =
      Shape::Array(upd_shape.element_type(), scatter_dims);
  Walk walk = Walk::kParallel;
  if (plan.how == Combine::kNone || plan.how == Combine::kStore) {
    bool disjoint = true;
    for (int64_t d : dn.scatter_dims_to_operand_dims) {
      disjoint &= g.window_size[d] == 1;
    }
    walk = disjoint ? Walk::kOrdered : Walk::kSerial;
  } else if ((plan.how == Combine::kAtomicRmw ||
              plan.how == Combine::kFloatMinMax ||
              plan.how == Combine::kCompareAndSwap) &&
             n == 1 && scatter->attrs().indices_are_sorted &&
             MatchSimpleReducer(*scatter->to_apply()).has_value() &&
             scatter_shape.ElementCount() > 1) {
    walk = Walk::kSortedRuns;
  }
  for (int64_t k = 0; k < n; ++k) {
    if (ByteWidth(scatter->operand(k)->shape().element_type()) == 0) {
      return CodegenUnimplemented(*scatter, "scatter operand type");
    }
  }
  // Many updates of a small output whose combiner has an identity: each
  // block combines its share in a private copy first.
  llvm::Constant* identity = nullptr;
  PrivateScatterLaunch private_launch;
  if (walk == Walk::kParallel && n == 1 &&
      (plan.how == Combine::kAtomicRmw || plan.how == Combine::kFloatMinMax ||
       plan.how == Combine::kCompareAndSwap)) {
    const PrimitiveType type = op_shape.element_type();
    std::optional<HloOpcode> reducer = MatchSimpleReducer(*scatter->to_apply());
    absl::StatusOr<llvm::Type*> ir_type =
        RegisterType(type, request.module->getContext());
    if (reducer.has_value() && ir_type.ok()) {
      identity = ReducerIdentity(*reducer, type, *ir_type);
    }
    if (identity != nullptr) {
      private_launch = ComputePrivateScatterLaunch(
          upd_shape.ElementCount(), op_shape.ElementCount(), ByteWidth(type),
          request.target->device());
      if (private_launch.private_copy) walk = Walk::kPrivateCopy;
    }
  }
  const SortedScatterLaunch sorted = ComputeSortedScatterLaunch(
      scatter_shape.ElementCount(), window_shape.ElementCount(),
      request.target->device());
  LoopLaunch launch;
  if (walk == Walk::kSerial) {
    launch.threads_per_block = 1;
  } else if (walk == Walk::kPrivateCopy) {
    launch.threads_per_block = private_launch.threads_per_block;
    launch.dims = private_launch.dims;
  } else if (walk == Walk::kSortedRuns) {
    launch = sorted.loop;
  } else {
    launch =
        ComputeLoopLaunch(walk == Walk::kParallel ? upd_shape.ElementCount()
                                                  : window_shape.ElementCount(),
                          WidestOutputBytes(info), request.target->device());
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
    // Where update element `u` goes: whether its window fits the operand
    // (else it is dropped), and its element of the output.
    struct Target {
      llvm::Value* fits;
      IrIndex index;
    };
    auto locate = [&](const IrIndex& u) -> absl::StatusOr<Target> {
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
        start[dn.scatter_dims_to_operand_dims[v]] =
            ConvertStartIndex(x, idx_shape.element_type(), i64, b);
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
      std::vector<llvm::Value*> full(rank);
      for (int64_t d = 0; d < rank; ++d) {
        full[d] = b->CreateTrunc(start[d], kernel.index_type());
      }
      for (size_t k = 0; k < g.window_dims.size(); ++k) {
        const int64_t d = g.window_dims[k];
        full[d] = b->CreateAdd(full[d], u[dn.update_window_dims[k]]);
      }
      return Target{fits, IrIndex(full, kernel.index_type())};
    };
    // Applies update element `u` to `into`: the output, or a block's
    // private copy of it.
    auto body_into = [&](const IrIndex& u,
                         const IrArray& into) -> absl::Status {
      HLOC_ASSIGN_OR_RETURN(Target where, locate(u));
      const IrIndex& target = where.index;
      return EmitIfThenElse(
          where.fits,
          [&]() -> absl::Status {
            std::vector<llvm::Value*> values;
            for (int64_t k = 0; k < n; ++k) {
              HLOC_ASSIGN_OR_RETURN(llvm::Value * v, updates[k](u));
              values.push_back(v);
            }
            if (n == 1) {
              return EmitCombine(kernel, plan, scatter->to_apply(), into,
                                 target, values[0]);
            }
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
              HLOC_RETURN_IF_ERROR(kernel.output(k).EmitWrite(
                  target, b->CreateExtractValue(r, {static_cast<unsigned>(k)}),
                  b));
            }
            return absl::OkStatus();
          },
          nullptr, b);
    };
    auto body = [&](const IrIndex& u) {
      return body_into(u, kernel.output(0));
    };
    // The update element at scatter position `at` and window position `w`.
    auto compose = [&](const std::vector<llvm::Value*>& at,
                       const std::vector<llvm::Value*>& w) {
      std::vector<llvm::Value*> u(upd_shape.rank());
      for (size_t i = 0; i < g.scatter_dims.size(); ++i) {
        u[g.scatter_dims[i]] = at[i];
      }
      for (size_t k = 0; k < dn.update_window_dims.size(); ++k) {
        u[dn.update_window_dims[k]] = w[k];
      }
      return IrIndex(u, kernel.index_type());
    };
    // Every scatter position in order, at window position `w`.
    auto walk_updates = [&](const IrIndex& w) -> absl::Status {
      return EmitForLoop(
          "update", kernel.Index(0), kernel.Index(scatter_shape.ElementCount()),
          kernel.Index(1),
          [&](llvm::Value* linear) -> absl::Status {
            IrIndex at = IrIndex::FromLinear(linear, scatter_shape, b);
            return body(compose(at.multidim(), w.multidim()));
          },
          b);
    };
    // Scatter positions [chunk * run, (chunk + 1) * run) in order at window
    // position `w`: their loads first (in flight together), then each run
    // of equal targets combined in registers and applied by one atomic
    // when the next target differs, and the last after the chunk.
    auto walk_sorted_runs =
        [&](llvm::Value* chunk,
            const std::vector<llvm::Value*>& w) -> absl::Status {
      const IrArray& out = kernel.output(0);
      const int64_t positions = scatter_shape.ElementCount();
      struct Element {
        llvm::Value* fits;
        llvm::Value* at;  // the target's physical position in the output
        llvm::Value* value;
      };
      std::vector<Element> elements;
      for (int64_t i = 0; i < sorted.run; ++i) {
        llvm::Value* pos = b->CreateAdd(
            b->CreateMul(chunk, kernel.Index(sorted.run), "", true, true),
            kernel.Index(i), "", true, true);
        // The last chunk's positions past the end read the last one's
        // update and apply nothing.
        llvm::Value* in_range = b->getTrue();
        if (positions % sorted.run != 0) {
          in_range = b->CreateICmpULT(pos, kernel.Index(positions));
          pos = b->CreateSelect(in_range, pos, kernel.Index(positions - 1));
        }
        const IrIndex at = IrIndex::FromLinear(pos, scatter_shape, b);
        const IrIndex u = compose(at.multidim(), w);
        HLOC_ASSIGN_OR_RETURN(Target where, locate(u));
        HLOC_ASSIGN_OR_RETURN(llvm::Value * value, updates[0](u));
        llvm::Value* fits = b->CreateAnd(in_range, where.fits);
        // A dropped window's position is never compared; 0 keeps it
        // defined.
        llvm::Value* linear = b->CreateSelect(
            fits, out.EmitLinearOffset(where.index, b), kernel.Index(0));
        elements.push_back({fits, linear, value});
      }
      llvm::Type* type = elements[0].value->getType();
      llvm::Type* i1 = b->getInt1Ty();
      llvm::Value* held = EmitAllocaAtEntry(i1, "run_held", b);
      llvm::Value* held_at =
          EmitAllocaAtEntry(kernel.index_type(), "run_at", b);
      llvm::Value* held_value = EmitAllocaAtEntry(type, "run_value", b);
      b->CreateStore(b->getFalse(), held);
      auto apply_held = [&]() -> absl::Status {
        return EmitCombine(
            kernel, plan, scatter->to_apply(), out,
            IrIndex::FromLinear(b->CreateLoad(kernel.index_type(), held_at),
                                out.shape(), b),
            b->CreateLoad(type, held_value));
      };
      for (const Element& e : elements) {
        HLOC_RETURN_IF_ERROR(EmitIfThenElse(
            e.fits,
            [&]() -> absl::Status {
              llvm::Value* same = b->CreateAnd(
                  b->CreateLoad(i1, held),
                  b->CreateICmpEQ(b->CreateLoad(kernel.index_type(), held_at),
                                  e.at));
              return EmitIfThenElse(
                  same,
                  [&]() -> absl::Status {
                    HLOC_ASSIGN_OR_RETURN(
                        llvm::Value * r,
                        kernel.elemental()->EmitScalarComputation(
                            scatter->to_apply(),
                            {b->CreateLoad(type, held_value), e.value}));
                    b->CreateStore(r, held_value);
                    return absl::OkStatus();
                  },
                  [&]() -> absl::Status {
                    HLOC_RETURN_IF_ERROR(EmitIfThenElse(
                        b->CreateLoad(i1, held), apply_held, nullptr, b));
                    b->CreateStore(e.at, held_at);
                    b->CreateStore(e.value, held_value);
                    b->CreateStore(b->getTrue(), held);
                    return absl::OkStatus();
                  },
                  b);
            },
            nullptr, b));
      }
      return EmitIfThenElse(b->CreateLoad(i1, held), apply_held, nullptr, b);
    };
    // Walk::kPrivateCopy: the block's copy set to the identity, its share
    // of the updates combined there, then each changed element applied.
    auto walk_private_copy = [&]() -> absl::Status {
      const IrArray& out = kernel.output(0);
      const Shape& out_shape = out.shape();
      const int64_t elements = out_shape.ElementCount();
      const int64_t threads = launch.threads_per_block;
      llvm::Type* type = identity->getType();
      // Whole 32-bit words, which 8/16-bit compare-and-swaps swap.
      const int64_t bytes = ByteWidth(out_shape.element_type());
      llvm::GlobalVariable* copy = SharedArray(
          kernel, type, CeilOfRatio(elements * bytes, 4) * 4 / bytes,
          "scatter_copy");
      const IrArray shared(SharedElement(kernel, copy, kernel.Index(0)),
                           out_shape);
      llvm::Value* tid = kernel.ThreadId(0);
      HLOC_RETURN_IF_ERROR(EmitForLoop(
          "copy_init", tid, kernel.Index(elements), kernel.Index(threads),
          [&](llvm::Value* i) -> absl::Status {
            b->CreateStore(identity, SharedElement(kernel, copy, i));
            return absl::OkStatus();
          },
          b));
      kernel.target().EmitBarrier(b);
      // Each trip takes `unroll` updates a grid's width apart, their loads
      // issued before the first is combined (more loads in flight per
      // thread); positions past the end read the last update and apply
      // nothing.
      const int64_t count = upd_shape.ElementCount();
      const int64_t stride = threads * launch.dims.NumBlocks();
      const int64_t unroll = private_launch.unroll;
      llvm::Value* first = b->CreateAdd(
          b->CreateMul(kernel.BlockId(0), kernel.Index(threads)), tid);
      HLOC_RETURN_IF_ERROR(EmitForLoop(
          "update", first, kernel.Index(count), kernel.Index(stride * unroll),
          [&](llvm::Value* base) -> absl::Status {
            struct Pending {
              llvm::Value* fits;
              IrIndex target;
              llvm::Value* value;
            };
            std::vector<Pending> pending;
            for (int64_t k = 0; k < unroll; ++k) {
              llvm::Value* pos = b->CreateAdd(base, kernel.Index(k * stride));
              llvm::Value* in_range =
                  b->CreateICmpULT(pos, kernel.Index(count));
              pos = b->CreateSelect(in_range, pos, kernel.Index(count - 1));
              const IrIndex u = IrIndex::FromLinear(pos, upd_shape, b);
              HLOC_ASSIGN_OR_RETURN(Target where, locate(u));
              HLOC_ASSIGN_OR_RETURN(llvm::Value * value, updates[0](u));
              pending.push_back(
                  {b->CreateAnd(in_range, where.fits), where.index, value});
            }
            for (const Pending& p : pending) {
              HLOC_RETURN_IF_ERROR(EmitIfThenElse(
                  p.fits,
                  [&]() {
                    return EmitCombine(kernel, plan, scatter->to_apply(),
                                       shared, p.target, p.value);
                  },
                  nullptr, b));
            }
            return absl::OkStatus();
          },
          b));
      kernel.target().EmitBarrier(b);
      return EmitForLoop(
          "copy_flush", tid, kernel.Index(elements), kernel.Index(threads),
          [&](llvm::Value* i) -> absl::Status {
            llvm::Value* value =
                b->CreateLoad(type, SharedElement(kernel, copy, i));
            llvm::Value* changed =
                type->isFloatingPointTy()
                    ? b->CreateICmpNE(
                          b->CreateBitCast(value, b->getIntNTy(bytes * 8)),
                          b->CreateBitCast(identity, b->getIntNTy(bytes * 8)))
                    : b->CreateICmpNE(value, identity);
            return EmitIfThenElse(
                changed,
                [&]() {
                  return EmitCombine(kernel, plan, scatter->to_apply(), out,
                                     IrIndex::FromLinear(i, out_shape, b),
                                     value);
                },
                nullptr, b);
          },
          b);
    };
    switch (walk) {
      case Walk::kPrivateCopy:
        return walk_private_copy();
      case Walk::kSortedRuns: {
        // [chunk, window position]: adjacent threads take adjacent window
        // positions of one chunk (coalesced reads and atomics).
        std::vector<int64_t> dims = {sorted.chunks};
        dims.insert(dims.end(), window_dims.begin(), window_dims.end());
        GpuLoopMapping mapping(&kernel, launch);
        return mapping.EmitLoopNest(
            Shape::Array(upd_shape.element_type(), dims),
            [&](const IrIndex& cw) {
              return walk_sorted_runs(
                  cw[0], std::vector<llvm::Value*>(cw.multidim().begin() + 1,
                                                   cw.multidim().end()));
            },
            b);
      }
      case Walk::kParallel: {
        GpuLoopMapping mapping(&kernel, launch);
        return mapping.EmitLoopNest(upd_shape, body, b);
      }
      case Walk::kOrdered: {
        GpuLoopMapping mapping(&kernel, launch);
        return mapping.EmitLoopNest(window_shape, walk_updates, b);
      }
      case Walk::kSerial:
        return EmitForLoop(
            "update", kernel.Index(0),
            kernel.Index(scatter_shape.ElementCount()), kernel.Index(1),
            [&](llvm::Value* linear) -> absl::Status {
              IrIndex at = IrIndex::FromLinear(linear, scatter_shape, b);
              SerialLoopMapping mapping(kernel.index_type());
              return mapping.EmitLoopNest(
                  window_shape,
                  [&](const IrIndex& w) {
                    return body(compose(at.multidim(), w.multidim()));
                  },
                  b);
            },
            b);
    }
    return absl::OkStatus();
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  if (walk == Walk::kSerial) {
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

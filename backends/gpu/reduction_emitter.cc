// Row reductions: every output element reduces one contiguous run of the
// input (the reduced dimensions are the physically most minor ones). A warp
// per row for short rows (several rows per block), a block per row for long
// ones (launch_dims.h decides). Each thread strides over its row with a
// private accumulator, then the warp combines its 32 partial results with
// butterfly shuffles (shfl.sync.bfly); with a block per row, lane 0 of
// every warp leaves its result in shared memory and the first warp combines
// those. The sum order differs from a sequential loop (as in XLA).
// Extra outputs of the reduce input's shape (multi-output kInput fusions)
// are stored during the same pass.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "backends/common/loop_emitter.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/reduction_util.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

// One reduce of the kernel: its input and init generators, accumulator
// types, and which kernel output holds each of its results.
struct ReduceState {
  const HloInstruction* reduce;
  size_t n;
  std::vector<ElementGenerator> inputs;
  std::vector<ElementGenerator> inits;
  std::vector<llvm::Type*> types;
  std::vector<int64_t> output_of;   // result k -> kernel output (-1: none)
  std::vector<llvm::Value*> slots;  // accumulators (allocas)
};

absl::StatusOr<std::vector<ReduceState>> MakeReduceStates(
    const KernelInfo& info, const ReductionInfo& r, KernelBuilder& kernel) {
  std::vector<ReduceState> states;
  for (const HloInstruction* reduce : r.reduces) {
    ReduceState s;
    s.reduce = reduce;
    s.n = reduce->operand_count() / 2;
    for (size_t k = 0; k < s.n; ++k) {
      HLOC_ASSIGN_OR_RETURN(ElementGenerator in,
                            kernel.generators().Get(reduce->operand(k)));
      HLOC_ASSIGN_OR_RETURN(ElementGenerator init,
                            kernel.generators().Get(reduce->operand(s.n + k)));
      s.inputs.push_back(std::move(in));
      s.inits.push_back(std::move(init));
      HLOC_ASSIGN_OR_RETURN(
          llvm::Type * t,
          RegisterType(reduce->operand(k)->shape().element_type(),
                       kernel.b()->getContext()));
      s.types.push_back(t);
      s.output_of.push_back(-1);
    }
    for (size_t o = 0; o < info.outputs.size(); ++o) {
      if (info.outputs[o].root != reduce) continue;
      s.output_of[std::max<int64_t>(info.outputs[o].element, 0)] = o;
    }
    states.push_back(std::move(s));
  }
  return states;
}

// accumulators = combiner(accumulators, values).
absl::Status Combine(KernelBuilder& kernel, ReduceState& s,
                     const std::vector<llvm::Value*>& values) {
  llvm::IRBuilderBase* b = kernel.b();
  std::vector<llvm::Value*> args;
  for (size_t k = 0; k < s.n; ++k) {
    args.push_back(b->CreateLoad(s.types[k], s.slots[k]));
  }
  args.insert(args.end(), values.begin(), values.end());
  HLOC_ASSIGN_OR_RETURN(
      llvm::Value * r,
      kernel.elemental()->EmitScalarComputation(s.reduce->to_apply(), args));
  for (size_t k = 0; k < s.n; ++k) {
    b->CreateStore(
        s.n == 1 ? r : b->CreateExtractValue(r, {static_cast<unsigned>(k)}),
        s.slots[k]);
  }
  return absl::OkStatus();
}

// Combines the accumulators of the 32 lanes of each warp; every lane ends
// with the warp's result.
absl::Status WarpReduce(KernelBuilder& kernel, std::vector<ReduceState>& states,
                        int64_t warp_size) {
  llvm::IRBuilderBase* b = kernel.b();
  for (int mask = static_cast<int>(warp_size) / 2; mask > 0; mask /= 2) {
    for (ReduceState& s : states) {
      std::vector<llvm::Value*> others;
      for (size_t k = 0; k < s.n; ++k) {
        others.push_back(
            ShuffleXor(kernel, b->CreateLoad(s.types[k], s.slots[k]), mask));
      }
      HLOC_RETURN_IF_ERROR(Combine(kernel, s, others));
    }
  }
  return absl::OkStatus();
}

// True if the reduced dimensions are the physically most minor ones, so
// every output element reduces one contiguous row.
bool ReducesContiguousRows(const ReductionInfo& r) {
  std::vector<int64_t> m2m = r.input_shape.MinorToMajor();
  for (size_t i = 0; i < r.reduced_dims.size(); ++i) {
    if (std::find(r.reduced_dims.begin(), r.reduced_dims.end(), m2m[i]) ==
        r.reduced_dims.end()) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool IsContiguousRowReduction(const ReductionInfo& r) {
  return r.row && ReducesContiguousRows(r);
}

absl::StatusOr<LaunchDims> EmitRowReductionKernel(const KernelRequest& request,
                                                  const ReductionInfo& r) {
  const KernelInfo& info = *request.info;
  const Shape& in = r.input_shape;
  const GpuDeviceInfo& device = request.target->device();
  int64_t row_length = 1;
  for (int64_t d : r.reduced_dims) row_length *= in.dimensions(d);
  // Rows of zero elements leave every output at its init (the column loop
  // does no iterations).
  int64_t num_outputs_rows = 1;
  for (int64_t d : r.kept_dims) num_outputs_rows *= in.dimensions(d);
  RowReductionLaunch launch =
      ComputeRowReductionLaunch(num_outputs_rows, row_length, device);
  if (num_outputs_rows == 0) launch.dims.grid[0] = 0;
  bool index64 =
      !Use32BitIndexing(MaxElementsTouched(info),
                        launch.dims.NumBlocks() * launch.threads_per_block * 2);
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, launch.threads_per_block, index64);
  absl::Status status = [&]() -> absl::Status {
    llvm::IRBuilderBase* b = kernel.b();
    HLOC_ASSIGN_OR_RETURN(std::vector<ReduceState> states,
                          MakeReduceStates(info, r, kernel));
    const int64_t warp = device.warp_size;
    llvm::Value* tid = kernel.ThreadId(0);
    llvm::Value* lane = b->CreateURem(tid, kernel.Index(warp), "lane");
    llvm::Value* warp_id = b->CreateUDiv(tid, kernel.Index(warp), "warp");
    llvm::Value* row;
    llvm::Value* first;  // first column of this thread
    int64_t stride;      // columns between this thread's elements
    if (launch.warp_per_row) {
      row = b->CreateAdd(
          b->CreateMul(kernel.BlockId(0), kernel.Index(launch.rows_per_block)),
          warp_id, "row");
      first = lane;
      stride = warp;
    } else {
      row = kernel.BlockId(0);
      first = tid;
      stride = launch.threads_per_block;
    }
    // The kept dimensions in the input's physical order, as one shape whose
    // row-major linear index is the row number.
    std::vector<int64_t> kept_physical;
    std::vector<int64_t> m2m = in.MinorToMajor();
    for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
      if (std::find(r.kept_dims.begin(), r.kept_dims.end(), *it) !=
          r.kept_dims.end()) {
        kept_physical.push_back(*it);
      }
    }
    std::vector<int64_t> kept_sizes;
    for (int64_t d : kept_physical) kept_sizes.push_back(in.dimensions(d));
    std::vector<int64_t> reduced_physical = ReducedLoopOrder(r);
    std::vector<int64_t> reduced_sizes;
    for (int64_t d : reduced_physical)
      reduced_sizes.push_back(in.dimensions(d));
    Shape kept_shape = Shape::Array(in.element_type(), kept_sizes);
    Shape reduced_shape = Shape::Array(in.element_type(), reduced_sizes);

    auto body = [&]() -> absl::Status {
      IrIndex row_index = IrIndex::FromLinear(row, kept_shape, b);
      std::vector<llvm::Value*> in_index(in.rank());
      for (size_t j = 0; j < kept_physical.size(); ++j) {
        in_index[kept_physical[j]] = row_index[j];
      }
      for (ReduceState& s : states) {
        for (size_t k = 0; k < s.n; ++k) {
          HLOC_ASSIGN_OR_RETURN(
              llvm::Value * init,
              s.inits[k](IrIndex::Scalar(kernel.index_type())));
          s.slots.push_back(EmitAllocaAtEntry(s.types[k], "acc", b));
          b->CreateStore(init, s.slots[k]);
        }
      }
      llvm::Value* row_base =
          b->CreateMul(row, kernel.Index(row_length), "", true, true);
      HLOC_RETURN_IF_ERROR(EmitForLoop(
          "col", first, kernel.Index(row_length), kernel.Index(stride),
          [&](llvm::Value* c) -> absl::Status {
            IrIndex col_index = IrIndex::FromLinear(c, reduced_shape, b);
            for (size_t j = 0; j < reduced_physical.size(); ++j) {
              in_index[reduced_physical[j]] = col_index[j];
            }
            IrIndex index(in_index, b->CreateAdd(row_base, c, "", true, true),
                          in, kernel.index_type());
            for (ReduceState& s : states) {
              std::vector<llvm::Value*> values;
              for (size_t k = 0; k < s.n; ++k) {
                HLOC_ASSIGN_OR_RETURN(llvm::Value * v, s.inputs[k](index));
                values.push_back(v);
              }
              HLOC_RETURN_IF_ERROR(Combine(kernel, s, values));
            }
            for (size_t o = 0; o < info.outputs.size(); ++o) {
              if (info.outputs[o].root->opcode() == HloOpcode::kReduce) {
                continue;
              }
              HLOC_ASSIGN_OR_RETURN(
                  ElementGenerator g,
                  kernel.generators().ForOutput(info.outputs[o]));
              HLOC_ASSIGN_OR_RETURN(llvm::Value * v, g(index));
              HLOC_RETURN_IF_ERROR(kernel.output(o).EmitWrite(index, v, b));
            }
            return absl::OkStatus();
          },
          b));
      HLOC_RETURN_IF_ERROR(WarpReduce(kernel, states, warp));
      if (!launch.warp_per_row) {
        // Lane 0 of each warp -> shared memory; warp 0 combines them.
        const int64_t warps = launch.threads_per_block / warp;
        std::vector<std::vector<llvm::GlobalVariable*>> shared(states.size());
        for (size_t i = 0; i < states.size(); ++i) {
          for (size_t k = 0; k < states[i].n; ++k) {
            shared[i].push_back(
                SharedArray(kernel, states[i].types[k], warps, "partial"));
          }
        }
        auto slot = [&](size_t i, size_t k, llvm::Value* w) {
          return SharedElement(kernel, shared[i][k], w);
        };
        HLOC_RETURN_IF_ERROR(EmitIfThenElse(
            b->CreateICmpEQ(lane, kernel.Index(0)),
            [&]() -> absl::Status {
              for (size_t i = 0; i < states.size(); ++i) {
                for (size_t k = 0; k < states[i].n; ++k) {
                  b->CreateStore(
                      b->CreateLoad(states[i].types[k], states[i].slots[k]),
                      slot(i, k, warp_id));
                }
              }
              return absl::OkStatus();
            },
            nullptr, b));
        kernel.target().EmitBarrier(b);
        // Lanes past the number of warps start from the init again.
        for (size_t i = 0; i < states.size(); ++i) {
          for (size_t k = 0; k < states[i].n; ++k) {
            HLOC_ASSIGN_OR_RETURN(
                llvm::Value * init,
                states[i].inits[k](IrIndex::Scalar(kernel.index_type())));
            llvm::Value* in_range = b->CreateICmpULT(lane, kernel.Index(warps));
            llvm::Value* safe_lane =
                b->CreateSelect(in_range, lane, kernel.Index(0));
            llvm::Value* partial =
                b->CreateLoad(states[i].types[k], slot(i, k, safe_lane));
            b->CreateStore(b->CreateSelect(in_range, partial, init),
                           states[i].slots[k]);
          }
        }
        HLOC_RETURN_IF_ERROR(WarpReduce(kernel, states, warp));
      }
      llvm::Value* writer = launch.warp_per_row
                                ? b->CreateICmpEQ(lane, kernel.Index(0))
                                : b->CreateICmpEQ(tid, kernel.Index(0));
      return EmitIfThenElse(
          writer,
          [&]() -> absl::Status {
            std::vector<llvm::Value*> out_multi;
            for (int64_t d : r.kept_dims) out_multi.push_back(in_index[d]);
            IrIndex out_index(out_multi, kernel.index_type());
            for (ReduceState& s : states) {
              for (size_t k = 0; k < s.n; ++k) {
                if (s.output_of[k] < 0) continue;
                HLOC_RETURN_IF_ERROR(
                    kernel.output(s.output_of[k])
                        .EmitWrite(out_index,
                                   b->CreateLoad(s.types[k], s.slots[k]), b));
              }
            }
            return absl::OkStatus();
          },
          nullptr, b);
    };
    if (launch.warp_per_row) {
      // Whole warps leave together: the shuffles need every lane.
      return EmitIfThenElse(
          b->CreateICmpULT(row, kernel.Index(num_outputs_rows)), body, nullptr,
          b);
    }
    return body();
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return launch.dims;
}

}  // namespace hloc

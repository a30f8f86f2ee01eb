// Row reductions: every output element reduces one contiguous run of the
// input (the reduced dimensions are the physically most minor ones). A
// group of lanes of one warp per row for short rows (several rows per warp
// and block), a block per row for long ones (launch_dims.h decides). Each
// thread strides over its row with a private accumulator, then the group
// (up to a warp: 32 lanes; an AMD wavefront 64 or 32) combines its partial
// results with butterfly shuffles (shfl.sync.bfly, ds_bpermute), which stay
// within aligned power-of-two groups; with a block per row, lane 0 of
// every warp leaves its result in shared memory and the first warp combines
// those. The sum order differs from a sequential loop (as in XLA).
// Extra outputs of the reduce input's shape (multi-output kInput fusions)
// are stored during the same pass. The thread that writes an output element
// (row and column kernels alike) computes the fusion's epilogue outputs
// there from the complete results (ReductionOutputWriter).
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "backends/common/loop_emitter.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/reduction_util.h"
#include "hlo/computation.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"
#include "llvm/IR/Module.h"

namespace hloc {
namespace {

// The generators MakeReduceStates asks for, from the kernel's.
std::function<absl::StatusOr<ElementGenerator>(const HloInstruction*)>
ReduceGenerators(KernelBuilder& kernel) {
  return [&kernel](const HloInstruction* hlo) {
    return kernel.generators().Get(hlo);
  };
}

// accumulators = combiner(operands), `operands` in the combiner's
// parameter order.
absl::Status CombineOperands(KernelBuilder& kernel, ReduceState& s,
                             const std::vector<llvm::Value*>& operands) {
  llvm::IRBuilderBase* b = kernel.b();
  HLOC_ASSIGN_OR_RETURN(llvm::Value * r,
                        kernel.elemental()->EmitScalarComputation(
                            s.reduce->to_apply(), operands));
  for (size_t k = 0; k < s.n; ++k) {
    b->CreateStore(
        s.n == 1 ? r : b->CreateExtractValue(r, {static_cast<unsigned>(k)}),
        s.slots[k]);
  }
  return absl::OkStatus();
}

// accumulators = combiner(accumulators, values).
absl::Status Combine(KernelBuilder& kernel, ReduceState& s,
                     const std::vector<llvm::Value*>& values) {
  std::vector<llvm::Value*> args;
  for (size_t k = 0; k < s.n; ++k) {
    args.push_back(kernel.b()->CreateLoad(s.types[k], s.slots[k]));
  }
  args.insert(args.end(), values.begin(), values.end());
  return CombineOperands(kernel, s, args);
}

// Combines the accumulators of each aligned group of `group` lanes (a power
// of two, at most the warp) in lane order (ButterflyOperands); every lane
// ends with its group's result. Every lane of the warp must take part: the
// shuffles name the whole warp.
absl::Status WarpReduce(KernelBuilder& kernel, std::vector<ReduceState>& states,
                        int64_t group) {
  llvm::IRBuilderBase* b = kernel.b();
  for (int mask = 1; mask < group; mask *= 2) {
    for (ReduceState& s : states) {
      std::vector<llvm::Value*> own;
      std::vector<llvm::Value*> others;
      for (size_t k = 0; k < s.n; ++k) {
        own.push_back(b->CreateLoad(s.types[k], s.slots[k]));
        others.push_back(ShuffleXor(kernel, own.back(), mask));
      }
      HLOC_RETURN_IF_ERROR(CombineOperands(
          kernel, s,
          ButterflyOperands(kernel, *s.reduce->to_apply(), mask, own, others)));
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
  int64_t element_bytes = 1;
  for (const HloInstruction* reduce : r.reduces) {
    for (int64_t k = 0; k < reduce->operand_count() / 2; ++k) {
      element_bytes = std::max<int64_t>(
          element_bytes, ByteWidth(reduce->operand(k)->shape().element_type()));
    }
  }
  RowReductionLaunch launch = ComputeRowReductionLaunch(
      num_outputs_rows, row_length, element_bytes, device);
  if (num_outputs_rows == 0) launch.dims.grid[0] = 0;
  bool index64 = !Use32BitIndexing(
      MaxElementsTouched(info),
      launch.dims.NumBlocks() * launch.threads_per_block * launch.vector * 2);
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, launch.threads_per_block, index64);
  absl::Status status = [&]() -> absl::Status {
    llvm::IRBuilderBase* b = kernel.b();
    HLOC_ASSIGN_OR_RETURN(std::vector<ReduceState> states,
                          MakeReduceStates(info, r, ReduceGenerators(kernel),
                                           kernel.b()->getContext()));
    ReductionOutputWriter output_writer(kernel, info, r);
    const int64_t warp = device.warp_size;
    llvm::Value* tid = kernel.ThreadId(0);
    llvm::Value* lane = b->CreateURem(tid, kernel.Index(warp), "lane");
    llvm::Value* warp_id = b->CreateUDiv(tid, kernel.Index(warp), "warp");
    llvm::Value* row;
    llvm::Value* first;  // first run of this thread
    // Short rows: the warp's first row, and whether this lane's row exists
    // (the last warp may hold rows past the end; its lanes still shuffle).
    llvm::Value* warp_row = nullptr;
    llvm::Value* row_exists = nullptr;
    const int64_t group = launch.threads_per_row;
    if (launch.short_rows) {
      llvm::Value* block_row =
          b->CreateMul(kernel.BlockId(0), kernel.Index(launch.rows_per_block));
      row = b->CreateAdd(block_row,
                         b->CreateUDiv(tid, kernel.Index(group)), "row");
      warp_row = b->CreateAdd(
          block_row, b->CreateMul(warp_id, kernel.Index(warp / group)));
      row_exists = b->CreateICmpULT(row, kernel.Index(num_outputs_rows));
      first = b->CreateURem(tid, kernel.Index(group), "lane_in_row");
    } else {
      row = kernel.BlockId(0);
      first = tid;
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
      auto element = [&](llvm::Value* c) -> absl::Status {
        IrIndex col_index = IrIndex::FromLinear(c, reduced_shape, b);
        for (size_t j = 0; j < reduced_physical.size(); ++j) {
          in_index[reduced_physical[j]] = col_index[j];
        }
        IrIndex index(in_index, b->CreateAdd(row_base, c, "", true, true), in,
                      kernel.index_type());
        for (ReduceState& s : states) {
          std::vector<llvm::Value*> values;
          for (size_t k = 0; k < s.n; ++k) {
            HLOC_ASSIGN_OR_RETURN(llvm::Value * v, s.inputs[k](index));
            values.push_back(v);
          }
          HLOC_RETURN_IF_ERROR(Combine(kernel, s, values));
        }
        for (size_t o = 0; o < info.outputs.size(); ++o) {
          if (info.outputs[o].root->opcode() == HloOpcode::kReduce ||
              r.IsEpilogueOutput(o)) {
            continue;
          }
          HLOC_ASSIGN_OR_RETURN(ElementGenerator g,
                                kernel.generators().ForOutput(info.outputs[o]));
          HLOC_ASSIGN_OR_RETURN(llvm::Value * v, g(index));
          HLOC_RETURN_IF_ERROR(kernel.output(o).EmitWrite(index, v, b));
        }
        return absl::OkStatus();
      };
      // Runs of `vector` consecutive elements, strided over the row's
      // threads: one vector load per operand and run. A lane whose row
      // does not exist runs none.
      const int64_t vector = launch.vector;
      llvm::Value* runs = kernel.Index(row_length / vector);
      if (row_exists != nullptr) {
        runs = b->CreateSelect(row_exists, runs, kernel.Index(0));
      }
      HLOC_RETURN_IF_ERROR(EmitForLoop(
          "run", first, runs, kernel.Index(group),
          [&](llvm::Value* run) -> absl::Status {
            llvm::Value* c0 =
                b->CreateMul(run, kernel.Index(vector), "", true, true);
            for (int64_t i = 0; i < vector; ++i) {
              HLOC_RETURN_IF_ERROR(element(
                  i == 0 ? c0
                         : b->CreateAdd(c0, kernel.Index(i), "", true, true)));
            }
            return absl::OkStatus();
          },
          b));
      HLOC_RETURN_IF_ERROR(
          WarpReduce(kernel, states, launch.short_rows ? group : warp));
      if (!launch.short_rows) {
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
      llvm::Value* writer =
          launch.short_rows
              ? b->CreateAnd(row_exists,
                             b->CreateICmpEQ(first, kernel.Index(0)))
              : b->CreateICmpEQ(tid, kernel.Index(0));
      return EmitIfThenElse(
          writer,
          [&]() -> absl::Status {
            std::vector<llvm::Value*> out_multi;
            for (int64_t d : r.kept_dims) out_multi.push_back(in_index[d]);
            return output_writer.Write(states,
                                       IrIndex(out_multi, kernel.index_type()));
          },
          nullptr, b);
    };
    if (launch.short_rows) {
      // Whole warps leave together: the shuffles need every lane.
      return EmitIfThenElse(
          b->CreateICmpULT(warp_row, kernel.Index(num_outputs_rows)), body,
          nullptr, b);
    }
    return body();
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return launch.dims;
}

}  // namespace hloc

namespace hloc {
namespace {

// A column reduction's input dimensions in physical order (major to minor)
// as three groups: kept dimensions before the reduced ones (outer), the
// reduced ones, and kept dimensions after them (columns). Dimensions of
// size 1 belong to none (their index is 0).
struct ColumnGroups {
  std::vector<int64_t> outer, reduced, columns;
};

std::optional<ColumnGroups> GroupColumnReduction(const ReductionInfo& r) {
  if (r.row) return std::nullopt;
  const Shape& in = r.input_shape;
  std::vector<int64_t> m2m = in.MinorToMajor();
  ColumnGroups g;
  int phase = 0;  // 0: outer, 1: reduced, 2: columns
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
    const int64_t d = *it;
    if (in.dimensions(d) == 1) continue;
    const bool reduced = std::find(r.reduced_dims.begin(), r.reduced_dims.end(),
                                   d) != r.reduced_dims.end();
    if (reduced) {
      if (phase == 2) return std::nullopt;
      phase = 1;
      g.reduced.push_back(d);
    } else if (phase == 0) {
      g.outer.push_back(d);
    } else {
      phase = 2;
      g.columns.push_back(d);
    }
  }
  if (g.reduced.empty() || g.columns.empty()) return std::nullopt;
  return g;
}

}  // namespace

bool IsColumnReduction(const ReductionInfo& r) {
  return GroupColumnReduction(r).has_value();
}

absl::StatusOr<LaunchDims> EmitColumnReductionKernel(
    const KernelRequest& request, const ReductionInfo& r) {
  const KernelInfo& info = *request.info;
  const Shape& in = r.input_shape;
  const GpuDeviceInfo& device = request.target->device();
  const ColumnGroups groups = *GroupColumnReduction(r);
  const int64_t outer = DimensionsProduct(in, groups.outer);
  const int64_t reduced = DimensionsProduct(in, groups.reduced);
  const int64_t columns = DimensionsProduct(in, groups.columns);
  int64_t element_bytes = 1;
  int64_t accumulator_bytes = 0;
  for (const HloInstruction* reduce : r.reduces) {
    for (int64_t k = 0; k < reduce->operand_count() / 2; ++k) {
      const int64_t bytes =
          ByteWidth(reduce->operand(k)->shape().element_type());
      element_bytes = std::max(element_bytes, bytes);
      // Accumulators are held in f32 at least (bf16 and f16 are widened).
      accumulator_bytes += std::max<int64_t>(bytes, 4);
    }
  }
  ColumnReductionLaunch launch = ComputeColumnReductionLaunch(
      outer, reduced, columns, element_bytes, accumulator_bytes, device);
  const int64_t warp = device.warp_size;
  const int64_t vector = launch.vector;
  const int64_t pack = launch.rows_per_warp;
  // Row groups: a warp's packed rows are groups of their own (launch_dims.h).
  const int64_t row_groups = launch.row_groups * pack;
  const int64_t unroll = launch.row_unroll;
  const int64_t width = launch.TileColumns(warp);
  bool index64 = !Use32BitIndexing(
      MaxElementsTouched(info),
      launch.dims.NumBlocks() * launch.threads_per_block * vector);
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, launch.threads_per_block, index64);
  absl::Status status = [&]() -> absl::Status {
    if (launch.dims.NumBlocks() == 0) return absl::OkStatus();
    llvm::IRBuilderBase* b = kernel.b();
    llvm::Value* tid = kernel.ThreadId(0);
    llvm::Value* lane = b->CreateURem(tid, kernel.Index(warp), "lane");
    llvm::Value* group = b->CreateUDiv(tid, kernel.Index(warp), "group");
    // Packed rows: lane = column lane * pack + row in the warp, so that a
    // warp's rows of one column are an aligned group of `pack` lanes.
    llvm::Value* row_in_warp = nullptr;
    if (pack > 1) {
      row_in_warp = b->CreateURem(lane, kernel.Index(pack), "row_in_warp");
      group =
          b->CreateAdd(b->CreateMul(group, kernel.Index(pack), "", true, true),
                       row_in_warp, "group", true, true);
      lane = b->CreateUDiv(lane, kernel.Index(pack), "column_lane");
    }
    llvm::Value* block = kernel.BlockId(0);
    llvm::Value* tile = b->CreateURem(block, kernel.Index(launch.column_tiles));
    llvm::Value* o = b->CreateUDiv(block, kernel.Index(launch.column_tiles));
    llvm::Value* c0 = b->CreateMul(
        b->CreateAdd(
            b->CreateMul(tile, kernel.Index(width / vector), "", true, true),
            lane, "", true, true),
        kernel.Index(vector), "c0", true, true);
    // One set of accumulators per column of the thread's run.
    std::vector<std::vector<ReduceState>> states(vector);
    for (int64_t v = 0; v < vector; ++v) {
      HLOC_ASSIGN_OR_RETURN(states[v],
                            MakeReduceStates(info, r, ReduceGenerators(kernel),
                                             kernel.b()->getContext()));
      for (ReduceState& s : states[v]) {
        for (size_t k = 0; k < s.n; ++k) {
          HLOC_ASSIGN_OR_RETURN(
              llvm::Value * init,
              s.inits[k](IrIndex::Scalar(kernel.index_type())));
          s.slots.push_back(EmitAllocaAtEntry(s.types[k], "acc", b));
          b->CreateStore(init, s.slots[k]);
        }
      }
    }
    ReductionOutputWriter output_writer(kernel, info, r);
    // Every dimension's index for (outer o, row, column c).
    std::vector<llvm::Value*> base_index(in.rank(), kernel.Index(0));
    SplitLinearInto(o, in, groups.outer, base_index, b);
    auto element_index = [&](llvm::Value* row, int64_t v) {
      std::vector<llvm::Value*> index = base_index;
      SplitLinearInto(row, in, groups.reduced, index, b);
      llvm::Value* c =
          v == 0 ? c0 : b->CreateAdd(c0, kernel.Index(v), "", true, true);
      SplitLinearInto(c, in, groups.columns, index, b);
      llvm::Value* linear = b->CreateAdd(
          b->CreateMul(b->CreateAdd(b->CreateMul(o, kernel.Index(reduced), "",
                                                 true, true),
                                    row, "", true, true),
                       kernel.Index(columns), "", true, true),
          c, "", true, true);
      return IrIndex(index, linear, in, kernel.index_type());
    };
    // Reads `rows` (all of them first, so the loads are in flight
    // together), then combines them in order and writes the extra outputs.
    auto accumulate =
        [&](const std::vector<llvm::Value*>& rows) -> absl::Status {
      std::vector<std::vector<IrIndex>> indices(rows.size());
      // values[u][v][state][k]
      std::vector<std::vector<std::vector<std::vector<llvm::Value*>>>> values(
          rows.size());
      for (size_t u = 0; u < rows.size(); ++u) {
        values[u].resize(vector);
        for (int64_t v = 0; v < vector; ++v) {
          indices[u].push_back(element_index(rows[u], v));
          for (ReduceState& s : states[v]) {
            std::vector<llvm::Value*> vs;
            for (size_t k = 0; k < s.n; ++k) {
              HLOC_ASSIGN_OR_RETURN(llvm::Value * x,
                                    s.inputs[k](indices[u][v]));
              vs.push_back(x);
            }
            values[u][v].push_back(std::move(vs));
          }
        }
      }
      for (size_t u = 0; u < rows.size(); ++u) {
        for (int64_t v = 0; v < vector; ++v) {
          for (size_t i = 0; i < states[v].size(); ++i) {
            HLOC_RETURN_IF_ERROR(
                Combine(kernel, states[v][i], values[u][v][i]));
          }
          for (size_t out = 0; out < info.outputs.size(); ++out) {
            if (info.outputs[out].root->opcode() == HloOpcode::kReduce ||
                r.IsEpilogueOutput(out)) {
              continue;
            }
            HLOC_ASSIGN_OR_RETURN(
                ElementGenerator g,
                kernel.generators().ForOutput(info.outputs[out]));
            HLOC_ASSIGN_OR_RETURN(llvm::Value * x, g(indices[u][v]));
            HLOC_RETURN_IF_ERROR(
                kernel.output(out).EmitWrite(indices[u][v], x, b));
          }
        }
      }
      return absl::OkStatus();
    };
    // A reducer that does not commute (an argmax whose two NaNs keep the
    // first operand, not the lower index) must meet the rows in order: each
    // group then takes a contiguous block of rows, and the groups' partial
    // results meet in group order below. A warp still reads whole rows
    // (coalesced); only packed rows (narrow columns) would lie apart, so
    // they keep the interleaved rows.
    bool commutative = true;
    for (const HloInstruction* reduce : r.reduces) {
      commutative &= MatchSimpleReducer(*reduce->to_apply()).has_value();
    }
    auto ordered_rows_loop = [&]() -> absl::Status {
      const int64_t block = CeilOfRatio(reduced, row_groups);
      llvm::Value* begin = b->CreateBinaryIntrinsic(
          llvm::Intrinsic::umin,
          b->CreateMul(group, kernel.Index(block), "", true, true),
          kernel.Index(reduced));
      llvm::Value* end = b->CreateBinaryIntrinsic(
          llvm::Intrinsic::umin,
          b->CreateAdd(begin, kernel.Index(block), "", true, true),
          kernel.Index(reduced));
      llvm::Value* whole = b->CreateAdd(
          begin,
          b->CreateMul(
              b->CreateUDiv(b->CreateSub(end, begin), kernel.Index(unroll)),
              kernel.Index(unroll)),
          "", true, true);
      HLOC_RETURN_IF_ERROR(EmitForLoop(
          "rows", begin, whole, kernel.Index(unroll),
          [&](llvm::Value* first) -> absl::Status {
            std::vector<llvm::Value*> rows;
            for (int64_t u = 0; u < unroll; ++u) {
              rows.push_back(u == 0 ? first
                                    : b->CreateAdd(first, kernel.Index(u), "",
                                                   true, true));
            }
            return accumulate(rows);
          },
          b));
      return EmitForLoop(
          "rest", whole, end, kernel.Index(1),
          [&](llvm::Value* row) { return accumulate({row}); }, b);
    };
    auto rows_loop = [&]() -> absl::Status {
      if (!commutative && pack == 1) return ordered_rows_loop();
      // Rows group, group + G, ...: `unroll` of them per step while a whole
      // step fits, then one at a time.
      const int64_t step = row_groups * unroll;
      const int64_t main_rows = reduced / step * step;
      if (main_rows > 0) {
        HLOC_RETURN_IF_ERROR(EmitForLoop(
            "rows", kernel.Index(0), kernel.Index(main_rows),
            kernel.Index(step),
            [&](llvm::Value* base) -> absl::Status {
              llvm::Value* first = b->CreateAdd(base, group, "", true, true);
              std::vector<llvm::Value*> rows;
              for (int64_t u = 0; u < unroll; ++u) {
                rows.push_back(
                    u == 0 ? first
                           : b->CreateAdd(first, kernel.Index(u * row_groups),
                                          "", true, true));
              }
              return accumulate(rows);
            },
            b));
      }
      if (main_rows == reduced) return absl::OkStatus();
      return EmitForLoop(
          "rest", b->CreateAdd(kernel.Index(main_rows), group, "", true, true),
          kernel.Index(reduced), kernel.Index(row_groups),
          [&](llvm::Value* row) { return accumulate({row}); }, b);
    };
    // Threads past the last column read nothing but still meet the
    // barrier below.
    llvm::Value* column_valid = nullptr;
    if (columns % width != 0) {
      column_valid = b->CreateICmpULT(c0, kernel.Index(columns));
      HLOC_RETURN_IF_ERROR(EmitIfThenElse(column_valid, rows_loop, nullptr, b));
    } else {
      HLOC_RETURN_IF_ERROR(rows_loop());
    }
    // A warp's packed rows combine (every lane of the warp takes part; the
    // idle lanes' groups hold inits), each lane then holding its group's
    // result; the first row's lane stands for them below.
    if (pack > 1) {
      for (int64_t v = 0; v < vector; ++v) {
        HLOC_RETURN_IF_ERROR(WarpReduce(kernel, states[v], pack));
      }
      llvm::Value* first = b->CreateICmpEQ(row_in_warp, kernel.Index(0));
      column_valid =
          column_valid == nullptr ? first : b->CreateAnd(column_valid, first);
    }
    // The groups' partial results meet in shared memory; group 0 combines
    // them in group order and writes the outputs.
    auto write_outputs = [&]() -> absl::Status {
      for (int64_t v = 0; v < vector; ++v) {
        std::vector<llvm::Value*> index = base_index;
        llvm::Value* c =
            v == 0 ? c0 : b->CreateAdd(c0, kernel.Index(v), "", true, true);
        SplitLinearInto(c, in, groups.columns, index, b);
        std::vector<llvm::Value*> out_multi;
        for (int64_t d : r.kept_dims) out_multi.push_back(index[d]);
        HLOC_RETURN_IF_ERROR(output_writer.Write(
            states[v], IrIndex(out_multi, kernel.index_type())));
      }
      return absl::OkStatus();
    };
    if (launch.row_groups > 1) {
      // The packed rows of a warp were combined above: the warps meet.
      const int64_t warps = launch.row_groups;
      if (pack > 1) {
        group = b->CreateUDiv(group, kernel.Index(pack), "warp_group");
      }
      std::vector<std::vector<std::vector<llvm::GlobalVariable*>>> shared(
          vector);
      llvm::Value* mine =
          b->CreateAdd(b->CreateMul(group, kernel.Index(width), "", true, true),
                       b->CreateMul(lane, kernel.Index(vector), "", true, true),
                       "", true, true);
      // One array per accumulator, shared by the run's columns: column v
      // of a thread's run is at mine + v, so one group's row of the array
      // holds all `width` columns of the tile.
      for (int64_t v = 0; v < vector; ++v) {
        for (size_t i = 0; i < states[v].size(); ++i) {
          ReduceState& s = states[v][i];
          std::vector<llvm::GlobalVariable*> arrays;
          for (size_t k = 0; k < s.n; ++k) {
            arrays.push_back(v == 0 ? SharedArray(kernel, s.types[k],
                                                  warps * width, "partial")
                                    : shared[0][i][k]);
            b->CreateStore(b->CreateLoad(s.types[k], s.slots[k]),
                           SharedElement(kernel, arrays.back(),
                                         b->CreateAdd(mine, kernel.Index(v))));
          }
          shared[v].push_back(std::move(arrays));
        }
      }
      kernel.target().EmitBarrier(b);
      llvm::Value* writer = b->CreateICmpEQ(group, kernel.Index(0));
      if (column_valid != nullptr) writer = b->CreateAnd(writer, column_valid);
      return EmitIfThenElse(
          writer,
          [&]() -> absl::Status {
            for (int64_t g = 1; g < warps; ++g) {
              for (int64_t v = 0; v < vector; ++v) {
                llvm::Value* at = b->CreateAdd(
                    mine, kernel.Index(g * width + v), "", true, true);
                for (size_t i = 0; i < states[v].size(); ++i) {
                  ReduceState& s = states[v][i];
                  std::vector<llvm::Value*> others;
                  for (size_t k = 0; k < s.n; ++k) {
                    others.push_back(b->CreateLoad(
                        s.types[k],
                        SharedElement(kernel, shared[v][i][k], at)));
                  }
                  HLOC_RETURN_IF_ERROR(Combine(kernel, s, others));
                }
              }
            }
            return write_outputs();
          },
          nullptr, b);
    }
    if (column_valid == nullptr) return write_outputs();
    return EmitIfThenElse(column_valid, write_outputs, nullptr, b);
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return launch.dims;
}

}  // namespace hloc

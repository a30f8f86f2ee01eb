// Scans down columns (jnp.cumsum(x, axis=0) of a matrix, cumulative maxima
// along a major axis) with an associative single-op body, split along the
// column so that a few columns still keep the memory busy (launch_dims.h:
// ColumnScanLaunch says when). A block takes a tile of adjacent columns of
// one outer index (thread x) and `segments` threads per column (thread y);
// a column is walked in chunks of segments x run positions, thread y
// owning the run consecutive positions [y * run, (y + 1) * run) of each
// chunk. Per chunk:
//   1. each thread loads its run (every load first, so they are in flight
//      together) and scans it in registers (inclusive);
//   2. it stores its run's total in shared memory; block barrier;
//   3. it folds its column's totals in segment order, starting from the
//      carry: the fold before its own segment is its run's prefix, the
//      whole fold the next chunk's carry (every thread of a column computes
//      the same one, so the carry needs no second exchange);
//   4. it combines the prefix with each element of its run and stores
//      them.
// A warp's loads of one position of its runs cover adjacent columns
// (coalesced). The totals alternate between two shared arrays by chunk
// parity, so one barrier per chunk is enough: a thread writes chunk k+2's
// totals only after passing chunk k+1's barrier, which no thread reaches
// before it has read chunk k's.
//
// This reassociates the body's op, as the row scan does
// (row_scan_emitter.cc): the scan's is_associative attribute allows it.
//
// Threads past the tile's last column, and positions past the column's end
// in the last chunk, load a valid (clamped) position and store nothing.
// Positions past the end are left out of their run's scan by a select, and
// the totals of segments with no position in the chunk are not folded
// (how many is known when the kernel is emitted): no identity element of
// the op is needed.
#include "backends/gpu/column_scan_emitter.h"

#include <vector>

#include "backends/common/loop_emitter.h"
#include "backends/gpu/associative_scan.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/reduction_util.h"
#include "hlo/computation.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

// The input's dimensions physically major to the scanned one (outer) and
// minor to it (columns), each group major first.
struct ColumnScanDims {
  std::vector<int64_t> outer;
  std::vector<int64_t> columns;
};

ColumnScanDims GroupColumnScan(const Shape& in, int64_t dim) {
  ColumnScanDims groups;
  bool past_dim = false;
  const std::vector<int64_t> m2m = in.MinorToMajor();
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
    if (*it == dim) {
      past_dim = true;
      continue;
    }
    (past_dim ? groups.columns : groups.outer).push_back(*it);
  }
  return groups;
}

ColumnScanLaunch LaunchFor(const HloInstruction& scan,
                           const GpuDeviceInfo& device) {
  const Shape& in = scan.operand(0)->shape();
  const int64_t dim = scan.dimensions(0);
  const ColumnScanDims groups = GroupColumnScan(in, dim);
  return ComputeColumnScanLaunch(DimensionsProduct(in, groups.outer),
                                 in.dimensions(dim),
                                 DimensionsProduct(in, groups.columns),
                                 ByteWidth(in.element_type()), device);
}

}  // namespace

bool IsSplitColumnScan(const HloInstruction& scan, const KernelInfo& info,
                       const GpuDeviceInfo& device) {
  return IsSingleOpAssociativeScan(scan, info) &&
         scan.operand(0)->shape().MinorToMajor()[0] != scan.dimensions(0) &&
         LaunchFor(scan, device).split;
}

absl::StatusOr<LaunchDims> EmitSplitColumnScanKernel(
    const KernelRequest& request, const HloInstruction* scan) {
  const KernelInfo& info = *request.info;
  const Shape& in = scan->operand(0)->shape();
  const int64_t dim = scan->dimensions(0);
  const int64_t length = in.dimensions(dim);
  const ColumnScanDims groups = GroupColumnScan(in, dim);
  const int64_t columns = DimensionsProduct(in, groups.columns);
  const ColumnScanLaunch launch = LaunchFor(*scan, request.target->device());
  if (!launch.split) {
    return CodegenUnimplemented(*scan, "column scan is not split");
  }
  const int64_t tile = launch.tile_columns;
  const int64_t segments = launch.segments;
  const int64_t run = launch.run;
  const int64_t chunk = launch.ChunkLength();
  // Unclamped positions and columns overshoot the input by under a chunk
  // of rows and a tile of columns.
  const bool index64 = !Use32BitIndexing(
      MaxElementsTouched(info), in.ElementCount() + chunk * columns + tile);
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, launch.threads_per_block, index64);
  absl::Status status = [&]() -> absl::Status {
    llvm::IRBuilderBase* b = kernel.b();
    HLOC_ASSIGN_OR_RETURN(ElementGenerator input,
                          kernel.generators().Get(scan->operand(0)));
    HLOC_ASSIGN_OR_RETURN(ElementGenerator init,
                          kernel.generators().Get(scan->operand(1)));
    HLOC_ASSIGN_OR_RETURN(llvm::Type * type,
                          RegisterType(in.element_type(), b->getContext()));
    auto combine = [&](llvm::Value* earlier, llvm::Value* later) {
      return CombinePrefixes(kernel, *scan, earlier, later);
    };

    llvm::Value* tid = kernel.ThreadId(0);
    llvm::Value* x = b->CreateURem(tid, kernel.Index(tile), "tile_column");
    llvm::Value* y = b->CreateUDiv(tid, kernel.Index(tile), "segment");
    llvm::Value* block = kernel.BlockId(0);
    llvm::Value* o =
        b->CreateUDiv(block, kernel.Index(launch.column_tiles), "outer");
    llvm::Value* column = b->CreateAdd(
        b->CreateMul(b->CreateURem(block, kernel.Index(launch.column_tiles)),
                     kernel.Index(tile), "", true, true),
        x, "column", true, true);
    // A partial last tile: its threads past the last column read that
    // column's elements and store nothing.
    llvm::Value* in_columns = b->getTrue();
    llvm::Value* c = column;
    if (columns % tile != 0) {
      in_columns = b->CreateICmpULT(column, kernel.Index(columns));
      c = b->CreateSelect(in_columns, column, kernel.Index(columns - 1));
    }
    std::vector<llvm::Value*> base_index(in.rank(), kernel.Index(0));
    SplitLinearInto(o, in, groups.outer, base_index, b);
    SplitLinearInto(c, in, groups.columns, base_index, b);
    // The carry's index: the input's without the scanned dimension.
    std::vector<llvm::Value*> carry_multidim = base_index;
    carry_multidim.erase(carry_multidim.begin() + dim);
    const IrIndex carry_index(carry_multidim, kernel.index_type());
    llvm::Value* outer_base =
        b->CreateMul(o, kernel.Index(length), "outer_base", true, true);
    // The element at walk position `step` of the column (a reverse scan
    // starts at the column's end), with its physical linear position
    // (outer * length + position) * columns + column.
    auto at = [&](llvm::Value* step) {
      llvm::Value* pos =
          scan->attrs().is_reverse
              ? b->CreateSub(kernel.Index(length - 1), step, "", true, true)
              : step;
      std::vector<llvm::Value*> full = base_index;
      full[dim] = pos;
      llvm::Value* linear = b->CreateAdd(
          b->CreateMul(b->CreateAdd(outer_base, pos, "", true, true),
                       kernel.Index(columns), "", true, true),
          c, "", true, true);
      return IrIndex(full, linear, in, kernel.index_type());
    };

    llvm::Value* carry = EmitAllocaAtEntry(type, "carry", b);
    HLOC_ASSIGN_OR_RETURN(llvm::Value * first, init(carry_index));
    b->CreateStore(first, carry);
    // Two arrays of run totals, [parity][segment][column of the tile].
    llvm::GlobalVariable* totals =
        SharedArray(kernel, type, 2 * segments * tile, "totals");
    auto total_slot = [&](llvm::Value* parity, llvm::Value* segment) {
      return SharedElement(
          kernel, totals,
          b->CreateAdd(
              b->CreateMul(
                  b->CreateAdd(b->CreateMul(parity, kernel.Index(segments), "",
                                            true, true),
                               segment, "", true, true),
                  kernel.Index(tile), "", true, true),
              x, "", true, true));
    };
    llvm::Value* run_start =
        b->CreateMul(y, kernel.Index(run), "run_start", true, true);

    // One chunk from walk position `start`, `valid` of whose positions are
    // in the column (== chunk: no bounds checks), its totals in array
    // `parity`.
    auto emit_chunk = [&](llvm::Value* start, int64_t valid,
                          llvm::Value* parity) -> absl::Status {
      const bool whole = valid == chunk;
      llvm::Value* first_step = b->CreateAdd(start, run_start, "", true, true);
      std::vector<llvm::Value*> steps;
      std::vector<llvm::Value*> in_column;
      std::vector<llvm::Value*> values;
      for (int64_t j = 0; j < run; ++j) {
        llvm::Value* step =
            j == 0 ? first_step
                   : b->CreateAdd(first_step, kernel.Index(j), "", true, true);
        llvm::Value* ok = b->getTrue();
        if (!whole) {
          ok = b->CreateICmpULT(step, kernel.Index(length));
          step = b->CreateSelect(ok, step, kernel.Index(length - 1));
        }
        steps.push_back(step);
        in_column.push_back(ok);
        HLOC_ASSIGN_OR_RETURN(llvm::Value * v, input(at(step)));
        values.push_back(v);
      }
      // The run's inclusive scan; a position past the column's end keeps
      // the previous one's prefix, so the last is the run's total.
      std::vector<llvm::Value*> local = {values[0]};
      for (int64_t j = 1; j < run; ++j) {
        HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                              combine(local.back(), values[j]));
        local.push_back(whole ? v
                              : b->CreateSelect(in_column[j], v, local.back()));
      }
      b->CreateStore(local.back(), total_slot(parity, y));
      kernel.target().EmitBarrier(b);
      // Fold the totals of the segments with positions in this chunk.
      llvm::Value* acc = b->CreateLoad(type, carry);
      llvm::Value* prefix = acc;
      for (int64_t s = 0; s < CeilOfRatio(valid, run); ++s) {
        if (s > 0) {
          prefix =
              b->CreateSelect(b->CreateICmpEQ(y, kernel.Index(s)), acc, prefix);
        }
        llvm::Value* t =
            b->CreateLoad(type, total_slot(parity, kernel.Index(s)));
        HLOC_ASSIGN_OR_RETURN(acc, combine(acc, t));
      }
      b->CreateStore(acc, carry);
      auto store = [&]() -> absl::Status {
        for (int64_t j = 0; j < run; ++j) {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * out, combine(prefix, local[j]));
          auto write = [&]() {
            return kernel.output(0).EmitWrite(at(steps[j]), out, b);
          };
          HLOC_RETURN_IF_ERROR(
              whole ? write()
                    : EmitIfThenElse(in_column[j], write, nullptr, b));
        }
        return absl::OkStatus();
      };
      return columns % tile == 0
                 ? store()
                 : EmitIfThenElse(in_columns, store, nullptr, b);
    };

    const int64_t full_chunks = length / chunk;
    if (full_chunks > 0) {
      HLOC_RETURN_IF_ERROR(EmitForLoop(
          "chunk", kernel.Index(0), kernel.Index(full_chunks), kernel.Index(1),
          [&](llvm::Value* k) {
            return emit_chunk(
                b->CreateMul(k, kernel.Index(chunk), "", true, true), chunk,
                b->CreateAnd(k, kernel.Index(1)));
          },
          b));
    }
    if (length % chunk != 0) {
      HLOC_RETURN_IF_ERROR(emit_chunk(kernel.Index(full_chunks * chunk),
                                      length % chunk,
                                      kernel.Index(full_chunks % 2)));
    }
    // Every thread of a column holds the column's fold; segment 0 stores it.
    return EmitIfThenElse(
        b->CreateAnd(in_columns, b->CreateICmpEQ(y, kernel.Index(0))),
        [&]() {
          return kernel.output(1).EmitWrite(carry_index,
                                            b->CreateLoad(type, carry), b);
        },
        nullptr, b);
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return launch.dims;
}

}  // namespace hloc

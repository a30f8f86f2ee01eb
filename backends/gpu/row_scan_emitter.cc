// Scans along the operand's physically minor dimension whose body is one
// associative binary op (what reduce-window-to-scan makes of jnp.cumsum,
// cumprod, cummax along the last axis): a warp per row. A row is walked in
// chunks of warp_size x 4 elements; lane l owns the 4 contiguous elements
// [4l, 4l + 4) of a chunk, so its loads and stores are one 16-byte vector
// each where the row length keeps them aligned (f32, rows a multiple of 4)
// and the warp's are one contiguous span. Per chunk:
//   1. each lane scans its 4 elements (inclusive, in registers);
//   2. the warp scans the lanes' totals with shuffles up by 1, 2, 4, ...
//      (Hillis-Steele: log2(warp) steps), then shifts them by one lane to
//      get each lane's exclusive prefix;
//   3. every element is combined with the running carry (the init, then
//      the previous chunk's last result) and that prefix, and stored;
//   4. the chunk's last result, shuffled from the lane that holds it,
//      becomes the carry of the next chunk.
// Several chunks' loads are issued before any of them is scanned, so each
// warp keeps that many 16-byte loads per lane in flight
// (launch_dims.h: RowScanLaunch).
//
// This reassociates the body's op: e.g. a float sum is computed as a tree
// of partial sums, not left to right. The scan's is_associative attribute
// allows exactly that, and the result differs from the sequential order in
// the last bits only (as XLA:GPU's parallel scans do).
//
// Lanes past the row's end (the last chunk of a row whose length is not a
// multiple of the chunk) load nothing and store nothing; their values
// only flow to higher lanes (shuffles move values up), which are also past
// the end, and the carry is taken from the lane of the row's last element,
// so they never reach a valid result. That needs no identity element for
// the op.
//
// Rows too few to keep the GPU's warps busy (launch_dims.h,
// RowScanLaunch: a single row of 60000 took one warp 50-70 us) are cut
// into segments, a warp each, in three kernels that need no scratch
// memory, the output itself holding the partial results:
//   0. each warp scans its segment as above into the output; the first
//      segment starts from the init, the others from nothing (lane 0's
//      first element is then its own value, so no identity is needed);
//   1. a warp per row folds the segments' last results in segment order,
//      32 at a time with the same shuffles: each becomes final, and the
//      row's last is the carry output;
//   2. each segment after the first combines the final result just
//      before it with its other elements (its last is final already).
// Kernel k + 1 starts after kernel k has finished, so each reads only
// results another step has completed.
//
// A reverse scan walks the row from its last column: the same kernel with
// positions mirrored, each lane's run descending in memory (LLVM's
// load-store vectorizer still makes 16-byte accesses of the runs).
#include <algorithm>
#include <vector>

#include "backends/common/loop_emitter.h"
#include "backends/gpu/associative_scan.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/reduction_util.h"
#include "hlo/computation.h"
#include "hlo/math_util.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

// The dimensions of `shape` other than `dim`, major to minor physically.
std::vector<int64_t> RowDimsPhysical(const Shape& shape, int64_t dim) {
  std::vector<int64_t> m2m = shape.MinorToMajor();
  std::vector<int64_t> dims;
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
    if (*it != dim) dims.push_back(*it);
  }
  return dims;
}

}  // namespace

bool IsRowScan(const HloInstruction& scan, const KernelInfo& info) {
  return IsSingleOpAssociativeScan(scan, info) &&
         scan.operand(0)->shape().MinorToMajor()[0] == scan.dimensions(0);
}

namespace {

RowScanLaunch LaunchOf(const KernelRequest& request,
                       const HloInstruction& scan) {
  const Shape& in = scan.operand(0)->shape();
  const int64_t length = in.dimensions(scan.dimensions(0));
  const int64_t rows = length == 0 ? 0 : in.ElementCount() / length;
  return ComputeRowScanLaunch(rows, length, ByteWidth(in.element_type()),
                              request.target->device());
}

}  // namespace

int RowScanKernelSteps(const KernelRequest& request,
                       const HloInstruction& scan) {
  return LaunchOf(request, scan).segments > 1 ? 3 : 1;
}

absl::StatusOr<LaunchDims> EmitRowScanKernel(const KernelRequest& request,
                                             const HloInstruction* scan,
                                             int step) {
  const KernelInfo& info = *request.info;
  const GpuDeviceInfo& device = request.target->device();
  const Shape& in = scan->operand(0)->shape();
  const int64_t dim = scan->dimensions(0);
  const int64_t length = in.dimensions(dim);
  const int64_t rows = in.ElementCount() / length;
  const RowScanLaunch launch = LaunchOf(request, *scan);
  const int64_t segments = launch.segments;
  const int64_t segment_length = launch.segment_length;
  const int64_t last_length = length - (segments - 1) * segment_length;
  const int64_t warp = device.warp_size;
  const int64_t run = launch.elements_per_lane;
  const int64_t chunk = warp * run;
  const int64_t group = chunk * launch.chunks_in_flight;
  // Step 1 runs a warp per row, the others a warp per segment.
  const int64_t warps = step == 1 ? rows : rows * segments;
  LaunchDims dims = launch.dims;
  dims.grid[0] = CeilOfRatio(warps, launch.rows_per_block);
  bool index64 =
      !Use32BitIndexing(MaxElementsTouched(info),
                        (rows + launch.rows_per_block) * length + group);
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
    const IrArray& out = kernel.output(0);
    // combine(earlier, later): the body with the carry as the earlier
    // prefix and x as the later one.
    auto combine = [&](llvm::Value* earlier, llvm::Value* later) {
      return CombinePrefixes(kernel, *scan, earlier, later);
    };

    llvm::Value* tid = kernel.ThreadId(0);
    llvm::Value* lane = b->CreateURem(tid, kernel.Index(warp), "lane");
    llvm::Value* warp_id = b->CreateAdd(
        b->CreateMul(kernel.BlockId(0), kernel.Index(launch.rows_per_block), "",
                     true, true),
        b->CreateUDiv(tid, kernel.Index(warp)), "warp_id", true, true);
    llvm::Value* row =
        step == 1 ? warp_id
                  : b->CreateUDiv(warp_id, kernel.Index(segments), "row");
    llvm::Value* segment =
        step == 1 ? kernel.Index(0)
                  : b->CreateURem(warp_id, kernel.Index(segments), "segment");
    // The whole warp leaves together (shuffles need every lane).
    return EmitIfThenElse(
        b->CreateICmpULT(warp_id, kernel.Index(warps)),
        [&]() -> absl::Status {
          const std::vector<int64_t> row_dims = RowDimsPhysical(in, dim);
          std::vector<int64_t> row_sizes;
          for (int64_t d : row_dims) row_sizes.push_back(in.dimensions(d));
          const IrIndex row_index = IrIndex::FromLinear(
              row, Shape::Array(in.element_type(), row_sizes), b);
          std::vector<llvm::Value*> multidim(in.rank());
          for (size_t j = 0; j < row_dims.size(); ++j) {
            multidim[row_dims[j]] = row_index[j];
          }
          // The carry's index: the input's without the scan dimension.
          std::vector<llvm::Value*> carry_multidim = multidim;
          carry_multidim.erase(carry_multidim.begin() + dim);
          const IrIndex carry_index(carry_multidim, kernel.index_type());
          llvm::Value* carry = EmitAllocaAtEntry(type, "carry", b);
          // Whether `carry` holds a prefix yet: a segment after the first
          // starts with none (the op needs no identity element).
          llvm::Value* has_carry = EmitAllocaAtEntry(b->getInt1Ty(), "has", b);
          llvm::Value* row_base =
              b->CreateMul(row, kernel.Index(length), "row_base", true, true);
          llvm::Value* lane_offset =
              b->CreateMul(lane, kernel.Index(run), "lane_offset", true, true);
          llvm::Value* segment_base =
              b->CreateMul(segment, kernel.Index(segment_length),
                           "segment_base", true, true);

          // The index of the element at scan position `pos` of the row
          // (a reverse scan starts at the last column).
          auto at = [&](llvm::Value* pos) {
            llvm::Value* col = scan->attrs().is_reverse
                                   ? b->CreateSub(kernel.Index(length - 1), pos,
                                                  "", true, true)
                                   : pos;
            std::vector<llvm::Value*> full = multidim;
            full[dim] = col;
            return IrIndex(full, b->CreateAdd(row_base, col, "", true, true),
                           in, kernel.index_type());
          };
          // The lanes' inclusive scan of `value` (lane l: lanes 0..l).
          auto warp_scan =
              [&](llvm::Value* value) -> absl::StatusOr<llvm::Value*> {
            for (int64_t d = 1; d < warp; d *= 2) {
              llvm::Value* lower = ShuffleUp(kernel, value, d);
              HLOC_ASSIGN_OR_RETURN(llvm::Value * sum, combine(lower, value));
              value = b->CreateSelect(b->CreateICmpUGE(lane, kernel.Index(d)),
                                      sum, value);
            }
            return value;
          };

          // Lane 0 stores the row's last result (every lane holds it) as
          // the carry output.
          auto store_carry = [&]() {
            return EmitIfThenElse(
                b->CreateICmpEQ(lane, kernel.Index(0)),
                [&]() {
                  return kernel.output(1).EmitWrite(
                      carry_index, b->CreateLoad(type, carry), b);
                },
                nullptr, b);
          };

          if (step == 1) {
            // Each segment's last result, folded in segment order: they
            // become the scan's results at those positions (the first
            // segment's already is), 32 a step; the last is the carry.
            b->CreateStore(b->getFalse(), has_carry);
            b->CreateStore(llvm::Constant::getNullValue(type), carry);
            auto emit_ends = [&](llvm::Value* first,
                                 int64_t valid) -> absl::Status {
              llvm::Value* s = b->CreateAdd(first, lane, "", true, true);
              // The end of segment s (the last one's is the row's end);
              // lanes past the last segment read the last end and store
              // nothing.
              llvm::Value* end = b->CreateSub(
                  b->CreateMul(b->CreateAdd(s, kernel.Index(1), "", true, true),
                               kernel.Index(segment_length), "", true, true),
                  kernel.Index(1), "", true, true);
              end = b->CreateSelect(
                  b->CreateICmpULT(s, kernel.Index(segments - 1)), end,
                  kernel.Index(length - 1));
              HLOC_ASSIGN_OR_RETURN(llvm::Value * value,
                                    out.EmitRead(at(end), b));
              HLOC_ASSIGN_OR_RETURN(llvm::Value * total, warp_scan(value));
              HLOC_ASSIGN_OR_RETURN(llvm::Value * carried,
                                    combine(b->CreateLoad(type, carry), total));
              total = b->CreateSelect(b->CreateLoad(b->getInt1Ty(), has_carry),
                                      carried, total);
              HLOC_RETURN_IF_ERROR(EmitIfThenElse(
                  b->CreateICmpULT(lane, kernel.Index(valid)),
                  [&]() { return out.EmitWrite(at(end), total, b); }, nullptr,
                  b));
              b->CreateStore(
                  ShuffleIndex(kernel, total, static_cast<int>(valid - 1)),
                  carry);
              b->CreateStore(b->getTrue(), has_carry);
              return absl::OkStatus();
            };
            if (segments / warp > 0) {
              HLOC_RETURN_IF_ERROR(EmitForLoop(
                  "segment_ends", kernel.Index(0),
                  kernel.Index(segments / warp), kernel.Index(1),
                  [&](llvm::Value* g) {
                    return emit_ends(
                        b->CreateMul(g, kernel.Index(warp), "", true, true),
                        warp);
                  },
                  b));
            }
            if (segments % warp != 0) {
              HLOC_RETURN_IF_ERROR(emit_ends(
                  kernel.Index(segments / warp * warp), segments % warp));
            }
            return store_carry();
          }

          if (step == 2) {
            // Every segment after the first takes the result before it
            // (final since step 1) as the prefix of its elements but its
            // last (final too).
            return EmitIfThenElse(
                b->CreateICmpUGT(segment, kernel.Index(0)),
                [&]() -> absl::Status {
                  HLOC_ASSIGN_OR_RETURN(
                      llvm::Value * prefix,
                      out.EmitRead(
                          at(b->CreateSub(segment_base, kernel.Index(1), "",
                                          true, true)),
                          b));
                  llvm::Value* count = b->CreateSelect(
                      b->CreateICmpEQ(segment, kernel.Index(segments - 1)),
                      kernel.Index(last_length - 1),
                      kernel.Index(segment_length - 1));
                  return EmitForLoop(
                      "segment_prefix", lane, count, kernel.Index(warp),
                      [&](llvm::Value* i) -> absl::Status {
                        const IrIndex where =
                            at(b->CreateAdd(segment_base, i, "", true, true));
                        HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                                              out.EmitRead(where, b));
                        HLOC_ASSIGN_OR_RETURN(llvm::Value * r,
                                              combine(prefix, v));
                        return out.EmitWrite(where, r, b);
                      },
                      b);
                },
                nullptr, b);
          }

          // Step 0: the row (or this segment of it) scanned from the init
          // (the first segment) or from nothing.
          HLOC_ASSIGN_OR_RETURN(llvm::Value * first, init(carry_index));
          b->CreateStore(first, carry);
          b->CreateStore(b->CreateICmpEQ(segment, kernel.Index(0)), has_carry);
          // One group of `valid.size()` chunks from position `start` of
          // the segment (of `span` positions); valid[k] is the number of
          // valid positions of chunk k (== chunk: no bounds checks).
          auto emit_group = [&](llvm::Value* start,
                                const std::vector<int64_t>& valid,
                                int64_t span) -> absl::Status {
            const size_t chunks = valid.size();
            std::vector<std::vector<llvm::Value*>> cols(chunks);
            std::vector<std::vector<llvm::Value*>> vals(chunks);
            auto pos_of = [&](llvm::Value* col) {
              return b->CreateAdd(segment_base, col, "", true, true);
            };
            // Every load of the group first: they are independent.
            for (size_t k = 0; k < chunks; ++k) {
              llvm::Value* base = b->CreateAdd(
                  b->CreateAdd(start, kernel.Index(k * chunk), "", true, true),
                  lane_offset, "", true, true);
              for (int64_t j = 0; j < run; ++j) {
                llvm::Value* col = j == 0 ? base
                                          : b->CreateAdd(base, kernel.Index(j),
                                                         "", true, true);
                cols[k].push_back(col);
                if (valid[k] == chunk) {
                  HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                                        input(at(pos_of(col))));
                  vals[k].push_back(v);
                  continue;
                }
                llvm::Value* slot = EmitAllocaAtEntry(type, "tail", b);
                b->CreateStore(llvm::Constant::getNullValue(type), slot);
                HLOC_RETURN_IF_ERROR(EmitIfThenElse(
                    b->CreateICmpULT(col, kernel.Index(span)),
                    [&]() -> absl::Status {
                      HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                                            input(at(pos_of(col))));
                      b->CreateStore(v, slot);
                      return absl::OkStatus();
                    },
                    nullptr, b));
                vals[k].push_back(b->CreateLoad(type, slot));
              }
            }
            for (size_t k = 0; k < chunks; ++k) {
              std::vector<llvm::Value*> local = {vals[k][0]};
              for (int64_t j = 1; j < run; ++j) {
                HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                                      combine(local.back(), vals[k][j]));
                local.push_back(v);
              }
              HLOC_ASSIGN_OR_RETURN(llvm::Value * total,
                                    warp_scan(local.back()));
              llvm::Value* exclusive = ShuffleUp(kernel, total, 1);
              llvm::Value* carried = b->CreateLoad(type, carry);
              llvm::Value* has = b->CreateLoad(b->getInt1Ty(), has_carry);
              HLOC_ASSIGN_OR_RETURN(llvm::Value * with_lanes,
                                    combine(carried, exclusive));
              llvm::Value* lane0 = b->CreateICmpEQ(lane, kernel.Index(0));
              // Lane 0's prefix is the carry, the others' the carry and
              // the lanes before them; without a carry, lane 0 has none.
              llvm::Value* prefix = b->CreateSelect(
                  lane0, carried, b->CreateSelect(has, with_lanes, exclusive));
              llvm::Value* prefixed = b->CreateOr(has, b->CreateNot(lane0));
              std::vector<llvm::Value*> results;
              for (int64_t j = 0; j < run; ++j) {
                HLOC_ASSIGN_OR_RETURN(llvm::Value * v,
                                      combine(prefix, local[j]));
                v = b->CreateSelect(prefixed, v, local[j]);
                results.push_back(v);
                if (valid[k] == chunk) {
                  HLOC_RETURN_IF_ERROR(
                      out.EmitWrite(at(pos_of(cols[k][j])), v, b));
                  continue;
                }
                HLOC_RETURN_IF_ERROR(EmitIfThenElse(
                    b->CreateICmpULT(cols[k][j], kernel.Index(span)),
                    [&]() {
                      return out.EmitWrite(at(pos_of(cols[k][j])), v, b);
                    },
                    nullptr, b));
              }
              // The chunk's last valid position, and the lane holding it.
              const int64_t last = valid[k] - 1;
              b->CreateStore(ShuffleIndex(kernel, results[last % run],
                                          static_cast<int>(last / run)),
                             carry);
              b->CreateStore(b->getTrue(), has_carry);
            }
            return absl::OkStatus();
          };
          // The walk over a segment of `span` positions.
          auto walk = [&](int64_t span) -> absl::Status {
            const int64_t full_groups = span / group;
            if (full_groups > 0) {
              HLOC_RETURN_IF_ERROR(EmitForLoop(
                  "scan_group", kernel.Index(0), kernel.Index(full_groups),
                  kernel.Index(1),
                  [&](llvm::Value* g) {
                    return emit_group(
                        b->CreateMul(g, kernel.Index(group), "", true, true),
                        std::vector<int64_t>(launch.chunks_in_flight, chunk),
                        span);
                  },
                  b));
            }
            // The rest: its chunks' valid lengths are known here.
            std::vector<int64_t> tail;
            for (int64_t start = full_groups * group; start < span;
                 start += chunk) {
              tail.push_back(std::min(chunk, span - start));
            }
            if (tail.empty()) return absl::OkStatus();
            return emit_group(kernel.Index(full_groups * group), tail, span);
          };
          if (segments == 1) {
            HLOC_RETURN_IF_ERROR(walk(length));
            return store_carry();
          }
          // Segments of segment_length but the last (step 1 writes the
          // carry).
          return EmitIfThenElse(
              b->CreateICmpEQ(segment, kernel.Index(segments - 1)),
              [&]() { return walk(last_length); },
              [&]() { return walk(segment_length); }, b);
        },
        nullptr, b);
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return dims;
}

}  // namespace hloc

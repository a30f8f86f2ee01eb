// Launch dimensions and the other tuning decisions of the GPU kernels, in
// one place, from the device's facts (device_info.h). Each constant in
// launch_dims.cc says why it has its value. No LLVM here.
#ifndef BACKENDS_GPU_LAUNCH_DIMS_H_
#define BACKENDS_GPU_LAUNCH_DIMS_H_

#include <cstdint>
#include <optional>

#include "backends/gpu/device_info.h"
#include "backends/gpu/matrix_layout.h"
#include "runtime/executable.h"

namespace hloc {

// Elementwise loop kernels: a run is `unroll` consecutive elements of the
// iteration space (physical, row-major-by-layout order), so a thread's
// loads and stores of same-shaped buffers in a run are contiguous and
// become 16-byte vector accesses. Block k's runs are k * vectors *
// threads_per_block onwards, its thread t has run number t of each of
// the block's `vectors` spans of threads_per_block runs (so that each
// access instruction of a warp covers one contiguous span of memory).
struct LoopLaunch {
  LaunchDims dims;
  int64_t threads_per_block = 0;
  int64_t unroll = 1;
  int64_t vectors = 1;
  // Elements in the iteration space (0: nothing to launch).
  int64_t elements = 0;
  // Element positions the grid covers (at least `elements`).
  int64_t LaunchedElements() const {
    return dims.NumBlocks() * threads_per_block * unroll * vectors;
  }
};

// `widest_element_bytes`: the widest element type the kernel stores;
// `widest_read_bytes`: the widest it streams in (0: none wider than it
// stores), which decides whether a thread takes more than one vector.
LoopLaunch ComputeLoopLaunch(int64_t elements, int64_t widest_element_bytes,
                             const GpuDeviceInfo& device,
                             int64_t widest_read_bytes = 0);

// Whether a kernel whose largest buffer or iteration space has
// `max_elements` elements, launched over `launched_elements` thread-element
// slots, may index in 32 bits (as XLA does: cheaper integer arithmetic,
// fewer registers).
bool Use32BitIndexing(int64_t max_elements, int64_t launched_elements);

// Row reductions (the physically minor dimension reduced; each output
// element reduces one contiguous row): rows of up to kWarpRowMaxLength
// elements are short: each gets a group of `threads_per_row` lanes of one
// warp (a power of two, at most the warp: as many lanes as the row has
// vector runs), so a warp reduces warp / threads_per_row rows and a block
// several warps of them. Longer rows get a whole block each.
struct RowReductionLaunch {
  LaunchDims dims;
  int64_t threads_per_block = 0;
  // Rows one block reduces (1 for long rows).
  int64_t rows_per_block = 1;
  bool short_rows = false;
  // Lanes that reduce one row (long rows: threads_per_block).
  int64_t threads_per_row = 0;
  // A thread reads runs of `vector` consecutive elements (divides the row
  // length): 16-byte loads.
  int64_t vector = 1;
};
RowReductionLaunch ComputeRowReductionLaunch(int64_t rows, int64_t row_length,
                                             int64_t element_bytes,
                                             const GpuDeviceInfo& device);

// Row-reduction fusions (softmax, layer norm, log-softmax; rows of at most
// kMaxRowElements): a group of `threads_per_row` threads (a power of two)
// owns a row, several rows per block when rows are short. Thread g of a
// group owns the `vector`-element runs starting at (j * threads_per_row +
// g) * vector for j < vectors_per_thread: 16-byte loads and stores,
// coalesced across the group, and the row's inputs stay in the threads'
// registers between the row's passes.
struct RowFusionLaunch {
  LaunchDims dims;
  int64_t threads_per_block = 0;
  int64_t threads_per_row = 1;
  int64_t rows_per_block = 1;
  int64_t vector = 1;  // elements per run (divides the row length)
  int64_t vectors_per_thread = 0;
};
// `widest_element_bytes`: the widest element of the row-shaped inputs and
// outputs (a run is 16 bytes of it).
RowFusionLaunch ComputeRowFusionLaunch(int64_t rows, int64_t row_length,
                                       int64_t widest_element_bytes,
                                       const GpuDeviceInfo& device);

// Column reductions (the minor dimension kept; the input seen as [outer,
// reduced, columns] in physical order): a block owns `vector` x 32
// consecutive columns of one outer index and every reduced row; its 32
// lanes read consecutive runs of `vector` columns of a row (coalesced,
// vector loads), its `row_groups` warps take every row_groups-th row (a
// contiguous block each where the reducer does not commute, so that rows
// meet in order), `row_unroll` rows at a time (independent loads in
// flight), and the warps' partial results meet in shared memory. One pass,
// no atomics: each output element is combined in a fixed order, so results
// are deterministic.
// Narrow columns (at most half a warp) pack `rows_per_warp` rows into a
// warp instead of idling the lanes past the last column: lane l reads
// column l / rows_per_warp of row l % rows_per_warp of each step (the
// warp's loads still one contiguous span), and a butterfly over the
// aligned groups of rows_per_warp lanes combines a warp's rows before the
// warps meet.
struct ColumnReductionLaunch {
  LaunchDims dims;
  int64_t threads_per_block = 0;
  int64_t vector = 1;      // columns per thread (divides `columns`)
  int64_t row_groups = 1;  // warps per block
  int64_t row_unroll = 1;
  int64_t column_tiles = 0;  // blocks per outer index
  int64_t rows_per_warp = 1;  // a power of two
  // Columns of a tile: warp / rows_per_warp lanes of `vector` columns.
  int64_t TileColumns(int64_t warp) const {
    return warp / rows_per_warp * vector;
  }
};
// `element_bytes`: the widest reduce input element; `accumulator_bytes`:
// the bytes of one column's accumulators (all reduces of the kernel), which
// bound the shared memory the warps' partial results take.
ColumnReductionLaunch ComputeColumnReductionLaunch(
    int64_t outer, int64_t reduced, int64_t columns, int64_t element_bytes,
    int64_t accumulator_bytes, const GpuDeviceInfo& device);

// Scans along the physically minor dimension with an associative one-op
// body (row_scan_emitter.cc): a warp per row, `rows_per_block` warps per
// block. Lane l owns elements [l * elements_per_lane, (l + 1) *
// elements_per_lane) of each chunk of warp_size * elements_per_lane
// consecutive elements; a warp loads `chunks_in_flight` chunks before it
// scans them. Rows too few to keep the GPU's warps busy are cut into
// `segments` of `segment_length` (a multiple of chunks_in_flight chunks;
// the last segment takes the rest), a warp each, in three kernels
// (row_scan_emitter.cc); `dims` then covers rows * segments warps.
struct RowScanLaunch {
  LaunchDims dims;
  int64_t threads_per_block = 0;
  int64_t rows_per_block = 1;
  int64_t elements_per_lane = 4;
  int64_t chunks_in_flight = 1;
  int64_t segments = 1;
  int64_t segment_length = 0;
};
RowScanLaunch ComputeRowScanLaunch(int64_t rows, int64_t row_length,
                                   int64_t element_bytes,
                                   const GpuDeviceInfo& device);

// Scans along a dimension that is not physically minor with an
// associative one-op body (column_scan_emitter.cc), split along the
// scanned length: a block takes `tile_columns` adjacent columns (thread x)
// of one outer index and `segments` threads per column (thread y); the
// columns are walked in chunks of segments * run positions, thread y
// owning the `run` consecutive positions [y * run, (y + 1) * run) of each.
// When `split` is false, the scan is left to the thread-per-column walk
// (scan_emitter.cc), which needs no barriers.
struct ColumnScanLaunch {
  bool split = false;
  LaunchDims dims;
  int64_t threads_per_block = 0;
  int64_t tile_columns = 1;  // a power of two, at most the warp
  int64_t segments = 1;      // tile_columns * segments is whole warps
  int64_t run = 1;
  int64_t column_tiles = 1;  // blocks per outer index
  int64_t ChunkLength() const { return segments * run; }
};
// `outer`: the product of the dimensions physically major to the scanned
// one; `columns`: of those minor to it.
ColumnScanLaunch ComputeColumnScanLaunch(int64_t outer, int64_t length,
                                         int64_t columns, int64_t element_bytes,
                                         const GpuDeviceInfo& device);

// Scatters with sorted indices and an associative combiner
// (scatter_emitter.cc, Walk::kSortedRuns): a thread per window position and
// chunk of `run` consecutive scatter positions (`chunks` of them), window
// positions minor; a loop launch of one element per thread.
struct SortedScatterLaunch {
  LoopLaunch loop;
  int64_t run = 1;
  int64_t chunks = 0;
};
SortedScatterLaunch ComputeSortedScatterLaunch(int64_t positions,
                                               int64_t window_elements,
                                               const GpuDeviceInfo& device);

// Scatters whose many updates meet on a small output, at most 48 KB
// (scatter_emitter.cc,
// Walk::kPrivateCopy): each block combines its updates (a grid-stride loop
// over them, `unroll` a trip) in a shared-memory copy of the output, then
// applies the copy to the output with one atomic per changed element.
// `private_copy` false: not worth it (or the output does not fit), use a
// thread per update.
struct PrivateScatterLaunch {
  bool private_copy = false;
  LaunchDims dims;
  int64_t threads_per_block = 0;
  int64_t unroll = 1;
};
PrivateScatterLaunch ComputePrivateScatterLaunch(int64_t updates,
                                                 int64_t output_elements,
                                                 int64_t element_bytes,
                                                 const GpuDeviceInfo& device);

// Dots (tiled_dot_emitter.cc): a block computes a tile_m x tile_n tile of
// one batch's [m, n] output, walking the contracted dimension in slices of
// tile_k staged through shared memory. Without matrix cores each thread
// accumulates a micro_m x micro_n register tile (its rows and columns
// strided by tile / micro across the tile, so a warp's shared-memory reads
// are broadcasts or consecutive); with a matrix instruction
// (matrix_layout.h) the block is four warps on a 2 x 2 grid, each owning a
// wave_m x wave_n tile that it covers with (wave_m / instruction m) x
// (wave_n / instruction n) instructions.
struct TiledDotLaunch {
  LaunchDims dims;
  int64_t threads_per_block = 0;
  int64_t tile_m = 0;
  int64_t tile_n = 0;
  int64_t tile_k = 0;
  int64_t micro_m = 0;
  int64_t micro_n = 0;
  int64_t wave_m = 0;
  int64_t wave_n = 0;
  int64_t tiles_m = 0;
  int64_t tiles_n = 0;
};
TiledDotLaunch ComputeTiledDotLaunch(int64_t batch, int64_t m, int64_t n,
                                     const std::optional<MatrixShape>& matrix,
                                     const GpuDeviceInfo& device);

// Transposes that move the minor dimension: square tiles through shared
// memory, kTransposeLanes x `rows` threads. A thread takes
// tile / kTransposeLanes elements of each of its tile / rows rows, walking
// a row in runs of `run` consecutive elements (up to a 4-byte word: two
// 2-byte elements are one 4-byte access), the warp's runs side by side.
inline constexpr int64_t kTransposeLanes = 32;
struct TransposeTiling {
  int64_t tile = 32;    // the square tile's side
  int64_t rows = 8;     // threads along the tile's other side
  int64_t run = 1;      // consecutive elements a lane takes at a time
  int64_t stride = 33;  // elements from one row of the shared tile to the
                        // next (the tile's side plus padding)
};
// `widest_bytes`: the widest element the kernel reads or writes along a
// tile row (the hero's operand or the output); `tile_bytes`: the element
// of the shared tile (the hero's); `dk` x `dj`: the tile plane, of which
// the output holds `planes`.
TransposeTiling ComputeTransposeTiling(int64_t widest_bytes, int64_t tile_bytes,
                                       int64_t dk, int64_t dj, int64_t planes,
                                       const GpuDeviceInfo& device);

// Depthwise convolutions with channels minor (depthwise_conv_emitter.cc,
// depthwise_conv.h). A thread computes `vector` consecutive channels (one
// 16-byte access where the channel count allows) at `width` consecutive
// output positions along the minor spatial dimension (W), so that each
// input vector it loads serves up to `width` of its window taps. A block
// is `positions` groups of `channel_vectors` threads: each group covers
// one chunk of the channels (grid y, `chunks` of them) at one output
// position (batch, the outer spatial dimensions and a tile of `width`
// along W; grid x, `blocks`), and the block first stages its chunk's
// filter taps in shared memory (at most kDepthwiseSharedBytes).
inline constexpr int64_t kDepthwiseThreads = 256;
inline constexpr int64_t kDepthwiseWidth = 4;
inline constexpr int64_t kDepthwiseSharedBytes = 16 * 1024;
struct DepthwiseConvTiling {
  int64_t vector = 1;
  int64_t width = 1;
  int64_t channel_vectors = 1;
  int64_t chunks = 1;
  int64_t positions = 1;
  int64_t blocks = 0;
  int64_t ThreadsPerBlock() const { return channel_vectors * positions; }
};
// `outer_positions`: the output's positions apart from channels and W
// (batch times the outer spatial sizes); `output_width`: W's size. Nullopt
// when one vector of channels' filter taps does not fit the shared budget.
std::optional<DepthwiseConvTiling> ComputeDepthwiseConvTiling(
    int64_t channels, int64_t element_bytes, int64_t taps,
    int64_t outer_positions, int64_t output_width);

}  // namespace hloc

#endif  // BACKENDS_GPU_LAUNCH_DIMS_H_

#include "backends/gpu/launch_dims.h"

#include <algorithm>

#include "hlo/math_util.h"

namespace hloc {
namespace {

int64_t RoundUp(int64_t a, int64_t b) { return CeilOfRatio(a, b) * b; }

// 256 threads (8 warps) per block for loop kernels: with 2048 resident
// threads per SM that is 8 blocks per SM, enough warps to hide memory
// latency, while a block stays small enough that a partial last wave
// wastes little.
constexpr int64_t kLoopThreadsPerBlock = 256;

// A thread handles 16 bytes of its widest output (4 x f32, 8 x f16/bf16,
// 2 x f64): one vector store (st.global.v4.f32) and, for same-shaped
// operands, one vector load each. Capped at 8 elements so narrow types
// (pred, s8) do not unroll the body 16 times.
constexpr int64_t kVectorBytes = 16;
constexpr int64_t kMaxUnroll = 8;
// Loops whose outputs are 2 bytes wide or narrower give a thread two
// 16-byte vectors (launch_dims.h: at a block-wide stride, both loaded
// before either computes): 8 or more elements per vector are enough
// arithmetic that a thread computing holds no load in flight, and the
// SM's 2048 threads then keep too few bytes in flight for the memory.
// Measured on an H200 (session 21, tools/gpu_bench/RESULTS.md; the bf16
// chain5 kernel over 8192 x 8192, three rounds): 69.4-69.6 us with one
// vector, 68.1-68.2 with two (31 registers, occupancy kept), 68.0-68.1
// with four. f32 keeps one: two vectors of a copy-like f32 kernel took
// 132.7 us against 128.5. So does a narrow loop that streams in wider
// elements (each output vector then needs two or more input vectors
// already): rmsnorm_rotary's f32 -> bf16 rotary loop took 76 us with two
// vectors against 54 with one (H200, session 22, device call 3).
constexpr int64_t kNarrowLoopVectors = 2;
// A loop gives threads more than one vector only while that leaves at
// least 8 blocks per SM (a full SM's worth of 256-thread blocks), so that
// a partial last wave stays a small part of the run.
constexpr int64_t kMinLoopBlocksPerSm = 8;

// Rows up to this length get (part of) a warp each: a block per
// 32-element row would leave most of its threads idle (XLA's "row
// vectorization" for short rows does the same). A row gets as many lanes
// as it has 16-byte runs, up to the warp, so that no lane idles: with a
// whole warp per 64-element f32 row (16 runs), half the lanes loaded
// nothing, and jnp.argmax over 262144 x 64 f32 (a variadic reduction,
// this kernel's) took 43.7 us on an H200; 16 lanes a row, 22.7 us.
constexpr int64_t kWarpRowMaxLength = 512;
// Block-per-row reductions: 256 threads; a long row is strided over them.
// With fewer rows than two per SM (64 rows of 2^20 elements), a block per
// row leaves SMs idle and each busy SM must pull more than its share of
// the bandwidth: 1024 threads then, for more loads in flight. (Several
// blocks per row would need a second pass over partial results, and the
// executable has no scratch buffers for them yet.)
constexpr int64_t kRowBlockThreads = 256;
constexpr int64_t kFewRowsBlockThreads = 1024;
// Short rows: 8 warps per block (256 threads, as for loop kernels).
constexpr int64_t kShortRowWarpsPerBlock = 8;

// Row-reduction fusions: a thread owns up to 4 runs of its row (16 bytes
// each: 16 f32, 32 bf16 elements) kept in registers: several independent
// 16-byte loads in flight per thread cover the memory latency. More runs
// per thread cost occupancy more than they add loads in flight: with 64
// bf16 elements softmax took 172 registers (one block per SM) and ran at
// 27% of copy on the H100; over 8192 x 8192 on an H200 (session 16,
// tools/gpu_bench/RESULTS.md) 8 runs of f32 (48 registers, 5 blocks of 256
// per SM) took 133.0 us for softmax and 133.1 for layer norm, 4 runs (32
// and 44 registers, full occupancy) 131.6 and 132.3, 16 runs 132.2 and
// 135.6; in bf16, 4 runs took 68.3 and 68.5 us, 2 runs 77.9 and 73.8, 8
// runs 75.5 and 81.3. Rows with more runs than that get more threads, up
// to a block of 1024 (a 16384-element f32 row, the row fusions' limit, is
// then 4 runs).
constexpr int64_t kRowFusionRunsPerThread = 4;
constexpr int64_t kRowFusionMaxThreadsPerRow = 1024;
// But at least a warp's worth of threads per row where the row has that
// many runs, so that a warp's loads are one contiguous span: with 2
// threads per 64-element row (8 runs each), each load of a warp touched
// 16 rows, and row sums over 262144 x 64 reached 33% of copy.
// Short rows share a block: 256 threads, as for loop kernels.
constexpr int64_t kRowFusionThreadsPerBlock = 256;

// Column reductions: up to 32 warps per block (each a group of rows);
// fewer when there are fewer rows.
constexpr int64_t kColumnMaxRowGroups = 32;
// A thread keeps 32 bytes of loads in flight per step (8 f32 rows of one
// column, or 2 rows of a 16-byte run): with 2048 threads per SM that is
// 64 KiB in flight per SM, over the ~20 KiB that a 3 TB/s memory with
// ~1 us latency needs per SM of 132.
constexpr int64_t kColumnBytesInFlight = 32;
constexpr int64_t kColumnMaxUnroll = 8;

// Row scans: 4 elements per lane, one 16-byte access of f32 (two of f64,
// half of one of bf16; the lane-local part of the scan stays short, so a
// chunk's latency is dominated by its log2(warp) shuffle steps, the same
// whatever the type).
constexpr int64_t kScanElementsPerLane = 4;
// 4 warps (rows) per block: a 4096-row cumsum is 1024 blocks, about 8 per
// SM of 132, so the last wave is nearly full; blocks are small enough that
// few rows still spread over the SMs.
constexpr int64_t kScanRowsPerBlock = 4;
// A warp issues the loads of 4 chunks (4 x 16 bytes per lane) before
// scanning them: the scan of a chunk is a serial chain of shuffles, so
// without this a warp would wait on memory once per chunk. With the ~31
// warps per SM of a 4096x4096 cumsum that is ~62 KiB in flight per SM,
// over the ~20 KiB that 3 TB/s at ~1 us latency needs per SM.
constexpr int64_t kScanChunksInFlight = 4;
// The shortest segment a split row scan gives a warp (elements): shorter
// ones would spend more on the two extra kernels than they save.
constexpr int64_t kScanMinSegment = 2048;
// A row is one warp's, or, where the rows are too few, a segment of one
// is (ComputeRowScanLaunch): a block per row would add a shared-memory
// pass over its warps' totals per chunk and still leave all but a few SMs
// idle for one long row.

// Column scans split along their length when the thread-per-column walk
// would run fewer threads than a quarter of what the device holds
// resident: each walking thread keeps 16 loads in flight
// (scan_emitter.cc), so 4096 columns of f32 keep ~256 KiB in flight, an
// order of magnitude under what a 3 TB/s memory with ~1 us latency needs,
// while a quarter of an H100's 270K resident threads keeps ~4 MiB. (A
// 5000 x 33 cumsum down axis 0 took 0.13 ms on an H200 as 33 walks,
// session 27; not yet measured split.)
constexpr int64_t kColumnScanSplitResidentFraction = 4;
// Each thread owns 32 bytes of a column per chunk (8 f32), all loaded
// before it scans them, as a column reduction's thread keeps in flight
// (kColumnBytesInFlight): with 1024 threads a block then has 32 KiB in
// flight, over the ~20 KiB per SM that the memory needs.
constexpr int64_t kColumnScanRunBytes = 32;
constexpr int64_t kColumnScanMaxRun = 8;
// Up to 32 threads along a column: each thread folds the chunk's segment
// totals one by one from shared memory (as many steps as segments), so
// more segments cost more than they add. A split needs at least 4.
constexpr int64_t kColumnScanMaxSegments = 32;
constexpr int64_t kColumnScanMinSegments = 4;

// Sorted scatters: a thread walks 16 consecutive scatter positions, the
// loads of all 16 issued first (as a column scan's walking thread keeps 16
// in flight), so a run of equal targets up to 16 long costs one atomic,
// and a segment of ~86 updates about 6 threads contending instead of 86.
constexpr int64_t kSortedScatterRun = 16;

// Scatters whose many updates meet on few elements (a histogram, a
// count-min sketch's 240000 increments of 256 counters): each block first
// combines its share of the updates in a copy of the whole output in shared
// memory, then applies its copy's changed elements to the output, so that
// the global atomics on one element number the blocks, not the updates
// (the sketch's ~940 adds per counter cost 62 us on an H100, session 39).
// An output of up to 48 KB (a block's static shared memory) still leaves
// room for four blocks per SM (an H100 has 228 KB of shared memory per
// SM): a count-min sketch of 4 x 2048 u32 counters (32 KB) took 0.114 ms
// that way against 0.916 ms with a thread per update (H100, session 40;
// XLA:GPU 1.716 ms). Only where updates average at
// least 16 per element: with fewer, the contention is mild and copying the
// output in and out of shared memory costs more than it saves; and not
// for fewer than 8192 updates, too few for contention to matter.
constexpr int64_t kPrivateScatterMaxBytes = 48 * 1024;
constexpr int64_t kPrivateScatterMinUpdatesPerElement = 16;
constexpr int64_t kPrivateScatterMinUpdates = 8192;
// Blocks take at least 8 times as many updates as their copy has elements
// (the flush's atomics stay an eighth of the updates' or fewer), and each
// thread at least 4 updates, which it loads 4 at a time (a trip's loads in
// flight together); at most 4 blocks of 256 per SM (a thousand threads
// with 4 loads each in flight, as a loop kernel's unrolled vectors keep
// the memory busy).
constexpr int64_t kPrivateScatterUpdatesPerFlush = 8;
constexpr int64_t kPrivateScatterUnroll = 4;
constexpr int64_t kPrivateScatterBlocksPerSm = 4;

}  // namespace

PrivateScatterLaunch ComputePrivateScatterLaunch(int64_t updates,
                                                 int64_t output_elements,
                                                 int64_t element_bytes,
                                                 const GpuDeviceInfo& device) {
  PrivateScatterLaunch launch;
  const int64_t bytes = RoundUp(output_elements * element_bytes, 4);
  if (output_elements < 1 || updates < kPrivateScatterMinUpdates ||
      bytes >
          std::min(kPrivateScatterMaxBytes, device.shared_memory_per_block) ||
      updates < kPrivateScatterMinUpdatesPerElement * output_elements) {
    return launch;
  }
  launch.private_copy = true;
  launch.threads_per_block = kLoopThreadsPerBlock;
  launch.unroll = kPrivateScatterUnroll;
  const int64_t blocks = std::min(
      {updates / (kPrivateScatterUpdatesPerFlush * output_elements),
       CeilOfRatio(updates, kPrivateScatterUnroll * launch.threads_per_block),
       kPrivateScatterBlocksPerSm * std::max<int64_t>(1, device.core_count)});
  launch.dims.block[0] = launch.threads_per_block;
  launch.dims.grid[0] = std::max<int64_t>(1, blocks);
  return launch;
}

RowScanLaunch ComputeRowScanLaunch(int64_t rows, int64_t row_length,
                                   int64_t element_bytes,
                                   const GpuDeviceInfo& device) {
  (void)element_bytes;
  RowScanLaunch launch;
  launch.elements_per_lane = kScanElementsPerLane;
  const int64_t chunk = device.warp_size * launch.elements_per_lane;
  // Short rows: no more chunks in flight than the row has.
  launch.chunks_in_flight = std::clamp<int64_t>(CeilOfRatio(row_length, chunk),
                                                1, kScanChunksInFlight);
  launch.segment_length = row_length;
  // A warp walks its row alone: a row of 60000 s64 took 50-70 us on the
  // H100 (session 39), one warp of the GPU's 8448 busy. Rows whose warps
  // would fill less than a quarter of the GPU are cut into segments of at
  // least kScanMinSegment elements, up to that quarter.
  const int64_t group = chunk * launch.chunks_in_flight;
  const int64_t quarter =
      device.core_count * device.max_threads_per_core / device.warp_size / 4;
  if (rows >= 1 && rows < quarter && row_length >= 2 * kScanMinSegment) {
    const int64_t segments =
        std::min(CeilOfRatio(quarter, rows), row_length / kScanMinSegment);
    const int64_t length =
        CeilOfRatio(CeilOfRatio(row_length, segments), group) * group;
    if (CeilOfRatio(row_length, length) >= 2) {
      launch.segment_length = length;
      launch.segments = CeilOfRatio(row_length, length);
    }
  }
  const int64_t warps = rows * launch.segments;
  launch.rows_per_block = std::clamp<int64_t>(warps, 1, kScanRowsPerBlock);
  launch.threads_per_block = launch.rows_per_block * device.warp_size;
  launch.dims.block[0] = launch.threads_per_block;
  launch.dims.grid[0] = CeilOfRatio(warps, launch.rows_per_block);
  return launch;
}

ColumnScanLaunch ComputeColumnScanLaunch(int64_t outer, int64_t length,
                                         int64_t columns, int64_t element_bytes,
                                         const GpuDeviceInfo& device) {
  ColumnScanLaunch launch;
  launch.run = std::clamp<int64_t>(
      kColumnScanRunBytes / std::max<int64_t>(1, element_bytes), 1,
      kColumnScanMaxRun);
  const int64_t resident = device.core_count * device.max_threads_per_core;
  if (outer < 1 || columns < 1 ||
      outer * columns * kColumnScanSplitResidentFraction >= resident ||
      CeilOfRatio(length, launch.run) < kColumnScanMinSegments) {
    return launch;
  }
  // Whole warps: a power-of-two tile of columns (a warp's loads of one
  // position then cover adjacent columns), times enough segments.
  const int64_t warp = device.warp_size;
  int64_t tile = 1;
  while (tile < columns && tile < warp) tile *= 2;
  int64_t segments = warp / tile;
  const int64_t max_segments =
      std::min(std::max(kColumnScanMaxSegments, warp / tile),
               device.max_threads_per_block / tile);
  while (segments * 2 <= max_segments && segments * launch.run < length) {
    segments *= 2;
  }
  launch.split = true;
  launch.tile_columns = tile;
  launch.segments = segments;
  launch.column_tiles = CeilOfRatio(columns, tile);
  launch.threads_per_block = tile * segments;
  launch.dims.block[0] = launch.threads_per_block;
  launch.dims.grid[0] = outer * launch.column_tiles;
  return launch;
}

SortedScatterLaunch ComputeSortedScatterLaunch(int64_t positions,
                                               int64_t window_elements,
                                               const GpuDeviceInfo& device) {
  SortedScatterLaunch launch;
  launch.run = std::clamp<int64_t>(positions, 1, kSortedScatterRun);
  launch.chunks = CeilOfRatio(positions, launch.run);
  LoopLaunch& loop = launch.loop;
  loop.elements = launch.chunks * window_elements;
  if (loop.elements <= 0) {
    loop.dims.grid[0] = 0;
    return launch;
  }
  loop.threads_per_block =
      std::min(kLoopThreadsPerBlock, RoundUp(loop.elements, device.warp_size));
  loop.dims.block[0] = loop.threads_per_block;
  loop.dims.grid[0] = CeilOfRatio(loop.elements, loop.threads_per_block);
  return launch;
}

LoopLaunch ComputeLoopLaunch(int64_t elements, int64_t widest_element_bytes,
                             const GpuDeviceInfo& device,
                             int64_t widest_read_bytes) {
  LoopLaunch launch;
  launch.elements = elements;
  if (elements <= 0) {
    launch.dims.grid[0] = 0;
    return launch;
  }
  int64_t unroll = std::clamp<int64_t>(
      kVectorBytes / std::max<int64_t>(1, widest_element_bytes), 1, kMaxUnroll);
  // Small iteration spaces: fewer elements per thread, so that every SM
  // gets a block before any thread takes a second vector's worth.
  while (unroll > 1 && CeilOfRatio(elements, kLoopThreadsPerBlock * unroll) <
                           device.core_count) {
    unroll /= 2;
  }
  int64_t threads = std::min<int64_t>(
      kLoopThreadsPerBlock,
      RoundUp(CeilOfRatio(elements, unroll), device.warp_size));
  int64_t vectors = std::max(widest_element_bytes, widest_read_bytes) <= 2
                        ? kNarrowLoopVectors
                        : 1;
  while (vectors > 1 && CeilOfRatio(elements, threads * unroll * vectors) <
                            kMinLoopBlocksPerSm * device.core_count) {
    vectors /= 2;
  }
  launch.unroll = unroll;
  launch.vectors = vectors;
  launch.threads_per_block = threads;
  launch.dims.block[0] = threads;
  launch.dims.grid[0] = CeilOfRatio(elements, threads * unroll * vectors);
  return launch;
}

bool Use32BitIndexing(int64_t max_elements, int64_t launched_elements) {
  constexpr int64_t kLimit = int64_t{1} << 31;
  return max_elements < kLimit && launched_elements < kLimit;
}

RowReductionLaunch ComputeRowReductionLaunch(int64_t rows, int64_t row_length,
                                             int64_t element_bytes,
                                             const GpuDeviceInfo& device) {
  RowReductionLaunch launch;
  launch.vector = std::clamp<int64_t>(
      kVectorBytes / std::max<int64_t>(1, element_bytes), 1, kMaxUnroll);
  while (launch.vector > 1 && row_length % launch.vector != 0) {
    launch.vector /= 2;
  }
  if (row_length <= kWarpRowMaxLength) {
    launch.short_rows = true;
    const int64_t runs = row_length / launch.vector;
    int64_t group = 1;
    while (group < device.warp_size && group < runs) group *= 2;
    const int64_t rows_per_warp = device.warp_size / group;
    const int64_t warps = std::clamp<int64_t>(CeilOfRatio(rows, rows_per_warp),
                                              1, kShortRowWarpsPerBlock);
    launch.threads_per_row = group;
    launch.rows_per_block = warps * rows_per_warp;
    launch.threads_per_block = warps * device.warp_size;
  } else {
    launch.threads_per_block =
        rows < 2 * device.core_count ? kFewRowsBlockThreads : kRowBlockThreads;
    launch.threads_per_row = launch.threads_per_block;
  }
  launch.dims.block[0] = launch.threads_per_block;
  launch.dims.grid[0] = CeilOfRatio(rows, launch.rows_per_block);
  return launch;
}

RowFusionLaunch ComputeRowFusionLaunch(int64_t rows, int64_t row_length,
                                       int64_t widest_element_bytes,
                                       const GpuDeviceInfo& device) {
  RowFusionLaunch launch;
  int64_t vector = std::clamp<int64_t>(
      kVectorBytes / std::max<int64_t>(1, widest_element_bytes), 1, kMaxUnroll);
  // A run must not straddle two rows, or its accesses would not be one
  // aligned vector.
  while (vector > 1 && row_length % vector != 0) vector /= 2;
  const int64_t runs = CeilOfRatio(row_length, vector);
  const int64_t runs_per_thread = kRowFusionRunsPerThread;
  // A group is a power of two within the block's limit (960 threads on
  // the 64-wide-warp test device: 512).
  const int64_t max_group =
      std::min(kRowFusionMaxThreadsPerRow, device.max_threads_per_block);
  int64_t group = 1;
  while (2 * group <= max_group &&
         ((group < device.warp_size && group < runs) ||
          group * runs_per_thread < runs)) {
    group *= 2;
  }
  // Not more rows per block than there are rows, but at least a whole
  // warp: the group reductions shuffle over all its lanes.
  int64_t per_block = std::max<int64_t>(1, kRowFusionThreadsPerBlock / group);
  int64_t rows_pow2 = 1;
  while (rows_pow2 < rows) rows_pow2 *= 2;
  per_block = std::min(per_block, rows_pow2);
  per_block = std::max(per_block, CeilOfRatio(device.warp_size, group));
  launch.vector = vector;
  launch.threads_per_row = group;
  launch.rows_per_block = per_block;
  launch.vectors_per_thread = CeilOfRatio(runs, group);
  launch.threads_per_block = group * per_block;
  launch.dims.block[0] = launch.threads_per_block;
  launch.dims.grid[0] = rows <= 0 ? 0 : CeilOfRatio(rows, per_block);
  return launch;
}

ColumnReductionLaunch ComputeColumnReductionLaunch(
    int64_t outer, int64_t reduced, int64_t columns, int64_t element_bytes,
    int64_t accumulator_bytes, const GpuDeviceInfo& device) {
  ColumnReductionLaunch launch;
  const int64_t warp = device.warp_size;
  // Wide runs (16-byte loads) only while there is still a block for every
  // SM: with few columns, parallelism matters more than load width (a
  // block cannot share its columns' rows with another block without a
  // second pass).
  int64_t vector = std::clamp<int64_t>(
      kVectorBytes / std::max<int64_t>(1, element_bytes), 1, kMaxUnroll);
  while (vector > 1 &&
         (columns % vector != 0 ||
          outer * CeilOfRatio(columns, warp * vector) < device.core_count)) {
    vector /= 2;
  }
  int64_t groups = 1;
  while (groups < kColumnMaxRowGroups && groups < reduced &&
         // 32 warps of 64 lanes (AMD) would be more than a block holds.
         2 * groups * warp <= device.max_threads_per_block &&
         // The warps' partial results must fit the block's shared memory.
         2 * groups * warp * vector * accumulator_bytes <=
             device.shared_memory_per_block) {
    groups *= 2;
  }
  launch.vector = vector;
  launch.row_groups = groups;
  launch.row_unroll = std::clamp<int64_t>(
      kColumnBytesInFlight / (vector * std::max<int64_t>(1, element_bytes)), 1,
      kColumnMaxUnroll);
  // Narrow columns: as many rows per warp as fit its lanes (5 columns: 4
  // rows of 20 lanes, where one row left 27 of 32 lanes idle and the
  // block's loads in flight a sixth of a full warp's).
  while (2 * launch.rows_per_warp * CeilOfRatio(columns, vector) <= warp) {
    launch.rows_per_warp *= 2;
  }
  launch.column_tiles = CeilOfRatio(columns, launch.TileColumns(warp));
  launch.threads_per_block = warp * groups;
  launch.dims.block[0] = launch.threads_per_block;
  launch.dims.grid[0] = outer * launch.column_tiles;
  return launch;
}

// Dot tiles: 64 x 64 outputs, 4 x 4 per thread (256 threads), K slices
// of 16: two slices of 64 x 16 elements stage through 8 KiB of shared
// memory (16 KiB for f64), far below every device's limit, and a thread
// does 16 multiply-adds per 8 shared-memory reads. A side of the output of
// at most 32 takes a 32-wide tile instead, so small dots do not idle
// three quarters of the block.
//
// With a matrix instruction the block is four warps on a 2 x 2 grid of
// 32 x 32 warp tiles (one MFMA 32 x 32; 2 x 4 mma.sync m16n8k16). The
// NVIDIA instruction also allows 16 x 16 warp tiles (32 x 32 blocks),
// taken when 64 x 64 blocks would leave SMs idle: the dots the tiled
// kernel gets on cuda are the small ones (cost_model.h), where a 128^3
// dot is 4 blocks of 64 x 64 on 132 SMs. K slices cover at least four
// instructions' K (64 for mma.sync's 16): on those small dots a slice is
// bound by the latency of its loads and barriers, not by its arithmetic,
// so fewer, longer slices are faster (on the H100, 32-deep slices made a
// 512^3 bf16 dot 13.1 us; MODELS.md has the 64-deep figure).
constexpr int64_t kDotTile = 64;
constexpr int64_t kDotSmallTile = 32;
constexpr int64_t kDotTileK = 16;
constexpr int64_t kDotMicroTile = 4;
constexpr int64_t kMatrixWaveTile = 32;
constexpr int64_t kMatrixSmallWaveTile = 16;
constexpr int64_t kMatrixWarps = 2;  // a side of the block's warp grid

TiledDotLaunch ComputeTiledDotLaunch(int64_t batch, int64_t m, int64_t n,
                                     const std::optional<MatrixShape>& matrix,
                                     const GpuDeviceInfo& device) {
  TiledDotLaunch launch;
  launch.tile_k = kDotTileK;
  launch.micro_m = launch.micro_n = kDotMicroTile;
  if (matrix.has_value()) {
    int64_t wave = kMatrixWaveTile;
    const int64_t big_blocks = CeilOfRatio(m, kMatrixWarps * wave) *
                               CeilOfRatio(n, kMatrixWarps * wave) * batch;
    if (matrix->m <= kMatrixSmallWaveTile &&
        matrix->n <= kMatrixSmallWaveTile && big_blocks < device.core_count) {
      wave = kMatrixSmallWaveTile;
    }
    launch.wave_m = launch.wave_n = wave;
    launch.tile_m = launch.tile_n = kMatrixWarps * wave;
    launch.tile_k = std::max<int64_t>(kDotTileK, 4 * matrix->k);
    launch.threads_per_block = kMatrixWarps * kMatrixWarps * matrix->lanes;
  } else {
    launch.tile_m = m <= kDotSmallTile ? kDotSmallTile : kDotTile;
    launch.tile_n = n <= kDotSmallTile ? kDotSmallTile : kDotTile;
    launch.threads_per_block =
        (launch.tile_m / kDotMicroTile) * (launch.tile_n / kDotMicroTile);
  }
  launch.tiles_m = CeilOfRatio(m, launch.tile_m);
  launch.tiles_n = CeilOfRatio(n, launch.tile_n);
  launch.dims.block[0] = launch.threads_per_block;
  launch.dims.grid[0] = launch.tiles_m * launch.tiles_n * batch;
  return launch;
}

// Transpose tiles: the larger side where the output still makes at least
// kTransposeMinBlocksPerSm blocks per SM. Measured on the H100 (x.T + y
// over 8192 x 8192, 256 threads a block): f32 ran at 278.8 us with 32-wide
// tiles and 274.4 us with 64-wide ones (16 elements a thread instead of 4:
// more loads in flight); bf16 at 145.2 us with 64-wide tiles of single
// 2-byte accesses, 141.8 us with runs of two, 138.8 us with 128-wide
// tiles. Smaller outputs keep the smaller tile so that every SM gets work
// (a 1024 x 1024 f32 transpose is 256 blocks of 64 x 64 but 1024 of
// 32 x 32). 1-byte elements keep 64-wide tiles and 8-byte ones 32 (not
// measured larger). Blocks are 8 warps (256 threads), 16 for 64-wide f32
// tiles: 272.6 us against 274.7 (and 274.4 with 4 warps); 16 warps on
// 128-wide bf16 tiles changed nothing (139.3 against 139.0 us). The
// larger side also has to cover the tile plane about as well as the
// smaller does (within 1/32, about what it gains): a plane 64 wide
// (NCHW -> NHWC over 64 channels) would fill half of every 128-wide tile.
constexpr int64_t kTransposeMinBlocksPerSm = 8;
constexpr int64_t kTransposeRows = 8;
constexpr int64_t kTransposeRowsLargeF32 = 16;

TransposeTiling ComputeTransposeTiling(int64_t widest_bytes, int64_t tile_bytes,
                                       int64_t dk, int64_t dj, int64_t planes,
                                       const GpuDeviceInfo& device) {
  int64_t small = kTransposeLanes;
  int64_t large = kTransposeLanes;
  if (widest_bytes == 4) {
    large = 2 * kTransposeLanes;
  } else if (widest_bytes == 2) {
    small = 2 * kTransposeLanes;
    large = 4 * kTransposeLanes;
  } else if (widest_bytes == 1) {
    small = large = 2 * kTransposeLanes;
  }
  TransposeTiling t;
  // Elements the tiles of side `side` span, padding included.
  auto padded = [&](int64_t side) {
    return CeilOfRatio(dk, side) * CeilOfRatio(dj, side) * side * side;
  };
  const int64_t large_blocks =
      CeilOfRatio(dk, large) * CeilOfRatio(dj, large) * planes;
  t.tile = large_blocks >= kTransposeMinBlocksPerSm * device.core_count &&
                   padded(large) * 32 <= padded(small) * 33
               ? large
               : small;
  t.rows = widest_bytes == 4 && t.tile == large ? kTransposeRowsLargeF32
                                                 : kTransposeRows;
  t.run = std::clamp<int64_t>(4 / std::max<int64_t>(1, widest_bytes), 1,
                              t.tile / kTransposeLanes);
  // Padding: the rows that neighbouring lanes read in the column walk are
  // `run` rows apart; an odd number of 4-byte words between them puts a
  // warp's 32 reads in 32 different banks. Runs of 8 bytes or more leave
  // an even number whatever the padding: one element then, as for wide
  // types.
  t.stride = t.tile + 1;
  for (int64_t pad = 1; tile_bytes <= 4 && pad <= 8; ++pad) {
    const int64_t bytes = t.run * (t.tile + pad) * tile_bytes;
    if (bytes % 4 == 0 && (bytes / 4) % 2 == 1) {
      t.stride = t.tile + pad;
      break;
    }
  }
  return t;
}

// Depthwise convolutions. kDepthwiseWidth: with 4 outputs along W a
// 7-wide window reads 10 input vectors instead of 28, while the
// accumulators (4 x 8 f32 for bf16) and the row's inputs fit in 114
// registers without spills. In session 46 (H100, a kernel variant with an
// unchecked copy of the row) 2 outputs (70 registers) were slower for
// bf16 and f32, 8 (187 registers) a little faster for bf16 and slower
// for f32. kDepthwiseSharedBytes: 16 KiB a block, so that shared memory
// never limits the blocks an SM holds before registers do (eight blocks
// of 256 threads in 128 KiB of the H100's 228 KiB); a 7x7 filter over 96
// bf16 channels takes 9.4 KiB, so one chunk holds every channel of
// ConvNeXt-T's first stage and later stages split into a few chunks.
std::optional<DepthwiseConvTiling> ComputeDepthwiseConvTiling(
    int64_t channels, int64_t element_bytes, int64_t taps,
    int64_t outer_positions, int64_t output_width) {
  if (channels < 1 || element_bytes < 1 || taps < 1 || outer_positions < 1 ||
      output_width < 1) {
    return std::nullopt;
  }
  DepthwiseConvTiling t;
  t.vector = std::max<int64_t>(1, 16 / element_bytes);
  while (channels % t.vector != 0) t.vector /= 2;
  const int64_t vector_bytes = taps * t.vector * element_bytes;
  if (vector_bytes > kDepthwiseSharedBytes) return std::nullopt;
  const int64_t vectors = channels / t.vector;
  const int64_t most =
      std::min(kDepthwiseThreads, kDepthwiseSharedBytes / vector_bytes);
  t.chunks = CeilOfRatio(vectors, most);
  t.channel_vectors = CeilOfRatio(vectors, t.chunks);
  t.width = std::min(kDepthwiseWidth, output_width);
  const int64_t positions =
      outer_positions * CeilOfRatio(output_width, t.width);
  t.positions =
      std::clamp<int64_t>(kDepthwiseThreads / t.channel_vectors, 1, positions);
  t.blocks = CeilOfRatio(positions, t.positions);
  return t;
}

}  // namespace hloc

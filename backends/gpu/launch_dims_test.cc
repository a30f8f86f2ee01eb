// Launch dimensions and the index-width decision (launch_dims.h).
#include "backends/gpu/launch_dims.h"

#include <map>
#include <set>

#include "gtest/gtest.h"

namespace hloc {
namespace {

GpuDeviceInfo H100() { return *GetGpuDeviceInfo("sm_90"); }

TEST(LaunchDimsTest, KnownArchitectures) {
  EXPECT_EQ(H100().core_count, 132);
  EXPECT_EQ(GetGpuDeviceInfo("sm_80")->core_count, 108);
  absl::StatusOr<GpuDeviceInfo> bad = GetGpuDeviceInfo("sm_12");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("sm_80, sm_90"), std::string::npos);
}

TEST(LaunchDimsTest, AmdArchitecturesArePlatformRocm) {
  EXPECT_EQ(KnownGpuArchs("rocm"),
            (std::vector<std::string>{"gfx90a", "gfx942", "gfx1100"}));
  EXPECT_EQ(KnownGpuArchs("cuda"),
            (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_EQ(GetGpuDeviceInfo("rocm", "gfx942")->warp_size, 64);
  EXPECT_EQ(GetGpuDeviceInfo("rocm", "gfx90a")->warp_size, 64);
  EXPECT_EQ(GetGpuDeviceInfo("rocm", "gfx1100")->warp_size, 32);
  EXPECT_EQ(GetGpuDeviceInfo("rocm", "gfx942")->shared_memory_per_block,
            64 * 1024);
  // An architecture of the other platform is unknown to this one.
  absl::StatusOr<GpuDeviceInfo> bad = GetGpuDeviceInfo("rocm", "sm_90");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("gfx90a, gfx942, gfx1100"),
            std::string::npos);
  EXPECT_FALSE(GetGpuDeviceInfo("cuda", "gfx942").ok());
}

TEST(LaunchDimsTest, Wave64BlocksStayWithinTheBlockLimit) {
  const GpuDeviceInfo mi300 = *GetGpuDeviceInfo("rocm", "gfx942");
  // 32 row groups of 64 lanes would be 2048 threads: 16 groups instead.
  ColumnReductionLaunch col =
      ComputeColumnReductionLaunch(1, 8192, 8192, 4, 4, mi300);
  EXPECT_LE(col.threads_per_block, mi300.max_threads_per_block);
  EXPECT_EQ(col.threads_per_block % 64, 0);
  EXPECT_EQ(col.row_groups, 16);
  // Short-row reductions: 8 wavefronts of 64, 32 lanes for a row of 25
  // runs, so two rows a wavefront.
  RowReductionLaunch row = ComputeRowReductionLaunch(4096, 100, 4, mi300);
  EXPECT_TRUE(row.short_rows);
  EXPECT_EQ(row.threads_per_block, 8 * 64);
  EXPECT_EQ(row.threads_per_row, 32);
  EXPECT_EQ(row.rows_per_block, 16);
  RowScanLaunch scan = ComputeRowScanLaunch(4096, 4096, 4, mi300);
  EXPECT_EQ(scan.threads_per_block, scan.rows_per_block * 64);
  for (int64_t n : {1, 63, 65, 1000003}) {
    EXPECT_EQ(ComputeLoopLaunch(n, 4, mi300).threads_per_block % 64, 0) << n;
  }
}

// Few long rows are cut into segments of whole groups of chunks (the last
// takes the rest); many rows, or short ones, keep a warp per row.
TEST(LaunchDimsTest, FewLongRowScansAreSegmented) {
  const RowScanLaunch one = ComputeRowScanLaunch(1, 60000, 8, H100());
  const int64_t group = 32 * one.elements_per_lane * one.chunks_in_flight;
  EXPECT_GT(one.segments, 1);
  EXPECT_EQ(one.segment_length % group, 0);
  EXPECT_GE(one.segments * one.segment_length, 60000);
  EXPECT_LT((one.segments - 1) * one.segment_length, 60000);
  // A warp per segment, the last block maybe part-filled.
  EXPECT_GE(one.dims.NumBlocks() * one.threads_per_block, one.segments * 32);
  EXPECT_LT(one.dims.NumBlocks() * one.threads_per_block,
            one.segments * 32 + one.threads_per_block);
  EXPECT_EQ(ComputeRowScanLaunch(4096, 4096, 4, H100()).segments, 1);
  EXPECT_EQ(ComputeRowScanLaunch(1, 4000, 4, H100()).segments, 1);
  const RowScanLaunch eight = ComputeRowScanLaunch(8, 1000000, 4, H100());
  EXPECT_GE(eight.segments * 8, 1000);
}

// Scatters of many updates onto a small output combine per block in a
// shared-memory copy (a count-min sketch's 240000 increments of 256
// counters: each block takes at least 8 updates per counter, so that its
// flush's atomics stay an eighth of its updates); not where updates are
// few per element, too few overall, or the output does not fit 48 KB.
TEST(LaunchDimsTest, ContendedScattersCombineInAPrivateCopy) {
  const PrivateScatterLaunch sketch =
      ComputePrivateScatterLaunch(240000, 256, 4, H100());
  EXPECT_TRUE(sketch.private_copy);
  EXPECT_EQ(sketch.threads_per_block, 256);
  EXPECT_EQ(sketch.dims.NumBlocks(), 240000 / (8 * 256));
  // 16M ids into 1024 bins: four blocks per SM, the most it takes.
  const PrivateScatterLaunch bins =
      ComputePrivateScatterLaunch(1 << 24, 1024, 4, H100());
  EXPECT_TRUE(bins.private_copy);
  EXPECT_EQ(bins.dims.NumBlocks(), 4 * H100().core_count);
  // 48 KB of f64 fits, one more element does not.
  EXPECT_TRUE(
      ComputePrivateScatterLaunch(1 << 20, 6144, 8, H100()).private_copy);
  EXPECT_FALSE(
      ComputePrivateScatterLaunch(1 << 20, 6145, 8, H100()).private_copy);
  // Fewer than 16 updates per element, or than 8192 updates.
  EXPECT_FALSE(
      ComputePrivateScatterLaunch(16000, 1024, 4, H100()).private_copy);
  EXPECT_FALSE(ComputePrivateScatterLaunch(8000, 16, 4, H100()).private_copy);
  EXPECT_FALSE(ComputePrivateScatterLaunch(1 << 20, 0, 4, H100()).private_copy);
}

TEST(LaunchDimsTest, LargeLoopsUse16ByteVectorsAndCoverEveryElement) {
  LoopLaunch f32 = ComputeLoopLaunch(8192 * 8192, 4, H100());
  EXPECT_EQ(f32.unroll, 4);
  EXPECT_EQ(f32.threads_per_block, 256);
  EXPECT_EQ(f32.dims.grid[0], 8192 * 8192 / (256 * 4));
  EXPECT_EQ(ComputeLoopLaunch(8192 * 8192, 2, H100()).unroll, 8);
  EXPECT_EQ(ComputeLoopLaunch(8192 * 8192, 8, H100()).unroll, 2);
  EXPECT_EQ(ComputeLoopLaunch(8192 * 8192, 1, H100()).unroll, 8);
  // Odd sizes: the last block is partial, nothing is left out.
  for (int64_t n : {1, 31, 33, 1023, 1025, 1000003}) {
    LoopLaunch l = ComputeLoopLaunch(n, 4, H100());
    int64_t covered = l.dims.NumBlocks() * l.threads_per_block * l.unroll;
    EXPECT_GE(covered, n) << n;
    EXPECT_LT(covered - n, l.threads_per_block * l.unroll) << n;
    EXPECT_EQ(l.threads_per_block % 32, 0) << n;
  }
}

TEST(LaunchDimsTest, NarrowLoopsTakeTwoVectorsAThreadWhileBlocksLast) {
  LoopLaunch bf16 = ComputeLoopLaunch(8192 * 8192, 2, H100());
  EXPECT_EQ(bf16.vectors, 2);
  EXPECT_EQ(bf16.dims.grid[0], 8192 * 8192 / (256 * 8 * 2));
  EXPECT_EQ(bf16.LaunchedElements(), 8192 * 8192);
  EXPECT_EQ(ComputeLoopLaunch(8192 * 8192, 1, H100()).vectors, 2);
  EXPECT_EQ(ComputeLoopLaunch(8192 * 8192, 4, H100()).vectors, 1);
  // A bf16 loop streaming in f32 (a convert's operand): one, as f32.
  EXPECT_EQ(ComputeLoopLaunch(8192 * 8192, 2, H100(), 4).vectors, 1);
  EXPECT_EQ(ComputeLoopLaunch(8192 * 8192, 2, H100(), 2).vectors, 2);
  // Under 8 blocks of two vectors per SM (132 x 8 x 4096 elements): one.
  EXPECT_EQ(ComputeLoopLaunch(132 * 8 * 4096, 2, H100()).vectors, 2);
  EXPECT_EQ(ComputeLoopLaunch(132 * 8 * 4096 - 4096, 2, H100()).vectors, 1);
  for (int64_t n : {4924963, 5003497}) {
    LoopLaunch l = ComputeLoopLaunch(n, 2, H100());
    EXPECT_EQ(l.vectors, 2) << n;
    EXPECT_GE(l.LaunchedElements(), n) << n;
    EXPECT_LT(l.LaunchedElements() - n, 256 * 8 * 2) << n;
  }
}

TEST(LaunchDimsTest, SmallLoopsSpreadOverTheSmsFirst) {
  // 132 SMs x 256 threads: 64K f32 elements give every SM a block only
  // with one element per thread.
  LoopLaunch l = ComputeLoopLaunch(65536, 4, H100());
  EXPECT_EQ(l.unroll, 1);
  EXPECT_EQ(l.dims.grid[0], 256);
  LoopLaunch tiny = ComputeLoopLaunch(5, 4, H100());
  EXPECT_EQ(tiny.dims.grid[0], 1);
  EXPECT_EQ(tiny.threads_per_block, 32);
}

TEST(LaunchDimsTest, EmptyLoopsLaunchNothing) {
  EXPECT_EQ(ComputeLoopLaunch(0, 4, H100()).dims.NumBlocks(), 0);
}

TEST(LaunchDimsTest, IndexWidth) {
  EXPECT_TRUE(Use32BitIndexing(int64_t{1} << 30, int64_t{1} << 30));
  EXPECT_FALSE(Use32BitIndexing(int64_t{1} << 31, 1));
  EXPECT_FALSE(Use32BitIndexing(1, int64_t{1} << 31));
}

TEST(LaunchDimsTest, RowReductionsLanesPerShortRowBlockPerLongRow) {
  // 64 f32: 16 runs of 4, so 16 lanes a row and two rows a warp.
  RowReductionLaunch short_rows =
      ComputeRowReductionLaunch(262144, 64, 4, H100());
  EXPECT_TRUE(short_rows.short_rows);
  EXPECT_EQ(short_rows.threads_per_row, 16);
  EXPECT_EQ(short_rows.threads_per_block, 256);
  EXPECT_EQ(short_rows.rows_per_block, 16);
  EXPECT_EQ(short_rows.dims.grid[0], 262144 / 16);
  EXPECT_EQ(short_rows.vector, 4);
  // A whole warp for rows of more runs than lanes (512 f32: 128 runs).
  EXPECT_EQ(ComputeRowReductionLaunch(1000, 512, 4, H100()).threads_per_row,
            32);
  // A row of one run is one lane's; 3 rows need only one warp.
  RowReductionLaunch tiny = ComputeRowReductionLaunch(3, 8, 2, H100());
  EXPECT_EQ(tiny.threads_per_row, 1);
  EXPECT_EQ(tiny.threads_per_block, 32);
  EXPECT_EQ(tiny.rows_per_block, 32);
  EXPECT_EQ(tiny.dims.grid[0], 1);
  RowReductionLaunch long_rows =
      ComputeRowReductionLaunch(64, 1 << 20, 4, H100());
  EXPECT_FALSE(long_rows.short_rows);
  EXPECT_EQ(long_rows.dims.grid[0], 64);
  EXPECT_EQ(long_rows.rows_per_block, 1);
  // Fewer rows than SMs: the biggest blocks.
  EXPECT_EQ(long_rows.threads_per_block, 1024);
  // An odd row length gets no vector runs.
  EXPECT_EQ(ComputeRowReductionLaunch(3, 100003, 4, H100()).vector, 1);
}

TEST(LaunchDimsTest, RowFusionGroupsByRowLength) {
  // softmax over 8192 f32: 512 threads per row, 4 runs of 4 each.
  RowFusionLaunch wide = ComputeRowFusionLaunch(8192, 8192, 4, H100());
  EXPECT_EQ(wide.threads_per_row, 512);
  EXPECT_EQ(wide.vector, 4);
  EXPECT_EQ(wide.vectors_per_thread, 4);
  EXPECT_EQ(wide.threads_per_block, 512);
  EXPECT_EQ(wide.dims.grid[0], 8192);
  // Rows of 64 f32: 16 threads per row, one run each, so a warp reads two
  // whole rows; 16 rows per block.
  RowFusionLaunch narrow = ComputeRowFusionLaunch(262144, 64, 4, H100());
  EXPECT_EQ(narrow.threads_per_row, 16);
  EXPECT_EQ(narrow.vectors_per_thread, 1);
  EXPECT_EQ(narrow.rows_per_block, 16);
  // bf16 rows of 8192: 32 elements (4 runs of 8) per thread.
  // f64 rows of 4096: 4 runs of 2 per thread, 512 threads.
  RowFusionLaunch f64 = ComputeRowFusionLaunch(64, 4096, 8, H100());
  EXPECT_EQ(f64.vector, 2);
  EXPECT_EQ(f64.vectors_per_thread, 4);
  EXPECT_EQ(f64.threads_per_row, 512);
  // The longest f32 row (16384): a block of 1024, still 4 runs each.
  EXPECT_EQ(ComputeRowFusionLaunch(8, 16384, 4, H100()).vectors_per_thread, 4);
  RowFusionLaunch bf16 = ComputeRowFusionLaunch(8192, 8192, 2, H100());
  EXPECT_EQ(bf16.threads_per_row, 256);
  EXPECT_EQ(bf16.vectors_per_thread, 4);
  // One row of one element still gets a whole warp.
  RowFusionLaunch one = ComputeRowFusionLaunch(1, 1, 4, H100());
  EXPECT_EQ(one.vector, 1);
  EXPECT_EQ(one.threads_per_block, 32);
  EXPECT_EQ(ComputeRowFusionLaunch(0, 16, 4, H100()).dims.grid[0], 0);
}

TEST(LaunchDimsTest, ColumnReductionsKeepEverySmBusy) {
  // 8192 columns of f32: 16-byte runs would leave 64 blocks for 132 SMs.
  ColumnReductionLaunch col =
      ComputeColumnReductionLaunch(1, 8192, 8192, 4, 4, H100());
  EXPECT_EQ(col.vector, 1);
  EXPECT_EQ(col.dims.grid[0], 256);
  EXPECT_EQ(col.row_groups, 32);
  EXPECT_EQ(col.row_unroll, 8);
  // Few rows: as many row groups as rows (rounded up to a power of 2).
  EXPECT_EQ(ComputeColumnReductionLaunch(1, 3, 64, 4, 4, H100()).row_groups, 4);
}

// Column scans split along their length while a thread per column would
// run under a quarter of the device's resident threads (132 x 2048 / 4 =
// 67584 on an H100) and the column has at least 4 runs of 32 bytes.
TEST(LaunchDimsTest, ColumnScansSplitFewLongColumns) {
  // cumulative_scans' 5000 x 33 cumsum down axis 0: two tiles of 32
  // columns (the second with one), 32 threads along each, runs of 8 f32.
  ColumnScanLaunch few = ComputeColumnScanLaunch(1, 5000, 33, 4, H100());
  EXPECT_TRUE(few.split);
  EXPECT_EQ(few.tile_columns, 32);
  EXPECT_EQ(few.segments, 32);
  EXPECT_EQ(few.run, 8);
  EXPECT_EQ(few.ChunkLength(), 256);
  EXPECT_EQ(few.column_tiles, 2);
  EXPECT_EQ(few.threads_per_block, 1024);
  EXPECT_EQ(few.dims.grid[0], 2);
  // Outer indices multiply the blocks; a short column takes as many
  // segments as it has runs, rounded up to a power of two (100 / 8 -> 16).
  ColumnScanLaunch mid = ComputeColumnScanLaunch(3, 100, 20, 4, H100());
  EXPECT_TRUE(mid.split);
  EXPECT_EQ(mid.tile_columns, 32);
  EXPECT_EQ(mid.segments, 16);
  EXPECT_EQ(mid.dims.grid[0], 3);
  // Narrow tiles take more segments to make whole warps; bf16 runs are 8.
  ColumnScanLaunch narrow = ComputeColumnScanLaunch(1, 4096, 3, 2, H100());
  EXPECT_EQ(narrow.tile_columns, 4);
  EXPECT_EQ(narrow.segments, 32);
  EXPECT_EQ(narrow.run, 8);
  EXPECT_EQ(narrow.threads_per_block, 128);
  EXPECT_EQ(ComputeColumnScanLaunch(1, 4096, 3, 8, H100()).run, 4);
  // 4096 x 4096 splits; 4096 x 131072 keeps the walk (enough threads), as
  // do columns of fewer than 4 runs.
  EXPECT_TRUE(ComputeColumnScanLaunch(1, 4096, 4096, 4, H100()).split);
  EXPECT_EQ(ComputeColumnScanLaunch(1, 4096, 4096, 4, H100()).dims.grid[0],
            128);
  EXPECT_FALSE(ComputeColumnScanLaunch(1, 4096, 131072, 4, H100()).split);
  EXPECT_FALSE(ComputeColumnScanLaunch(64, 64, 2048, 4, H100()).split);
  EXPECT_FALSE(ComputeColumnScanLaunch(1, 24, 5, 4, H100()).split);
  EXPECT_TRUE(ComputeColumnScanLaunch(1, 25, 5, 4, H100()).split);
  // Wavefronts of 64: 64-column tiles, at most 1024 threads, and a
  // single column still makes a whole wavefront.
  const GpuDeviceInfo mi300 = *GetGpuDeviceInfo("rocm", "gfx942");
  ColumnScanLaunch wide = ComputeColumnScanLaunch(1, 5000, 300, 4, mi300);
  EXPECT_EQ(wide.tile_columns, 64);
  EXPECT_EQ(wide.segments, 16);
  EXPECT_EQ(wide.threads_per_block, 1024);
  ColumnScanLaunch one = ComputeColumnScanLaunch(1, 5000, 1, 4, mi300);
  EXPECT_EQ(one.tile_columns, 1);
  EXPECT_EQ(one.threads_per_block, 64);
}

// Sorted scatters: a thread per window position and chunk of 16 scatter
// positions, window positions minor.
TEST(LaunchDimsTest, SortedScattersWalkChunksOf16) {
  // big_segments_argmax's 60000 values: 3750 chunks, 15 blocks of 256.
  SortedScatterLaunch scalar = ComputeSortedScatterLaunch(60000, 1, H100());
  EXPECT_EQ(scalar.run, 16);
  EXPECT_EQ(scalar.chunks, 3750);
  EXPECT_EQ(scalar.loop.elements, 3750);
  EXPECT_EQ(scalar.loop.unroll, 1);
  EXPECT_EQ(scalar.loop.threads_per_block, 256);
  EXPECT_EQ(scalar.loop.dims.grid[0], 15);
  // Rows of 512: a thread per column of each chunk of 16 rows; a partial
  // last chunk.
  SortedScatterLaunch rows = ComputeSortedScatterLaunch(1000, 512, H100());
  EXPECT_EQ(rows.chunks, 63);
  EXPECT_EQ(rows.loop.elements, 63 * 512);
  // Fewer positions than a chunk: one chunk of them; none: nothing.
  EXPECT_EQ(ComputeSortedScatterLaunch(5, 3, H100()).run, 5);
  EXPECT_EQ(ComputeSortedScatterLaunch(5, 3, H100()).loop.threads_per_block,
            32);
  EXPECT_EQ(ComputeSortedScatterLaunch(0, 3, H100()).loop.dims.grid[0], 0);
}

// Narrow columns pack rows into a warp: 5 columns take 4 rows (20 of 32
// lanes; 8 rows, 40 of 64 lanes, on a wavefront of 64), 16 columns 2 rows,
// 17 columns one; a tile is then warp / rows_per_warp columns.
TEST(LaunchDimsTest, NarrowColumnReductionsPackRowsIntoAWarp) {
  ColumnReductionLaunch five =
      ComputeColumnReductionLaunch(64, 1000, 5, 4, 4, H100());
  EXPECT_EQ(five.vector, 1);
  EXPECT_EQ(five.rows_per_warp, 4);
  EXPECT_EQ(five.TileColumns(32), 8);
  EXPECT_EQ(five.column_tiles, 1);
  EXPECT_EQ(five.dims.grid[0], 64);
  EXPECT_EQ(
      ComputeColumnReductionLaunch(1, 1000, 16, 4, 4, H100()).rows_per_warp, 2);
  EXPECT_EQ(
      ComputeColumnReductionLaunch(1, 1000, 17, 4, 4, H100()).rows_per_warp, 1);
  absl::StatusOr<GpuDeviceInfo> mi300 = GetGpuDeviceInfo("rocm", "gfx942");
  ASSERT_TRUE(mi300.ok());
  EXPECT_EQ(
      ComputeColumnReductionLaunch(64, 1000, 5, 4, 4, *mi300).rows_per_warp, 8);
  // Wide columns keep one row per warp.
  EXPECT_EQ(
      ComputeColumnReductionLaunch(1, 8192, 8192, 4, 4, H100()).rows_per_warp,
      1);
}

TEST(LaunchDimsTest, DepthwiseTilingVectorsChunksAndTiles) {
  // ConvNeXt's 7x7 over 96 bf16 channels (32x56x56): 12 vectors of 8
  // channels in one chunk (9.4 KiB of taps), 21 of those groups a block,
  // each over 4 outputs along W.
  std::optional<DepthwiseConvTiling> t =
      ComputeDepthwiseConvTiling(96, 2, 49, 32 * 56, 56);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->vector, 8);
  EXPECT_EQ(t->channel_vectors, 12);
  EXPECT_EQ(t->chunks, 1);
  EXPECT_EQ(t->width, 4);
  EXPECT_EQ(t->positions, 21);
  EXPECT_EQ(t->ThreadsPerBlock(), 252);
  EXPECT_EQ(t->blocks, (32 * 56 * 14 + 20) / 21);
  // 512 channels: 64 vectors, of which 20 fit 16 KiB: 4 chunks of 16.
  t = ComputeDepthwiseConvTiling(512, 2, 49, 8, 7);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->chunks, 4);
  EXPECT_EQ(t->channel_vectors, 16);
  // Six f16 channels: vectors of 2; a width of 3 is one tile of 3; no
  // more groups than positions.
  t = ComputeDepthwiseConvTiling(6, 2, 9, 2, 3);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->vector, 2);
  EXPECT_EQ(t->width, 3);
  EXPECT_EQ(t->positions, 2);
  EXPECT_EQ(t->blocks, 1);
  // f32 vectors of 4; one vector's taps past 16 KiB: no tiling.
  EXPECT_EQ(ComputeDepthwiseConvTiling(64, 4, 9, 10, 10)->vector, 4);
  EXPECT_FALSE(ComputeDepthwiseConvTiling(64, 4, 1025, 10, 10).has_value());
}

}  // namespace
// The transpose's column walk: lane l reads element `column` of tile rows
// l * run + v. Distinct 4-byte words a warp reads must lie in distinct
// banks (of 32), for every element size and tile the tilings take.
TEST(LaunchDimsTest, TransposeColumnReadsAreConflictFree) {
  const int64_t large = 16384;  // 16384 x 16384 elements
  for (int64_t bytes : {1, 2, 4}) {
    for (int64_t side : {int64_t{1024}, large}) {
      const TransposeTiling t =
          ComputeTransposeTiling(bytes, bytes, side, side, 1, H100());
      EXPECT_GT(t.stride, t.tile) << bytes;
      for (int64_t v = 0; v < t.run; ++v) {
        for (int64_t column :
             {int64_t{0}, int64_t{1}, int64_t{7}, t.tile - 1}) {
          std::map<int64_t, std::set<int64_t>> words_in_bank;
          for (int64_t lane = 0; lane < kTransposeLanes; ++lane) {
            const int64_t word =
                ((lane * t.run + v) * t.stride + column) * bytes / 4;
            words_in_bank[word % 32].insert(word);
          }
          for (const auto& [bank, words] : words_in_bank) {
            EXPECT_EQ(words.size(), 1u)
                << bytes << "-byte elements, tile " << t.tile
                << ", run element " << v << ", column " << column << ": bank "
                << bank;
          }
        }
      }
    }
  }
}

// Large transposes take the larger tiles (more loads in flight per
// thread); small ones the smaller, so that every SM of the H100 still gets
// 8 blocks.
TEST(LaunchDimsTest, TransposeTilesGrowOnlyWithEnoughBlocks) {
  const int64_t big = 8192;
  TransposeTiling f32 = ComputeTransposeTiling(4, 4, big, big, 1, H100());
  EXPECT_EQ(f32.tile, 64);
  EXPECT_EQ(f32.run, 1);
  EXPECT_EQ(f32.stride, 65);
  EXPECT_EQ(f32.rows, 16);
  TransposeTiling bf16 = ComputeTransposeTiling(2, 2, big, big, 1, H100());
  EXPECT_EQ(bf16.tile, 128);
  EXPECT_EQ(bf16.run, 2);
  EXPECT_EQ(bf16.stride, 129);
  EXPECT_EQ(bf16.rows, 8);
  // 1024 x 1024: 256 blocks of 64 x 64 f32 would be 2 per SM.
  EXPECT_EQ(ComputeTransposeTiling(4, 4, 1024, 1024, 1, H100()).tile, 32);
  EXPECT_EQ(ComputeTransposeTiling(2, 2, 1024, 1024, 1, H100()).tile, 64);
  EXPECT_EQ(ComputeTransposeTiling(8, 8, big, big, 1, H100()).tile, 32);
  // A bf16 tile read into f32 outputs: the widest element decides.
  EXPECT_EQ(ComputeTransposeTiling(4, 2, big, big, 1, H100()).tile, 64);
}

// The larger tile only where it pads the plane no more than the smaller:
// NCHW -> NHWC over 64 channels (a 3136 x 64 plane, H and W one tile
// dimension) takes 64-wide bf16 tiles even with blocks to spare.
TEST(LaunchDimsTest, TransposeTilesFitThePlane) {
  EXPECT_EQ(ComputeTransposeTiling(2, 2, 3136, 64, 1024, H100()).tile, 64);
  EXPECT_EQ(ComputeTransposeTiling(2, 2, 3136, 128, 1024, H100()).tile, 128);
  EXPECT_EQ(ComputeTransposeTiling(4, 4, 3136, 64, 1024, H100()).tile, 64);
  EXPECT_EQ(ComputeTransposeTiling(4, 4, 3136, 32, 1024, H100()).tile, 32);
}

}  // namespace hloc

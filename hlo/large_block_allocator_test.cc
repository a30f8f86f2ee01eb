// The large-block allocator: sizes and alignment, reuse of freed blocks of
// the same size class, the cache bound, concurrent use; and literals built
// on it (uninitialised creation, copies, zero-filling).
#include "hlo/large_block_allocator.h"

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/literal.h"

namespace hloc {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

bool Aligned(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

TEST(LargeBlockAllocatorTest, SizesAndAlignment) {
  EXPECT_EQ(LargeBlockAllocator::AllocatedBytes(1), 64u);
  EXPECT_EQ(LargeBlockAllocator::AllocatedBytes(64), 64u);
  EXPECT_EQ(LargeBlockAllocator::AllocatedBytes(65), 128u);
  EXPECT_EQ(LargeBlockAllocator::AllocatedBytes(kMiB - 1), kMiB);
  EXPECT_EQ(LargeBlockAllocator::AllocatedBytes(kMiB), 2 * kMiB);
  EXPECT_EQ(LargeBlockAllocator::AllocatedBytes(2 * kMiB), 2 * kMiB);
  EXPECT_EQ(LargeBlockAllocator::AllocatedBytes(2 * kMiB + 1), 4 * kMiB);

  LargeBlockAllocator allocator(64 * kMiB);
  EXPECT_EQ(allocator.Allocate(0), nullptr);
  for (size_t bytes : {size_t{1}, size_t{3}, size_t{100}, size_t{4096},
                       kMiB - 1, kMiB, 3 * kMiB + 5}) {
    void* p = allocator.Allocate(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_TRUE(Aligned(p, 64)) << bytes;
    if (LargeBlockAllocator::IsLarge(bytes)) {
      EXPECT_TRUE(Aligned(p, 2 * kMiB)) << bytes;
    }
    // The whole rounded size is usable.
    std::memset(p, 0xab, LargeBlockAllocator::AllocatedBytes(bytes));
    allocator.Free(p, bytes);
  }
  allocator.Free(nullptr, 0);
}

TEST(LargeBlockAllocatorTest, FreedBlocksAreReusedForTheSameSizeClass) {
  LargeBlockAllocator allocator(64 * kMiB);
  void* a = allocator.Allocate(5 * kMiB);
  ASSERT_NE(a, nullptr);
  static_cast<uint8_t*>(a)[0] = 42;
  allocator.Free(a, 5 * kMiB);
  EXPECT_EQ(allocator.stats().cached_bytes, static_cast<int64_t>(6 * kMiB));
  // Another size in the same class (5 MiB + 1 rounds to 6 MiB too).
  void* b = allocator.Allocate(5 * kMiB + 1);
  EXPECT_EQ(b, a);
  EXPECT_EQ(allocator.stats().reuses, 1);
  EXPECT_EQ(allocator.stats().maps, 1);
  EXPECT_EQ(allocator.stats().cached_bytes, 0);
  // Another class maps a new block.
  void* c = allocator.Allocate(9 * kMiB);
  EXPECT_NE(c, a);
  EXPECT_EQ(allocator.stats().maps, 2);
  allocator.Free(b, 5 * kMiB + 1);
  allocator.Free(c, 9 * kMiB);
  // The most recently freed block of a class comes back first.
  void* d = allocator.Allocate(6 * kMiB);
  void* e = allocator.Allocate(6 * kMiB);
  allocator.Free(d, 6 * kMiB);
  allocator.Free(e, 6 * kMiB);
  EXPECT_EQ(allocator.Allocate(6 * kMiB), e);
  allocator.Free(e, 6 * kMiB);
}

TEST(LargeBlockAllocatorTest, TheCacheIsBounded) {
  LargeBlockAllocator allocator(10 * kMiB);
  std::vector<void*> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(allocator.Allocate(4 * kMiB));
  for (void* p : blocks) allocator.Free(p, 4 * kMiB);
  // 10 MiB hold two 4 MiB blocks: the two oldest were unmapped.
  LargeBlockAllocator::Stats stats = allocator.stats();
  EXPECT_EQ(stats.cached_blocks, 2);
  EXPECT_EQ(stats.cached_bytes, static_cast<int64_t>(8 * kMiB));
  EXPECT_EQ(stats.unmaps, 2);
  // The newest two stay: they are handed out again, newest first.
  EXPECT_EQ(allocator.Allocate(4 * kMiB), blocks[3]);
  EXPECT_EQ(allocator.Allocate(4 * kMiB), blocks[2]);
  allocator.Free(blocks[3], 4 * kMiB);
  allocator.Free(blocks[2], 4 * kMiB);
  // A block larger than the whole bound is never cached.
  void* huge = allocator.Allocate(12 * kMiB);
  ASSERT_NE(huge, nullptr);
  allocator.Free(huge, 12 * kMiB);
  EXPECT_LE(allocator.stats().cached_bytes, static_cast<int64_t>(10 * kMiB));
  EXPECT_EQ(allocator.stats().cached_blocks, 2);
  allocator.ReleaseCache();
  EXPECT_EQ(allocator.stats().cached_bytes, 0);
  EXPECT_EQ(allocator.stats().cached_blocks, 0);
}

TEST(LargeBlockAllocatorTest, ManyThreadsAllocateAndFree) {
  LargeBlockAllocator allocator(16 * kMiB);
  constexpr int kThreads = 8;
  constexpr int kRounds = 200;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&allocator, &failures, t] {
      for (int r = 0; r < kRounds; ++r) {
        const size_t bytes = (r % 3 == 0) ? 100 + t : (1 + (r + t) % 4) * kMiB;
        auto* p = static_cast<uint8_t*>(allocator.Allocate(bytes));
        if (p == nullptr) {
          ++failures[t];
          continue;
        }
        // Each thread owns its block: its marks must survive.
        const uint8_t mark = static_cast<uint8_t>(t * 31 + r);
        p[0] = mark;
        p[bytes - 1] = mark;
        std::this_thread::yield();
        if (p[0] != mark || p[bytes - 1] != mark) ++failures[t];
        allocator.Free(p, bytes);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << t;
  const LargeBlockAllocator::Stats stats = allocator.stats();
  EXPECT_LE(stats.cached_bytes, static_cast<int64_t>(16 * kMiB));
  EXPECT_GT(stats.reuses, 0);
  // Every mapped block is either cached or was unmapped.
  EXPECT_EQ(stats.maps, stats.unmaps + stats.cached_blocks);
}

TEST(ByteBlockTest, CopyMoveAndCompare) {
  ByteBlock empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty, ByteBlock::Zeroed(0));
  ByteBlock a = ByteBlock::Zeroed(3 * kMiB);
  ASSERT_EQ(a.size(), 3 * kMiB);
  EXPECT_TRUE(Aligned(a.data(), 64));
  for (size_t i = 0; i < a.size(); i += 4096) ASSERT_EQ(a.data()[i], 0);
  a.data()[7] = 9;
  ByteBlock b = a;
  EXPECT_NE(b.data(), a.data());
  EXPECT_EQ(a, b);
  b.data()[a.size() - 1] = 1;
  EXPECT_NE(a, b);
  const uint8_t* a_data = a.data();
  ByteBlock c = std::move(a);
  EXPECT_EQ(c.data(), a_data);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
  c = b;
  EXPECT_EQ(c, b);
  c = ByteBlock::Uninitialized(5);
  EXPECT_EQ(c.size(), 5u);
  EXPECT_NE(c, b);
}

TEST(LiteralStorageTest, UninitializedLiteralsHaveTheirShapeAndSize) {
  const Shape tuple = Shape::Tuple(
      {Shape::Array(F32, {1024, 1024}), Shape::Array(S8, {3}),
       Shape::Scalar(F64)});
  Literal lit = Literal::CreateUninitialized(tuple);
  ASSERT_EQ(lit.tuple_elements().size(), 3u);
  EXPECT_EQ(lit.tuple_elements()[0].size_bytes(), 4 * 1024 * 1024);
  EXPECT_EQ(lit.tuple_elements()[1].size_bytes(), 3);
  EXPECT_EQ(lit.tuple_elements()[2].size_bytes(), 8);
  for (const Literal& e : lit.tuple_elements()) {
    EXPECT_TRUE(Aligned(e.untyped_data(), 64));
  }
  EXPECT_TRUE(lit.shape().Compatible(tuple));
}

TEST(LiteralStorageTest, ZeroFilledEvenOnARecycledBlock) {
  const Shape shape = Shape::Array(F32, {1024, 1024});
  {
    Literal dirty = Literal::CreateUninitialized(shape);
    std::memset(dirty.untyped_data(), 0xff, dirty.size_bytes());
  }
  Literal zero(shape);
  for (float v : zero.data<float>()) ASSERT_EQ(v, 0.0f);
}

TEST(LiteralStorageTest, CopiesAreDeepAndEqual) {
  const Shape shape = Shape::Array(S32, {512, 1024});
  Literal a = Literal::CreateUninitialized(shape);
  for (int64_t i = 0; i < a.element_count(); ++i) {
    a.data<int32_t>()[i] = static_cast<int32_t>(i * 7);
  }
  Literal b = a;
  EXPECT_NE(b.untyped_data(), a.untyped_data());
  EXPECT_EQ(a, b);
  b.data<int32_t>()[12345] = -1;
  EXPECT_NE(a, b);
  Literal c = std::move(a);
  EXPECT_EQ(c.data<int32_t>()[3], 21);
}

}  // namespace
}  // namespace hloc

// Memory for literals and run buffers, 64-byte aligned, with large blocks
// recycled instead of returned to the kernel.
//
// Why: a fresh multi-megabyte block from malloc is a fresh mmap, and its
// first touch costs one page fault per 4 KiB page plus the kernel's zeroing
// (~16k faults for 64 MiB: several times the cost of the loop that fills
// it). A program that runs the same executable repeatedly frees a result
// block of the same size each iteration; keeping that block mapped and
// handing it out again means the next run writes into warm pages. This is
// what tcmalloc's and jemalloc's page heaps and XLA's BFC allocator do.
//
// Large blocks (>= kLargeBlockBytes) are mmapped, aligned to 2 MiB and
// rounded up to a multiple of 2 MiB (the size class), and advised
// MADV_HUGEPAGE so transparent huge pages can back them (fewer faults and
// TLB misses). Freed blocks go to a cache, newest last; a request takes the
// most recently freed block of its size class (warmest in cache).
//
// The bound: the cache holds at most `cache_limit_bytes` (1 GiB for the
// process-wide allocator). A free that would exceed it unmaps the oldest
// cached blocks first; a block larger than the whole limit is unmapped at
// once. So memory the program no longer uses stays mapped only up to that
// bound: enough to cover a few generations of a large model's results and
// run buffers, small next to the machines these runs use, and it puts a
// hard ceiling on what the cache can hide from the OS. ReleaseCache()
// returns it all.
//
// Small blocks use aligned operator new/delete (malloc's own caches serve
// them well). Every block, small or large, is 64-byte aligned and its size
// is rounded up to a multiple of 64 bytes, so a kernel's vector store that
// ends on the last 64-byte boundary stays inside the block.
//
// Thread-safe: one mutex guards the cache; mmap/munmap run outside it.
#ifndef HLO_LARGE_BLOCK_ALLOCATOR_H_
#define HLO_LARGE_BLOCK_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace hloc {

class LargeBlockAllocator {
 public:
  static constexpr size_t kAlignment = 64;
  static constexpr size_t kLargeBlockBytes = size_t{1} << 20;  // 1 MiB
  static constexpr size_t kSizeClassBytes = size_t{2} << 20;   // 2 MiB
  static constexpr size_t kDefaultCacheLimitBytes = size_t{1} << 30;

  explicit LargeBlockAllocator(
      size_t cache_limit_bytes = kDefaultCacheLimitBytes);
  // Unmaps the cached blocks (blocks still handed out must be freed first).
  ~LargeBlockAllocator();
  LargeBlockAllocator(const LargeBlockAllocator&) = delete;
  LargeBlockAllocator& operator=(const LargeBlockAllocator&) = delete;

  // The process-wide allocator (never destroyed, so blocks freed during
  // static destruction still find it).
  static LargeBlockAllocator& Global();

  // A block of at least `bytes`, 64-byte aligned (2 MiB aligned if large);
  // its contents are unspecified. nullptr if the system has no memory, or
  // for 0 bytes.
  void* Allocate(size_t bytes);
  // Frees a block from Allocate; `bytes` must be the size asked for.
  void Free(void* block, size_t bytes);

  // The size a request really gets: a multiple of 2 MiB when large, of 64
  // bytes otherwise.
  static size_t AllocatedBytes(size_t bytes);
  static bool IsLarge(size_t bytes) { return bytes >= kLargeBlockBytes; }

  struct Stats {
    int64_t maps = 0;        // large blocks mmapped
    int64_t unmaps = 0;      // large blocks munmapped (evicted or released)
    int64_t reuses = 0;      // large requests served from the cache
    int64_t cached_blocks = 0;
    int64_t cached_bytes = 0;
  };
  Stats stats() const;
  size_t cache_limit_bytes() const { return cache_limit_bytes_; }
  // Unmaps every cached block.
  void ReleaseCache();

 private:
  struct CachedBlock {
    void* address;
    size_t bytes;  // the size class
  };
  void* MapBlock(size_t bytes);
  static void UnmapBlocks(const std::vector<CachedBlock>& blocks);

  const size_t cache_limit_bytes_;
  mutable std::mutex mutex_;
  // Oldest first. At most cache_limit / 2 MiB entries, so a linear scan is
  // cheap next to the 2 MiB of memory each one stands for.
  std::vector<CachedBlock> cache_;
  size_t cached_bytes_ = 0;
  Stats stats_;
};

// 64-byte-aligned memory for any size, large blocks through Global().
// AllocateBytes(0) returns nullptr; FreeBytes(nullptr, 0) does nothing.
void* AllocateBytes(size_t bytes);
void FreeBytes(void* block, size_t bytes);

// An owned block of bytes from AllocateBytes: the storage of a literal.
// Copies are deep (one memcpy); moves steal. A std::vector with a custom
// allocator would do the same job, but libstdc++ then copies and fills
// through allocator::construct one byte at a time, which GCC does not turn
// back into memcpy: 64 MiB copies got several times slower.
class ByteBlock {
 public:
  ByteBlock() = default;
  // `size` bytes, not written. Throws std::bad_alloc when out of memory,
  // as std::vector does.
  static ByteBlock Uninitialized(size_t size);
  static ByteBlock Zeroed(size_t size);
  // A view of `size` bytes the caller owns (e.g. a NumPy array handed to
  // the Python bindings), so arguments cross without a copy. The caller
  // keeps the memory alive while the view lives; it is never freed here,
  // and copies of the view are ordinary owned blocks.
  static ByteBlock Borrow(uint8_t* data, size_t size);

  ByteBlock(const ByteBlock& other);
  ByteBlock& operator=(const ByteBlock& other);
  ByteBlock(ByteBlock&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        borrowed_(std::exchange(other.borrowed_, false)) {}
  ByteBlock& operator=(ByteBlock&& other) noexcept {
    if (this != &other) {
      Release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      borrowed_ = std::exchange(other.borrowed_, false);
    }
    return *this;
  }
  ~ByteBlock() { Release(); }

  // nullptr when empty.
  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool borrowed() const { return borrowed_; }

  // Same size and bytes.
  bool operator==(const ByteBlock& other) const;
  bool operator!=(const ByteBlock& other) const { return !(*this == other); }

 private:
  void Release() {
    if (!borrowed_) FreeBytes(data_, size_);
  }

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool borrowed_ = false;
};

}  // namespace hloc

#endif  // HLO_LARGE_BLOCK_ALLOCATOR_H_

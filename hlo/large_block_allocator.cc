#include "hlo/large_block_allocator.h"

#include <sanitizer/asan_interface.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

namespace hloc {
namespace {

size_t RoundUp(size_t x, size_t multiple) {
  return (x + multiple - 1) / multiple * multiple;
}

}  // namespace

LargeBlockAllocator::LargeBlockAllocator(size_t cache_limit_bytes)
    : cache_limit_bytes_(cache_limit_bytes) {}

LargeBlockAllocator::~LargeBlockAllocator() { ReleaseCache(); }

LargeBlockAllocator& LargeBlockAllocator::Global() {
  static LargeBlockAllocator* const global = new LargeBlockAllocator();
  return *global;
}

size_t LargeBlockAllocator::AllocatedBytes(size_t bytes) {
  return IsLarge(bytes) ? RoundUp(bytes, kSizeClassBytes)
                        : RoundUp(bytes, kAlignment);
}

void* LargeBlockAllocator::Allocate(size_t bytes) {
  // Zero bytes, or so many that rounding up would overflow.
  if (bytes == 0 || bytes > SIZE_MAX / 4) return nullptr;
  const size_t size = AllocatedBytes(bytes);
  if (!IsLarge(bytes)) {
    return ::operator new(size, std::align_val_t(kAlignment), std::nothrow);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // The most recently freed block of the class: its pages are the most
    // likely still in cache.
    for (size_t i = cache_.size(); i-- > 0;) {
      if (cache_[i].bytes != size) continue;
      void* address = cache_[i].address;
      cache_.erase(cache_.begin() + i);
      cached_bytes_ -= size;
      ++stats_.reuses;
      ASAN_UNPOISON_MEMORY_REGION(address, size);
      return address;
    }
  }
  return MapBlock(size);
}

void* LargeBlockAllocator::MapBlock(size_t size) {
  // Over-map by one size class and trim, so the block starts on a 2 MiB
  // boundary and every 2 MiB of it can be one huge page.
  const size_t mapped = size + kSizeClassBytes;
  void* raw = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = RoundUp(start, kSizeClassBytes);
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t end = start + mapped;
  if (end > aligned + size) {
    munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
  }
  void* block = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  // Advice only: without transparent huge pages the block still works.
  madvise(block, size, MADV_HUGEPAGE);
#endif
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.maps;
  return block;
}

void LargeBlockAllocator::Free(void* block, size_t bytes) {
  if (block == nullptr) return;
  const size_t size = AllocatedBytes(bytes);
  if (!IsLarge(bytes)) {
    ::operator delete(block, std::align_val_t(kAlignment));
    return;
  }
  std::vector<CachedBlock> victims;
  if (size > cache_limit_bytes_) {
    victims.push_back({block, size});
  } else {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t evict = 0;
    size_t freed = 0;
    while (cached_bytes_ - freed + size > cache_limit_bytes_) {
      freed += cache_[evict].bytes;
      ++evict;
    }
    victims.assign(cache_.begin(), cache_.begin() + evict);
    cache_.erase(cache_.begin(), cache_.begin() + evict);
    cached_bytes_ -= freed;
    cache_.push_back({block, size});
    cached_bytes_ += size;
    // Blocks are recycled here, not by malloc, so without this ASan (the
    // macro is a no-op elsewhere) would miss a use of a freed block while
    // it is cached. Unpoisoned whole when handed out again or unmapped.
    ASAN_POISON_MEMORY_REGION(block, size);
  }
  UnmapBlocks(victims);
  if (!victims.empty()) {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.unmaps += static_cast<int64_t>(victims.size());
  }
}

void LargeBlockAllocator::ReleaseCache() {
  std::vector<CachedBlock> victims;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    victims.swap(cache_);
    cached_bytes_ = 0;
    stats_.unmaps += static_cast<int64_t>(victims.size());
  }
  UnmapBlocks(victims);
}

void LargeBlockAllocator::UnmapBlocks(const std::vector<CachedBlock>& blocks) {
  for (const CachedBlock& b : blocks) {
    // The address range may be mapped again by anyone: no stale poison.
    ASAN_UNPOISON_MEMORY_REGION(b.address, b.bytes);
    munmap(b.address, b.bytes);
  }
}

LargeBlockAllocator::Stats LargeBlockAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats s = stats_;
  s.cached_blocks = static_cast<int64_t>(cache_.size());
  s.cached_bytes = static_cast<int64_t>(cached_bytes_);
  return s;
}

void* AllocateBytes(size_t bytes) {
  return LargeBlockAllocator::Global().Allocate(bytes);
}

void FreeBytes(void* block, size_t bytes) {
  LargeBlockAllocator::Global().Free(block, bytes);
}

ByteBlock ByteBlock::Uninitialized(size_t size) {
  ByteBlock block;
  if (size == 0) return block;
  block.data_ = static_cast<uint8_t*>(AllocateBytes(size));
  if (block.data_ == nullptr) throw std::bad_alloc();
  block.size_ = size;
  return block;
}

ByteBlock ByteBlock::Zeroed(size_t size) {
  ByteBlock block = Uninitialized(size);
  if (size > 0) std::memset(block.data_, 0, size);
  return block;
}

ByteBlock ByteBlock::Borrow(uint8_t* data, size_t size) {
  ByteBlock block;
  if (size == 0) return block;
  block.data_ = data;
  block.size_ = size;
  block.borrowed_ = true;
  return block;
}

ByteBlock::ByteBlock(const ByteBlock& other)
    : ByteBlock(Uninitialized(other.size_)) {
  if (size_ > 0) std::memcpy(data_, other.data_, size_);
}

ByteBlock& ByteBlock::operator=(const ByteBlock& other) {
  if (this != &other) *this = ByteBlock(other);
  return *this;
}

bool ByteBlock::operator==(const ByteBlock& other) const {
  return size_ == other.size_ &&
         (size_ == 0 || std::memcmp(data_, other.data_, size_) == 0);
}

}  // namespace hloc

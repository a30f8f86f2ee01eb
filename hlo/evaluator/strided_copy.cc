#include "hlo/evaluator/strided_copy.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "hlo/evaluator/parallel.h"

namespace hloc {
namespace eval {
namespace {

template <int kSize>
struct Elem {
  unsigned char b[kSize];
};

// dst[j * ds] = src[j * ss] for j in [0, n); offsets already applied.
template <int kSize>
void CopyRow(const unsigned char* src, int64_t ss, unsigned char* dst,
             int64_t ds, int64_t n) {
  using E = Elem<kSize>;
  const E* s = reinterpret_cast<const E*>(src);
  E* d = reinterpret_cast<E*>(dst);
  if (ss == 1 && ds == 1) {
    std::memcpy(d, s, n * sizeof(E));
    return;
  }
  for (int64_t j = 0; j < n; ++j) d[j * ds] = s[j * ss];
}

using CopyRowFn = void (*)(const unsigned char*, int64_t, unsigned char*,
                           int64_t, int64_t);

CopyRowFn RowFnFor(int64_t elem_size) {
  switch (elem_size) {
    case 1:
      return &CopyRow<1>;
    case 2:
      return &CopyRow<2>;
    case 4:
      return &CopyRow<4>;
    case 8:
      return &CopyRow<8>;
    case 16:
      return &CopyRow<16>;
    default:
      return nullptr;
  }
}

struct Dim {
  int64_t size;
  int64_t src;
  int64_t dst;
};

}  // namespace

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= dims[d];
  }
  return strides;
}

void FillElements(void* dst, int64_t n, const void* value, int64_t elem_size) {
  unsigned char* d = static_cast<unsigned char*>(dst);
  if (n <= 0) return;
  std::memcpy(d, value, elem_size);
  int64_t filled = 1;
  while (filled < n) {
    int64_t chunk = filled < n - filled ? filled : n - filled;
    std::memcpy(d + filled * elem_size, d, chunk * elem_size);
    filled += chunk;
  }
}

void CopyStrided(absl::Span<const int64_t> dims, const void* src,
                 int64_t src_offset, absl::Span<const int64_t> src_strides,
                 void* dst, int64_t dst_offset,
                 absl::Span<const int64_t> dst_strides, int64_t elem_size) {
  absl::InlinedVector<Dim, 8> box;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 0) return;
    if (dims[d] == 1) continue;
    box.push_back({dims[d], src_strides[d], dst_strides[d]});
  }
  // Merge a dimension into the next one when both sides step through it as
  // one longer run.
  absl::InlinedVector<Dim, 8> merged;
  for (const Dim& d : box) {
    if (!merged.empty()) {
      Dim& prev = merged.back();
      if (prev.src == d.src * d.size && prev.dst == d.dst * d.size) {
        prev = {prev.size * d.size, d.src, d.dst};
        continue;
      }
    }
    merged.push_back(d);
  }
  const unsigned char* s =
      static_cast<const unsigned char*>(src) + src_offset * elem_size;
  unsigned char* t = static_cast<unsigned char*>(dst) + dst_offset * elem_size;
  if (merged.empty()) {
    std::memcpy(t, s, elem_size);
    return;
  }
  CopyRowFn row = RowFnFor(elem_size);
  // A transpose reads the innermost destination run with a large source
  // stride; walk it in tiles together with the dimension the source is
  // contiguous in, so both sides stay in cache.
  const int64_t rank = static_cast<int64_t>(merged.size());
  int64_t tile_dim = -1;
  if (rank >= 2 && std::llabs(merged[rank - 1].src) > 1) {
    for (int64_t d = 0; d < rank - 1; ++d) {
      if (std::llabs(merged[d].src) == 1 && merged[d].size >= 8 &&
          merged[rank - 1].size >= 8) {
        tile_dim = d;
        break;
      }
    }
  }
  if (tile_dim >= 0) std::swap(merged[tile_dim], merged[rank - 2]);

  const int64_t outer_rank = tile_dim >= 0 ? rank - 2 : rank - 1;
  const Dim inner = merged[rank - 1];
  // Copies the part of the box whose first loop dimension (the outermost
  // dimension, else the tiled middle one, else the row) lies in [lo, hi).
  auto copy_range = [&](int64_t lo, int64_t hi) {
    auto copy_inner = [&](const unsigned char* sp, unsigned char* tp,
                          int64_t mid_lo, int64_t mid_hi) {
      if (tile_dim >= 0) {
        constexpr int64_t kTile = 32;
        const Dim mid = merged[rank - 2];
        for (int64_t i0 = mid_lo; i0 < mid_hi; i0 += kTile) {
          const int64_t i1 = std::min(mid_hi, i0 + kTile);
          for (int64_t j0 = 0; j0 < inner.size; j0 += kTile) {
            const int64_t n = std::min(inner.size - j0, kTile);
            for (int64_t i = i0; i < i1; ++i) {
              const int64_t so = i * mid.src + j0 * inner.src;
              const int64_t to = i * mid.dst + j0 * inner.dst;
              if (row != nullptr) {
                row(sp + so * elem_size, inner.src, tp + to * elem_size,
                    inner.dst, n);
              } else {
                for (int64_t j = 0; j < n; ++j) {
                  std::memcpy(tp + (to + j * inner.dst) * elem_size,
                              sp + (so + j * inner.src) * elem_size, elem_size);
                }
              }
            }
          }
        }
      } else if (row != nullptr) {
        row(sp + mid_lo * inner.src * elem_size, inner.src,
            tp + mid_lo * inner.dst * elem_size, inner.dst, mid_hi - mid_lo);
      } else {
        for (int64_t j = mid_lo; j < mid_hi; ++j) {
          std::memcpy(tp + j * inner.dst * elem_size,
                      sp + j * inner.src * elem_size, elem_size);
        }
      }
    };
    const int64_t full = tile_dim >= 0 ? merged[rank - 2].size : inner.size;
    if (outer_rank == 0) {
      copy_inner(s, t, lo, hi);
      return;
    }
    absl::InlinedVector<int64_t, 8> index(outer_rank, 0);
    index[0] = lo;
    while (true) {
      int64_t so = 0, to = 0;
      for (int64_t d = 0; d < outer_rank; ++d) {
        so += index[d] * merged[d].src;
        to += index[d] * merged[d].dst;
      }
      copy_inner(s + so * elem_size, t + to * elem_size, 0, full);
      int64_t d = outer_rank - 1;
      for (; d >= 0; --d) {
        if (++index[d] < (d == 0 ? hi : merged[d].size)) break;
        index[d] = 0;
      }
      if (d < 0) break;
    }
  };
  int64_t total = 1;
  for (const Dim& d : merged) total *= d.size;
  const int64_t split = outer_rank > 0  ? merged[0].size
                        : tile_dim >= 0 ? merged[rank - 2].size
                                        : inner.size;
  constexpr int64_t kMinPerThread = 1 << 18;
  if (total < 2 * kMinPerThread) {
    copy_range(0, split);
    return;
  }
  const int64_t per_unit = std::max<int64_t>(1, total / split);
  ParallelFor(split, std::max<int64_t>(1, kMinPerThread / per_unit),
              copy_range);
}

}  // namespace eval
}  // namespace hloc

#include "runtime/cpu_topk.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace hloc {
namespace {

// The integer of an element's bits that orders as topk does, flipped for
// smallest so that a greater rank is always better. Floats: the sign bit
// set means negative, and flipping the magnitude bits of those makes the
// signed integers run -NaN < -inf < ... < -0 < +0 < ... < +NaN.
template <typename S, bool kFloat>
inline S Rank(const uint8_t* p, bool largest) {
  S s;
  std::memcpy(&s, p, sizeof s);
  if constexpr (kFloat) {
    if (s < 0) s = static_cast<S>(s ^ std::numeric_limits<S>::max());
  }
  // ~ reverses both signed and unsigned order.
  return largest ? s : static_cast<S>(~s);
}

template <typename S>
struct Entry {
  S rank;
  int32_t index;
};

// a before b: the greater rank, then the lower index. A strict total order
// (indices are distinct), so any selection gives the evaluator's result.
template <typename S>
inline bool Before(const Entry<S>& a, const Entry<S>& b) {
  return a.rank > b.rank || (a.rank == b.rank && a.index < b.index);
}

template <typename S, bool kFloat>
void TopKRow(const uint8_t* row, int64_t length, int64_t k, bool largest,
             std::vector<Entry<S>>* scratch, uint8_t* values,
             int32_t* indices) {
  constexpr int64_t kWidth = sizeof(S);
  std::vector<Entry<S>>& best = *scratch;
  best.clear();
  if (k == 0) return;
  if (2 * k >= length) {
    // Most of the row is kept: sorting it all is as cheap as any heap.
    for (int64_t j = 0; j < length; ++j) {
      best.push_back({Rank<S, kFloat>(row + j * kWidth, largest),
                      static_cast<int32_t>(j)});
    }
    std::sort(best.begin(), best.end(), Before<S>);
  } else {
    // A heap of the k best so far, its worst on top (the greatest under
    // Before). A later element of equal rank comes after every kept one,
    // so only a strictly greater rank enters.
    for (int64_t j = 0; j < k; ++j) {
      best.push_back({Rank<S, kFloat>(row + j * kWidth, largest),
                      static_cast<int32_t>(j)});
    }
    std::make_heap(best.begin(), best.end(), Before<S>);
    for (int64_t j = k; j < length; ++j) {
      const S rank = Rank<S, kFloat>(row + j * kWidth, largest);
      if (rank <= best.front().rank) continue;
      std::pop_heap(best.begin(), best.end(), Before<S>);
      best.back() = {rank, static_cast<int32_t>(j)};
      std::push_heap(best.begin(), best.end(), Before<S>);
    }
    std::sort_heap(best.begin(), best.end(), Before<S>);
  }
  for (int64_t j = 0; j < k; ++j) {
    std::memcpy(values + j * kWidth, row + best[j].index * kWidth, kWidth);
    indices[j] = best[j].index;
  }
}

template <typename S, bool kFloat>
void TopKRows(const uint8_t* input, int64_t rows, int64_t length, int64_t k,
              bool largest, uint8_t* values, int32_t* indices) {
  constexpr int64_t kWidth = sizeof(S);
  // Threads pay off once there is a few hundred microseconds of work.
  const bool parallel = rows > 1 && rows * length >= (int64_t{1} << 16);
#pragma omp parallel if (parallel)
  {
    std::vector<Entry<S>> scratch;
    scratch.reserve(2 * k >= length ? length : k);
#pragma omp for schedule(dynamic)
    for (int64_t r = 0; r < rows; ++r) {
      TopKRow<S, kFloat>(input + r * length * kWidth, length, k, largest,
                         &scratch, values + r * k * kWidth, indices + r * k);
    }
  }
}

}  // namespace

bool CpuTopKSupportsType(PrimitiveType type) {
  if (type == PRED || IsSignedIntegralType(type) ||
      IsUnsignedIntegralType(type) || IsFloatingPointType(type)) {
    const int64_t width = ByteWidth(type);
    return width == 1 || width == 2 || width == 4 || width == 8;
  }
  return false;
}

absl::Status RunTopK(PrimitiveType type, const uint8_t* input, int64_t rows,
                     int64_t length, int64_t k, bool largest, uint8_t* values,
                     int32_t* indices) {
  if (!CpuTopKSupportsType(type)) {
    return absl::UnimplementedError(
        absl::StrCat("topk of ", PrimitiveTypeName(type)));
  }
  if (k < 0 || k > length || length > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("topk of ", k, " in rows of ", length));
  }
  const bool is_float = IsFloatingPointType(type);
  const bool is_signed = IsSignedIntegralType(type);
  switch (ByteWidth(type)) {
#define HLOC_TOPK_WIDTH(bytes, S, U)                                        \
  case bytes:                                                               \
    if (is_float) {                                                         \
      TopKRows<S, true>(input, rows, length, k, largest, values, indices);  \
    } else if (is_signed) {                                                 \
      TopKRows<S, false>(input, rows, length, k, largest, values, indices); \
    } else {                                                                \
      TopKRows<U, false>(input, rows, length, k, largest, values, indices); \
    }                                                                       \
    break;
    HLOC_TOPK_WIDTH(1, int8_t, uint8_t)
    HLOC_TOPK_WIDTH(2, int16_t, uint16_t)
    HLOC_TOPK_WIDTH(4, int32_t, uint32_t)
    HLOC_TOPK_WIDTH(8, int64_t, uint64_t)
#undef HLOC_TOPK_WIDTH
  }
  return absl::OkStatus();
}

}  // namespace hloc

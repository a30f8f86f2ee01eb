#include "passes/radix_sort_plan.h"

#include <algorithm>

#include "hlo/math_util.h"

namespace hloc {
namespace {

int64_t AlignUp(int64_t bytes) { return RoundUpTo(bytes, 256); }

}  // namespace

RadixSortPlan PlanRadixSort(int64_t rows, int64_t length, int64_t key_bits,
                            int64_t key_bytes, bool payload) {
  RadixSortPlan plan;
  plan.rows = rows;
  plan.length = length;
  plan.key_bits = key_bits;
  plan.key_bytes = key_bytes;
  plan.payload = payload;
  plan.passes = key_bits / kRadixDigitBits;
  // A row that fits one tile takes as few items a thread as hold it.
  const int64_t max_items = key_bytes > 4 ? 8 : 16;
  plan.items_per_thread = std::max<int64_t>(
      1, std::min(max_items, CeilOfRatio(length, kRadixThreads)));
  plan.tile = kRadixThreads * plan.items_per_thread;
  plan.tiles = CeilOfRatio(length, plan.tile);
  plan.counts = plan.tiles == 1 ? 0 : rows * kRadixDigits * plan.tiles;
  const int64_t n = rows * length;
  int64_t offset = 0;
  // Arrays between passes: none for one pass, one for two, none where the
  // passes keep the row in shared memory.
  for (int64_t i = 0; i < 2; ++i) {
    const bool used = plan.tiles > 1 && i < plan.passes - 1;
    plan.keys_offset[i] = offset;
    if (used) offset += AlignUp(n * key_bytes);
    plan.positions_offset[i] = offset;
    if (used && payload) offset += AlignUp(n * 4);
  }
  plan.counts_offset = offset;
  offset += AlignUp(plan.counts * 4);
  plan.totals_offset = offset;
  if (plan.tiles > 1) offset += AlignUp(rows * kRadixDigits * 4);
  plan.scratch_bytes = offset;
  return plan;
}

}  // namespace hloc

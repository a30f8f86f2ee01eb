// The radix sort custom call that radix-sort-rewriter makes of a long
// sort (radix_sort_rewriter.h), and the tiling and scratch layout its GPU
// kernels (backends/gpu/radix_sort_emitter.cc) use: both sides read this
// plan, so the scratch buffer the pass sizes is the one the kernels carve.
//
//   (T0[...], T1[...], ..., u8[S]) custom-call(keys, payload...),
//       custom_call_target="__hloc$radix_sort", to_apply=%key,
//       backend_config="{dimension = D : i64[, positions = M : i64]}"
//
// sorts every row along dimension D of its operands (all of one shape) by
// %key(keys) : T0 -> uB (B = 8, 16, 32 or 64) in ascending unsigned
// order, stably; the payload operands follow their keys. The results are
// the sorted operands and a scratch buffer of S bytes. Result i with bit
// i of M set has no operand: it is the elements' original positions along
// D (an argsort's iota), which the sort keeps anyway; the other payload
// results take the payload operands in order.
//
// The sort is a least-significant-digit radix sort, 8-bit digits: B / 8
// passes, each of three kernels. A row is cut into tiles of `tile`
// elements, a block each. (1) Each block counts its tile's digits into
// counts[row][digit][tile]. (2) A warp per row and digit turns its counts
// into exclusive prefix sums over the tiles, and the digit's total in the
// row into totals[row][digit]. (3) Each block finds where its tile's
// elements of each digit go (the row's earlier digits' totals and the
// digit's earlier tiles'), ranks its elements among those of equal digit
// (stably: warps in order, lanes in order), orders the tile by digit in
// shared memory and writes it out, runs of equal digit to consecutive
// places. Keys keep their own bits between passes (%key is evaluated
// wherever a digit is needed), with their u32 positions in the row where
// there is a payload; the last pass writes the results, payloads gathered
// from the operands at those positions. A row that fits one tile needs
// neither counts nor scan (a block's own counts are the row's) nor arrays
// between passes: one kernel sorts it, a block a row, every pass in shared
// memory.
#ifndef PASSES_RADIX_SORT_PLAN_H_
#define PASSES_RADIX_SORT_PLAN_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace hloc {

inline constexpr absl::string_view kRadixSortTarget = "__hloc$radix_sort";
inline constexpr absl::string_view kRadixSortPositionsAttribute = "positions";

// A block: 8 warps of 32 threads, a thread per digit.
inline constexpr int64_t kRadixThreads = 256;
inline constexpr int64_t kRadixDigitBits = 8;
inline constexpr int64_t kRadixDigits = int64_t{1} << kRadixDigitBits;

struct RadixSortPlan {
  int64_t rows = 0;
  int64_t length = 0;
  int64_t key_bits = 0;   // %key's result width: B
  int64_t key_bytes = 0;  // bytes of a keys operand element as stored
  bool payload = false;   // operands after the keys (positions are kept)
  // Elements a thread takes (at most 16, 8 for 64-bit keys: the tile's
  // keys and positions must fit the block's 48 KiB of shared memory beside
  // its counts; fewer where the row is shorter), elements a block takes,
  // and tiles a row.
  int64_t items_per_thread = 0;
  int64_t tile = 0;
  int64_t tiles = 0;
  int64_t passes = 0;  // key_bits / kRadixDigitBits
  // The kernels: counts, scan and scatter a pass, or one for every pass
  // where a row is one tile.
  int64_t kernels() const { return tiles == 1 ? 1 : 3 * passes; }
  int64_t counts = 0;  // rows * kRadixDigits * tiles
  // Byte offsets into the scratch buffer: two key arrays and two position
  // arrays (u32) of rows * length elements, which passes alternate
  // between (pass p writes [p % 2], reads [(p - 1) % 2]), the counts
  // and the totals (u32, rows * kRadixDigits); none where a row is one
  // tile.
  int64_t keys_offset[2] = {0, 0};
  int64_t positions_offset[2] = {0, 0};
  int64_t counts_offset = 0;
  int64_t totals_offset = 0;
  int64_t scratch_bytes = 0;
};

// The plan for `rows` rows of `length` elements.
RadixSortPlan PlanRadixSort(int64_t rows, int64_t length, int64_t key_bits,
                            int64_t key_bytes, bool payload);

}  // namespace hloc

#endif  // PASSES_RADIX_SORT_PLAN_H_

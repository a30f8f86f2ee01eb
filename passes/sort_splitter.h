// Long sort rows as a merge sort of short ones ("sort-splitter").
//
// The GPU sort kernel sorts a row in shared memory and takes rows of up to
// 8192 elements; jnp.sort of a longer axis has no kernel. This pass
// rewrites such a sort into sorts the kernel takes (rows of C = 8192 and
// short strided groups) and a reversal: a bitonic merge sort whose leaves
// are C-chunks.
//
//  1. The sort dimension is moved last and the others flattened: every
//     operand is [R, L]. An s32 iota of the original positions joins them
//     as one more operand, and every row is padded to P = C * 2^m >= L
//     (positions >= L are padding).
//  2. The comparator is wrapped into a strict total order over
//     (operands..., position):
//       before(a, b) = a.pos < L && (b.pos >= L || cmp(a, b) ||
//                                    (!cmp(b, a) && a.pos < b.pos))
//     which is the stable sort's order with the padding last. Because it
//     is total, any correct sorting network gives the same result, bit for
//     bit the stable sort's, whatever the comparator does with NaNs, signed
//     zeros or ties.
//  3. Each C-chunk is sorted (the kernel, with the wrapped comparator).
//  4. For runs r = C, 2C, ..., P/2: the second run of each pair is
//     reversed (elementwise), making the pair a bitonic sequence of 2r, and
//     half-cleaners of strides r, r/2, ..., C (swap where before(hi, lo))
//     leave every C-chunk bitonic and the chunks in order; sorting each
//     C-chunk again completes runs of 2r. Up to four successive
//     half-cleaners are one sort of the groups of up to 16 elements they
//     touch, a stride apart (a run of half-cleaners on a bitonic block
//     leaves each such group sorted, and a group's elements are the same
//     before and after). These sorts and the chunk sorts after them are of
//     bitonic rows and say so in their backend_config
//     (kBitonicRowsBackendConfig): the GPU kernel then runs only the last
//     of the bitonic sort's merges, log2(n) stages instead of log2(n) *
//     (log2(n) + 1) / 2. The arrays pass from sort to sort as bitcasts.
//  5. The padding and the positions are dropped, and the operands' shapes
//     (and layouts) restored.
//
// Every comparison is the kernel's: the comparator is never evaluated on
// arrays (as elementwise half-cleaners, their chains fused into kernels of
// tens of thousands of lines: jnp.sort of f32[1M] took 71 s to compile
// for cuda, 0.8 s now).
//
// Rows longer than `max_row_length` and at most 2^27 elements (s32
// positions, far from overflow) are rewritten; the GPU pipelines run it
// with the kernel's limit.
#ifndef PASSES_SORT_SPLITTER_H_
#define PASSES_SORT_SPLITTER_H_

#include <cstdint>

#include "absl/strings/string_view.h"

#include "passes/pass.h"

namespace hloc {

// backend_config of a sort whose every row is a bitonic sequence under a
// comparator that is a strict total order (no two elements tie): a promise
// by the pass that made it, which lets a sorting network skip to its last
// merge. The sort's result is the same with or without it.
inline constexpr absl::string_view kBitonicRowsBackendConfig =
    "hloc_bitonic_rows";

class SortSplitter : public HloPass {
 public:
  // Must equal the GPU sort kernel's shared-memory row limit,
  // kMaxSharedSortLength in backends/gpu/sort_emitter.cc: the chunks are
  // sorted by that kernel, and any longer row is what this pass removes.
  static constexpr int64_t kGpuMaxRowLength = 8192;
  // Longer rows are left alone (the kernel's error remains).
  static constexpr int64_t kMaxSplitRowLength = int64_t{1} << 27;

  // Rows longer than `max_row_length` are split, into chunks of that
  // length (C): each halving of C would add a merge level, two more sorts
  // over the whole row. Chunks of 4096, whose f32 keys and s32 positions
  // all fit the kernel's shared memory, sorted f32[1M] in 0.735 ms on the
  // H200, chunks of 8192 (positions read from global memory) in 0.626.
  // Tests use small ones to merge over many levels cheaply.
  explicit SortSplitter(int64_t max_row_length = kGpuMaxRowLength)
      : max_row_length_(max_row_length) {}
  absl::string_view name() const override { return "sort-splitter"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  int64_t max_row_length_;
};

}  // namespace hloc

#endif  // PASSES_SORT_SPLITTER_H_

// Moving array elements without looking at their type: the one primitive
// behind broadcast, transpose, slice, pad, concatenate, reverse, dynamic
// slices, gather, scatter windows and the canonicalization of dot and
// convolution operands.
#ifndef HLO_EVALUATOR_STRIDED_COPY_H_
#define HLO_EVALUATOR_STRIDED_COPY_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace hloc {
namespace eval {

// Element strides of a dense row-major array of `dims`.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);

// For every multi-index i of the box `dims`, copies the element (elem_size
// bytes) at src[src_offset + sum_d i[d] * src_strides[d]] to
// dst[dst_offset + sum_d i[d] * dst_strides[d]] (offsets and strides in
// elements; strides may be zero or negative). Source and destination must not
// overlap unless they are equal element for element.
void CopyStrided(absl::Span<const int64_t> dims, const void* src,
                 int64_t src_offset, absl::Span<const int64_t> src_strides,
                 void* dst, int64_t dst_offset,
                 absl::Span<const int64_t> dst_strides, int64_t elem_size);

// Fills n elements of elem_size bytes at dst with copies of *value.
void FillElements(void* dst, int64_t n, const void* value, int64_t elem_size);

}  // namespace eval
}  // namespace hloc

#endif  // HLO_EVALUATOR_STRIDED_COPY_H_

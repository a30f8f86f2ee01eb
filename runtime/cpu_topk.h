// The CPU's topk kernel, a host library call ("topk.largest" or
// "topk.smallest"; see runtime/cpu_library_call.h), in place of a full sort
// of every row (passes/topk_expander.h): each row keeps its k best in a
// bounded heap, so most elements cost one compare with the heap's worst.
//
// The order is topk's (hlo/evaluator/sort.cc): integers by value, floats by
// their total order (-NaN < -inf < ... < -0 < +0 < ... < inf < +NaN, NaNs by
// payload), largest or smallest first, equal values by lower index. Keys
// are the elements' bits mapped to integers that order that way, so every
// float width (f16, bf16, f8) takes the same path, and values are copied
// bit for bit.
#ifndef RUNTIME_CPU_TOPK_H_
#define RUNTIME_CPU_TOPK_H_

#include <cstdint>

#include "absl/status/status.h"
#include "hlo/primitive_type.h"

namespace hloc {

// Whether RunTopK takes `type` (pred, the integers and the real floats).
bool CpuTopKSupportsType(PrimitiveType type);

// `rows` rows of `length` elements of `type`, row-major at `input`; the k
// best of each row go, best first, to `values` (rows x k, row-major) and
// their positions in the row to `indices`. Rows run in parallel (OpenMP).
absl::Status RunTopK(PrimitiveType type, const uint8_t* input, int64_t rows,
                     int64_t length, int64_t k, bool largest, uint8_t* values,
                     int32_t* indices);

}  // namespace hloc

#endif  // RUNTIME_CPU_TOPK_H_

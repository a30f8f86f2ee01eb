// Whether a value fits in this host's memory, asked before allocating it.
//
// A shape from an HLO module can name far more memory than a host has
// (f32[100000,100000,4] is 160 GB); allocating it threw std::bad_alloc
// out of the evaluator and the input generators and aborted the tool.
// Anything that allocates a whole value on the host from a module's shape
// asks here first and turns the answer into an error that names the value
// and the sizes.
#ifndef HLO_HOST_MEMORY_H_
#define HLO_HOST_MEMORY_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "hlo/shape.h"

namespace hloc {

// Bytes of `shape` (tuples: their leaves summed), saturating at INT64_MAX
// where the product of the dimensions overflows.
int64_t ShapeBytesSaturating(const Shape& shape);

// This host's physical memory in bytes (INT64_MAX when unknown), read from
// the system once.
int64_t HostMemoryBytes();

// Whether `shape`'s bytes are at most HostMemoryBytes(): the check without
// building an error message.
bool FitsInHostMemory(const Shape& shape);

// OK, or ResourceExhausted "WHAT: SHAPE needs N GB, more than this host's
// M GB of memory".
absl::Status CheckFitsInHostMemory(const Shape& shape, absl::string_view what);

}  // namespace hloc

#endif  // HLO_HOST_MEMORY_H_

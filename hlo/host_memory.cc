#include "hlo/host_memory.h"

#include <unistd.h>

#include <limits>

#include "absl/strings/str_format.h"
#include "hlo/primitive_type.h"

namespace hloc {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t SaturatingAdd(int64_t a, int64_t b) {
  return a > kMax - b ? kMax : a + b;
}

int64_t SaturatingMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kMax / b ? kMax : a * b;
}

}  // namespace

int64_t ShapeBytesSaturating(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t total = 0;
    for (const Shape& leaf : shape.tuple_shapes()) {
      total = SaturatingAdd(total, ShapeBytesSaturating(leaf));
    }
    return total;
  }
  if (!shape.IsArray()) return 0;
  int64_t bytes = std::max<int64_t>(1, ByteWidth(shape.element_type()));
  for (int64_t d : shape.dimensions()) bytes = SaturatingMul(bytes, d);
  return bytes;
}

int64_t HostMemoryBytes() {
  // Asked once: sysconf(_SC_PHYS_PAGES) is a sysinfo system call, and the
  // evaluator asks before every instruction's result.
  static const int64_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0) return kMax;
    return SaturatingMul(pages, page_size);
  }();
  return bytes;
}

bool FitsInHostMemory(const Shape& shape) {
  return ShapeBytesSaturating(shape) <= HostMemoryBytes();
}

absl::Status CheckFitsInHostMemory(const Shape& shape, absl::string_view what) {
  const int64_t bytes = ShapeBytesSaturating(shape);
  const int64_t host = HostMemoryBytes();
  if (bytes <= host) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrFormat(
      "%s: %s needs %.1f GB, more than this host's %.1f GB of memory", what,
      shape.ToString(), static_cast<double>(bytes) / 1e9,
      static_cast<double>(host) / 1e9));
}

}  // namespace hloc

#include "runtime/collective_reduction.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "hlo/evaluator/kernels.h"

namespace hloc {
namespace {

HloOpcode ReductionOpcode(CollectiveReduction reduction) {
  switch (reduction) {
    case CollectiveReduction::kSum:
      return HloOpcode::kAdd;
    case CollectiveReduction::kProduct:
      return HloOpcode::kMultiply;
    case CollectiveReduction::kMin:
      return HloOpcode::kMinimum;
    case CollectiveReduction::kMax:
      return HloOpcode::kMaximum;
  }
  return HloOpcode::kAdd;
}

eval::ElementwiseFn KernelOf(CollectiveReduction reduction,
                             PrimitiveType type) {
  return eval::SelectBinaryKernel(ReductionOpcode(reduction), type, type);
}

// Elements reduced at a time: every rank's piece of a block stays in cache
// while it is folded in.
constexpr int64_t kBlockBytes = 64 << 10;

}  // namespace

absl::Status CheckCollectiveReduction(CollectiveReduction reduction,
                                      PrimitiveType type) {
  if (KernelOf(reduction, type) != nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("a collective ", CollectiveReductionString(reduction),
                   " is not defined on ", PrimitiveTypeName(type)));
}

absl::Status ReduceInRankOrder(CollectiveReduction reduction,
                               PrimitiveType type,
                               absl::Span<const void* const> inputs, void* out,
                               int64_t count) {
  const eval::ElementwiseFn kernel = KernelOf(reduction, type);
  if (kernel == nullptr) return CheckCollectiveReduction(reduction, type);
  if (inputs.empty()) {
    return absl::InvalidArgumentError("a reduction of no contributions");
  }
  const int64_t width = ByteWidth(type);
  const int64_t block = std::max<int64_t>(1, kBlockBytes / width);
  const eval::KernelAttrs attrs;
  for (int64_t start = 0; start < count; start += block) {
    const int64_t n = std::min(block, count - start);
    const int64_t offset = start * width;
    uint8_t* acc = static_cast<uint8_t*>(out) + offset;
    const uint8_t* first = static_cast<const uint8_t*>(inputs[0]) + offset;
    if (acc != first) std::memcpy(acc, first, n * width);
    for (size_t k = 1; k < inputs.size(); ++k) {
      const void* args[2] = {acc,
                             static_cast<const uint8_t*>(inputs[k]) + offset};
      kernel(args, acc, n, attrs);
    }
  }
  return absl::OkStatus();
}

}  // namespace hloc

#include "runtime/device_run_staging.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/dense_buffer.h"

namespace hloc {
namespace {

// Whether a slot's bytes are laid out as a literal's (row-major).
bool RowMajor(const Shape& shape) {
  return shape.HasDescendingLayout() || shape.rank() <= 1;
}

}  // namespace

std::unique_ptr<uint8_t[]> HostStagingBytes(int64_t bytes) {
  return std::unique_ptr<uint8_t[]>(
      new uint8_t[static_cast<size_t>(std::max<int64_t>(bytes, 1))]);
}

absl::Status CheckRunArguments(const Executable& e,
                               absl::Span<const Literal> arguments) {
  if (arguments.size() != e.parameter_shapes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the entry computation takes ", e.parameter_shapes.size(),
                     " arguments, given ", arguments.size()));
  }
  for (size_t p = 0; p < arguments.size(); ++p) {
    if (!arguments[p].shape().Compatible(e.parameter_shapes[p])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", p, " has shape ", arguments[p].shape().ToString(),
          ", the parameter ", e.parameter_shapes[p].ToString()));
    }
  }
  return absl::OkStatus();
}

ArgumentStaging::ArgumentStaging(const Executable& e,
                                 absl::Span<const Literal> arguments) {
  for (size_t p = 0; p < arguments.size(); ++p) {
    const std::vector<const Literal*> leaves = LiteralLeaves(arguments[p]);
    for (size_t l = 0; l < leaves.size(); ++l) {
      const int64_t slot_index = e.parameter_buffers[p][l];
      const ExecutableBuffer& slot = e.buffers[slot_index];
      if (slot.size == 0) continue;
      // The copy only reads it.
      void* source = const_cast<uint8_t*>(leaves[l]->untyped_data());
      if (!RowMajor(slot.shape) || leaves[l]->size_bytes() != slot.size) {
        staged_.push_back(HostStagingBytes(slot.size));
        CopyLiteralToBuffer(*leaves[l], slot.shape, staged_.back().get());
        source = staged_.back().get();
      }
      copies_.push_back({slot_index, source, static_cast<size_t>(slot.size),
                         absl::StrCat("copying parameter ", p, " leaf ", l,
                                      " in")});
    }
  }
}

ResultStaging::ResultStaging(const Executable& e)
    : executable_(e), result_(Literal::CreateUninitialized(e.result_shape)) {
  leaves_ = MutableLiteralLeaves(&result_);
  for (size_t l = 0; l < leaves_.size(); ++l) {
    const int64_t slot_index = e.result_buffers[l];
    const ExecutableBuffer& slot = e.buffers[slot_index];
    if (slot.size == 0 || leaves_[l]->size_bytes() == 0) continue;
    void* destination = leaves_[l]->untyped_data();
    if (!RowMajor(slot.shape) || leaves_[l]->size_bytes() != slot.size) {
      staged_.emplace_back(l, HostStagingBytes(slot.size));
      destination = staged_.back().second.get();
    }
    copies_.push_back({slot_index, destination, static_cast<size_t>(slot.size),
                       absl::StrCat("copying result leaf ", l, " out")});
  }
}

Literal ResultStaging::Finish() && {
  for (auto& [l, bytes] : staged_) {
    CopyBufferToLiteral(
        bytes.get(), executable_.buffers[executable_.result_buffers[l]].shape,
        leaves_[l]);
  }
  return std::move(result_);
}

}  // namespace hloc

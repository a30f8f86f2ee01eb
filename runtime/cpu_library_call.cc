#include "runtime/cpu_library_call.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/cpu_topk.h"
#include "runtime/dense_buffer.h"
#include "runtime/fft_library.h"
#include "runtime/lapack_step.h"

namespace hloc {
namespace {

// topk's k and order come from the step itself (the library's name, the
// results' minor dimension), so saved executables need no new config.
constexpr char kTopKLargest[] = "topk.largest";
constexpr char kTopKSmallest[] = "topk.smallest";

bool IsTopK(const std::string& library) {
  return library == kTopKLargest || library == kTopKSmallest;
}

// One operand [..., n] and results [..., k] of its type and of s32.
absl::Status CheckTopK(const std::vector<Shape>& shapes) {
  if (shapes.size() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("topk takes one operand and two results, has ",
                     shapes.size(), " slots"));
  }
  const Shape& x = shapes[0];
  if (!x.IsArray() || x.rank() == 0 || !CpuTopKSupportsType(x.element_type())) {
    return absl::InvalidArgumentError(
        absl::StrCat("topk of ", x.ToString(), " is not supported"));
  }
  const int64_t k = shapes[1].IsArray() && shapes[1].rank() == x.rank()
                        ? shapes[1].dimensions().back()
                        : -1;
  std::vector<int64_t> dims = x.dimensions();
  dims.back() = k;
  if (k < 0 || k > x.dimensions().back() ||
      shapes[1].element_type() != x.element_type() ||
      shapes[1].dimensions() != dims || !shapes[2].IsArray() ||
      shapes[2].element_type() != S32 || shapes[2].dimensions() != dims) {
    return absl::InvalidArgumentError(
        absl::StrCat("topk of ", x.ToString(), " cannot give (",
                     shapes[1].ToString(), ", ", shapes[2].ToString(), ")"));
  }
  return absl::OkStatus();
}

// Runs topk on the slots in place when all are row-major, else on
// row-major copies.
absl::Status RunTopKStep(const Executable& executable,
                         const ExecutableStep& step,
                         const std::vector<uint8_t*>& address) {
  const Shape& x = executable.buffers[step.buffers[0]].shape;
  const Shape& values = executable.buffers[step.buffers[1]].shape;
  const Shape& indices = executable.buffers[step.buffers[2]].shape;
  const int64_t length = x.dimensions().back();
  const int64_t k = values.dimensions().back();
  const int64_t rows = length == 0 ? 0 : x.ElementCount() / length;
  const bool largest = step.library == kTopKLargest;
  if (x.HasDescendingLayout() && values.HasDescendingLayout() &&
      indices.HasDescendingLayout()) {
    return RunTopK(x.element_type(), address[step.buffers[0]], rows, length, k,
                   largest, address[step.buffers[1]],
                   reinterpret_cast<int32_t*>(address[step.buffers[2]]));
  }
  Literal input = BufferToLiteral(address[step.buffers[0]], x);
  Shape values_row_major = values, indices_row_major = indices;
  values_row_major.clear_layout();
  indices_row_major.clear_layout();
  Literal top_values(values_row_major), top_indices(indices_row_major);
  absl::Status status =
      RunTopK(x.element_type(), input.untyped_data(), rows, length, k, largest,
              top_values.untyped_data(), top_indices.data<int32_t>().data());
  if (!status.ok()) return status;
  CopyLiteralToBuffer(top_values, values, address[step.buffers[1]]);
  CopyLiteralToBuffer(top_indices, indices, address[step.buffers[2]]);
  return absl::OkStatus();
}

}  // namespace

std::string CpuTopKLibraryName(bool largest) {
  return largest ? kTopKLargest : kTopKSmallest;
}

bool CpuLibraryCall::Handles(const std::string& library) {
  return library == "fft" || IsTopK(library) || LapackStep::Handles(library);
}

absl::StatusOr<std::unique_ptr<CpuLibraryCall>> CpuLibraryCall::Create(
    const Executable& executable, const ExecutableStep& step,
    const std::string& what) {
  std::unique_ptr<CpuLibraryCall> call(new CpuLibraryCall());
  call->what_ = what;
  auto fail = [&](const absl::Status& status) {
    return absl::Status(status.code(),
                        absl::StrCat(what, ": ", status.message()));
  };
  std::vector<Shape> shapes;
  for (int64_t slot : step.buffers) {
    shapes.push_back(executable.buffers[slot].shape);
  }
  const LibraryConfig& config = step.library_config;
  if (step.library == "fft") {
    if (shapes.size() != 2) {
      return fail(absl::InvalidArgumentError(
          absl::StrCat("fft takes one operand and one result, has ",
                       shapes.size(), " slots")));
    }
    absl::Status status =
        CheckFft(config.fft_type, config.fft_length, shapes[0], shapes[1]);
    if (!status.ok()) return fail(status);
    return call;
  }
  if (IsTopK(step.library)) {
    absl::Status status = CheckTopK(shapes);
    if (!status.ok()) return fail(status);
    return call;
  }
  absl::StatusOr<std::unique_ptr<LapackStep>> lapack =
      LapackStep::Create(executable, step, what);
  if (!lapack.ok()) return lapack.status();
  call->lapack_ = *std::move(lapack);
  return call;
}

absl::Status CpuLibraryCall::Run(const Executable& executable,
                                 const ExecutableStep& step,
                                 const std::vector<uint8_t*>& address) const {
  if (IsTopK(step.library)) {
    absl::Status status = RunTopKStep(executable, step, address);
    if (!status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat(what_, ": ", status.message()));
    }
    return absl::OkStatus();
  }
  if (lapack_ != nullptr) return lapack_->Run(executable, step, address);
  // fft: its operand read into a row-major array, its result written back
  // in its slot's layout.
  const int64_t in = step.buffers[0], out = step.buffers[1];
  std::vector<Literal> operands, results;
  operands.push_back(
      BufferToLiteral(address[in], executable.buffers[in].shape));
  Shape row_major = executable.buffers[out].shape;
  row_major.clear_layout();
  results.push_back(Literal(row_major));
  absl::Status status =
      RunFft(step.library_config.fft_type, step.library_config.fft_length,
             &operands[0], &results[0]);
  if (!status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat(what_, ": ", status.message()));
  }
  CopyLiteralToBuffer(results[0], executable.buffers[out].shape, address[out]);
  return absl::OkStatus();
}

}  // namespace hloc

#include "runtime/lapack_step.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/dense_buffer.h"
#include "runtime/lapack_library.h"

namespace hloc {

bool LapackStep::Handles(const std::string& library) {
  return LapackRoutineFromLibrary(library).ok();
}

absl::StatusOr<std::unique_ptr<LapackStep>> LapackStep::Create(
    const Executable& executable, const ExecutableStep& step,
    const std::string& what) {
  auto fail = [&](const absl::Status& status) {
    return absl::Status(status.code(),
                        absl::StrCat(what, ": ", status.message()));
  };
  absl::StatusOr<LapackRoutine> routine =
      LapackRoutineFromLibrary(step.library);
  if (!routine.ok()) return fail(routine.status());
  std::vector<Shape> shapes;
  for (int64_t slot : step.buffers) {
    if (slot < 0 || slot >= static_cast<int64_t>(executable.buffers.size())) {
      return fail(absl::InvalidArgumentError(
          absl::StrCat("slot ", slot, " is not one of the executable's ",
                       executable.buffers.size())));
    }
    shapes.push_back(executable.buffers[slot].shape);
  }
  const size_t num_operands = LapackOperandCount(*routine);
  if (shapes.size() < num_operands) {
    return fail(absl::InvalidArgumentError(
        absl::StrCat(shapes.size(), " slots, fewer than the routine's ",
                     num_operands, " operands")));
  }
  std::vector<Shape> operands(shapes.begin(), shapes.begin() + num_operands);
  std::vector<Shape> results(shapes.begin() + num_operands, shapes.end());
  absl::Status status =
      CheckLapack(*routine, step.library_config, operands, results);
  if (!status.ok()) return fail(status);
  std::unique_ptr<LapackStep> call(new LapackStep());
  call->routine_ = *routine;
  call->num_operands_ = num_operands;
  call->what_ = what;
  return call;
}

absl::Status LapackStep::Run(const Executable& executable,
                             const ExecutableStep& step,
                             const std::vector<uint8_t*>& address) const {
  std::vector<Literal> operands, results;
  for (size_t i = 0; i < step.buffers.size(); ++i) {
    const int64_t slot = step.buffers[i];
    const Shape& shape = executable.buffers[slot].shape;
    if (i < num_operands_) {
      operands.push_back(BufferToLiteral(address[slot], shape));
    } else {
      Shape row_major = shape;
      row_major.clear_layout();
      results.push_back(Literal(row_major));
    }
  }
  absl::Status status =
      RunLapack(routine_, step.library_config, &operands, &results);
  if (!status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat(what_, ": ", status.message()));
  }
  for (size_t r = 0; r < results.size(); ++r) {
    const int64_t slot = step.buffers[num_operands_ + r];
    CopyLiteralToBuffer(results[r], executable.buffers[slot].shape,
                        address[slot]);
  }
  return absl::OkStatus();
}

}  // namespace hloc

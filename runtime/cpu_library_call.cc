#include "runtime/cpu_library_call.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/dense_buffer.h"
#include "runtime/fft_library.h"
#include "runtime/lapack_library.h"

namespace hloc {

bool CpuLibraryCall::Handles(const std::string& library) {
  return library == "fft" || LapackRoutineFromLibrary(library).ok();
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
  const CpuLibraryConfig& config = step.cpu_library;
  if (step.library == "fft") {
    if (shapes.size() != 2) {
      return fail(absl::InvalidArgumentError(
          absl::StrCat("fft takes one operand and one result, has ",
                       shapes.size(), " slots")));
    }
    absl::Status status =
        CheckFft(config.fft_type, config.fft_length, shapes[0], shapes[1]);
    if (!status.ok()) return fail(status);
    call->num_operands_ = 1;
    return call;
  }
  absl::StatusOr<LapackRoutine> routine =
      LapackRoutineFromLibrary(step.library);
  if (!routine.ok()) return fail(routine.status());
  const size_t num_operands =
      *routine == LapackRoutine::kTrsm || *routine == LapackRoutine::kOrgqr ? 2
                                                                            : 1;
  if (shapes.size() < num_operands) {
    return fail(absl::InvalidArgumentError("too few slots"));
  }
  std::vector<Shape> operands(shapes.begin(), shapes.begin() + num_operands);
  std::vector<Shape> results(shapes.begin() + num_operands, shapes.end());
  absl::Status status = CheckLapack(*routine, config, operands, results);
  if (!status.ok()) return fail(status);
  call->num_operands_ = num_operands;
  return call;
}

absl::Status CpuLibraryCall::Run(const Executable& executable,
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
  absl::Status status;
  if (step.library == "fft") {
    status = RunFft(step.cpu_library.fft_type, step.cpu_library.fft_length,
                    &operands[0], &results[0]);
  } else {
    absl::StatusOr<LapackRoutine> routine =
        LapackRoutineFromLibrary(step.library);
    status = routine.ok()
                 ? RunLapack(*routine, step.cpu_library, &operands, &results)
                 : routine.status();
  }
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

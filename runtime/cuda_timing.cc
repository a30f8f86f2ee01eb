#include "runtime/cuda_timing.h"

#include <vector>

namespace hloc {
namespace cuda {

absl::StatusOr<size_t> FastestCandidate(
    CudaDriver* driver, CUstream stream, size_t count,
    absl::FunctionRef<absl::Status(size_t)> run, absl::string_view what) {
  CUevent start = nullptr, stop = nullptr;
  absl::Status status =
      HLOC_CUDA_CALL(driver, what, cuEventCreate, &start, CU_EVENT_DEFAULT);
  if (status.ok()) {
    status =
        HLOC_CUDA_CALL(driver, what, cuEventCreate, &stop, CU_EVENT_DEFAULT);
  }
  // Per candidate: its best round's time, or -1 once it failed (skipped).
  std::vector<float> best(count, 0);
  for (int round = 0; status.ok() && round < kRounds; ++round) {
    for (size_t c = 0; status.ok() && c < count; ++c) {
      if (best[c] < 0) continue;
      if (!run(c).ok()) {
        best[c] = -1;
        continue;
      }
      status = HLOC_CUDA_CALL(driver, what, cuEventRecord, start, stream);
      bool ran = status.ok();
      for (int i = 0; ran && i < kTimedRuns; ++i) ran = run(c).ok();
      // The stop event is recorded and waited for even after a failed run,
      // so that the next candidate starts on an idle stream.
      if (status.ok()) {
        status = HLOC_CUDA_CALL(driver, what, cuEventRecord, stop, stream);
      }
      if (status.ok()) {
        status = HLOC_CUDA_CALL(driver, what, cuEventSynchronize, stop);
      }
      float ms = 0;
      if (status.ok()) {
        status =
            HLOC_CUDA_CALL(driver, what, cuEventElapsedTime, &ms, start, stop);
      }
      if (!ran) {
        best[c] = -1;
      } else if (status.ok() && (round == 0 || ms < best[c])) {
        best[c] = ms;
      }
    }
  }
  size_t fastest = 0;
  bool any = false;
  for (size_t c = 0; c < count; ++c) {
    if (best[c] < 0) continue;
    if (!any || best[c] < best[fastest]) fastest = c;
    any = true;
  }
  if (start != nullptr) driver->cuEventDestroy(start);
  if (stop != nullptr) driver->cuEventDestroy(stop);
  if (!status.ok()) return status;
  return fastest;
}

}  // namespace cuda
}  // namespace hloc

// Running every device of a replicated run at once: one host thread per
// device (the CPU's replicas, and the executors of a run on several GPUs),
// joined before returning, with the failure that caused the others named.
#ifndef RUNTIME_DEVICE_THREADS_H_
#define RUNTIME_DEVICE_THREADS_H_

#include <cstdint>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace hloc {

// Runs `run(device)` for devices 0..n-1, each on a thread of its own, and
// returns their results in device order. On failure, the error of the
// first device that failed of its own accord, prefixed "device k: ": a
// device whose error is Aborted only saw a peer fail (host collectives
// release waiting peers so), so it is named only when every failure is.
template <typename T>
absl::StatusOr<std::vector<T>> RunOnDeviceThreads(
    int64_t n, const std::function<absl::StatusOr<T>(int64_t device)>& run) {
  std::vector<absl::StatusOr<T>> results(
      n, absl::StatusOr<T>(absl::UnknownError("not run")));
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < n; ++d) {
    threads.emplace_back([&, d] { results[d] = run(d); });
  }
  for (std::thread& thread : threads) thread.join();
  int64_t cause = -1;
  for (int64_t d = 0; d < n; ++d) {
    if (results[d].ok()) continue;
    if (cause < 0 || (absl::IsAborted(results[cause].status()) &&
                      !absl::IsAborted(results[d].status()))) {
      cause = d;
    }
  }
  if (cause >= 0) {
    const absl::Status& status = results[cause].status();
    return absl::Status(status.code(),
                        absl::StrCat("device ", cause, ": ", status.message()));
  }
  std::vector<T> values;
  for (absl::StatusOr<T>& result : results) {
    values.push_back(*std::move(result));
  }
  return values;
}

}  // namespace hloc

#endif  // RUNTIME_DEVICE_THREADS_H_

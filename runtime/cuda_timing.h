// Autotuning's measurement, shared by the library calls that choose among
// algorithms on the device (cublas_gemm.cc, cudnn_conv.cc): each candidate
// runs once as a warm-up and then kTimedRuns times between two CUDA events,
// as XLA's autotuners time theirs, in kRounds rounds over all candidates;
// the fastest by its best round is kept.
#ifndef RUNTIME_CUDA_TIMING_H_
#define RUNTIME_CUDA_TIMING_H_

#include <cstddef>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/cuda_driver.h"

namespace hloc {
namespace cuda {

// Runs timed per candidate after its warm-up: a few, so that one launch's
// jitter does not decide, and few enough that tuning stays cheap.
inline constexpr int kTimedRuns = 3;
// Rounds over the candidates, each candidate judged by its best: tuning
// happens on a module's first run, when the GPU may still be raising its
// clocks, and one round judged the first candidates at lower clocks than
// the last. On the H100, six processes each timed conv_bn_relu (a cuDNN
// convolution and kernels) at 0.086-0.095 ms a run after one round and
// 0.087-0.089 ms after two.
inline constexpr int kRounds = 2;

// The index of the fastest of `count` candidates, where `run(i)` enqueues
// candidate i on `stream`. A candidate whose warm-up or timed runs fail is
// skipped, not an error: a heuristic may rank algorithms that cannot run
// here. 0 (the heuristic's first choice) when none ran. Synchronous; call
// outside stream capture. Errors are the driver's (events), naming `what`.
absl::StatusOr<size_t> FastestCandidate(
    CudaDriver* driver, CUstream stream, size_t count,
    absl::FunctionRef<absl::Status(size_t)> run, absl::string_view what);

}  // namespace cuda
}  // namespace hloc

#endif  // RUNTIME_CUDA_TIMING_H_

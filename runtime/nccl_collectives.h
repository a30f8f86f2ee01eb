// Collective steps (ExecutableStep::Kind::kCollective) on NVIDIA GPUs
// through NCCL, one GPU per device of a replicated run, as XLA:GPU's NCCL
// thunks run them: each device's executor (its own thread, its own stream)
// issues the NCCL call of each step on its stream, in step order, on the
// communicator of its group.
//
// Communicators: one NCCL clique per distinct group layout (the groups of
// a step), made for every device of the run at once (ncclCommInitRank for
// each device inside one NCCL group, from one thread) the first time an
// executor is prepared with a step that uses it, and kept for the run's
// life. collective-permute and the tuple all-to-all talk point to point
// (ncclSend/ncclRecv) on the clique of their groups, the permute on the
// clique of all devices.
//
// Types: NCCL reduces s8, u8 (and pred, as min/max), s32, u32, s64, u64,
// f16, bf16, f32, f64; complex sums are sums of the real pairs. Moving
// data (gathers, all-to-all, permutes) works for every type, as bytes.
// Other reductions are refused when the step is prepared.
#ifndef RUNTIME_NCCL_COLLECTIVES_H_
#define RUNTIME_NCCL_COLLECTIVES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/cuda_device.h"
#include "runtime/executable.h"
#include "runtime/nccl_library.h"

namespace hloc {
namespace cuda {

// One communicator per device of `devices` (rank r on devices[r]), made
// together from this thread inside one NCCL group call; leaves the calling
// thread's current context changed. On error, none is left.
absl::StatusOr<std::vector<ncclComm_t>> MakeCommunicators(
    const NcclLibrary& nccl, absl::Span<const CudaDevice* const> devices,
    const std::string& what);

class NcclCollectives {
 public:
  // For a run whose device k is GPU `ordinals[k]` (distinct GPUs): loads
  // NCCL and retains each GPU's primary context (the one its executor
  // runs in).
  static absl::StatusOr<std::unique_ptr<NcclCollectives>> Create(
      CudaDriver* driver, const std::vector<int>& ordinals);
  ~NcclCollectives();

  int64_t num_devices() const {
    return static_cast<int64_t>(devices_.size());
  }
  const NcclLibrary& library() const { return *nccl_; }

  // The communicators of one group layout (defined where they are made).
  struct Clique;
  // What Prepare settles for a step, kept by its executor for every Issue:
  // the clique it runs on (none for device ids) and how NCCL is given its
  // elements (`type`, `per_element` of them per HLO element).
  struct PreparedStep {
    const Clique* clique = nullptr;
    ncclDataType_t type = ncclUint8;
    int64_t per_element = 1;
  };

  // Checks the step against NCCL (types, reductions, the run's size) and
  // makes the communicators it needs, for every device. Called from one
  // thread at a time (the executors are prepared in turn); leaves the
  // calling thread's current context changed.
  absl::StatusOr<PreparedStep> Prepare(const Executable& executable,
                                       const ExecutableStep& step,
                                       const std::string& what);

  // Enqueues `step`, as `prepared`, for `device` on `stream`; `address[i]`
  // is the device address of step.buffers[i]. The device's context is
  // current.
  absl::Status Issue(const Executable& executable, const ExecutableStep& step,
                     const PreparedStep& prepared, const std::string& what,
                     int64_t device, absl::Span<const CUdeviceptr> address,
                     CUstream stream) const;

 private:
  NcclCollectives() = default;
  absl::StatusOr<const Clique*> MakeClique(
      const std::vector<std::vector<int64_t>>& groups);

  NcclLibrary* nccl_ = nullptr;
  std::vector<std::unique_ptr<CudaDevice>> devices_;
  std::mutex mutex_;
  std::map<std::vector<std::vector<int64_t>>, std::unique_ptr<Clique>>
      cliques_;
};

}  // namespace cuda
}  // namespace hloc

#endif  // RUNTIME_NCCL_COLLECTIVES_H_

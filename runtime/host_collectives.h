// Collectives between the devices of a replicated run on one host: every
// device (replica x partition) runs the executable on its own thread, and
// at a collective step (ExecutableStep::Kind::kCollective; the buffer
// rules are CollectiveConfigProto's in executable.proto) meets the other
// members of its group here.
//
// A meeting is keyed by the step, how many times this device has run that
// step, and the group's first device, as the evaluator's rendezvous keys
// its collectives (hlo/evaluator/rendezvous.h). Each device registers the
// addresses of its operand and result buffers and waits for its peers;
// then every device computes its own results straight from the peers'
// operand buffers (no staging copy), reducing in rank order with the
// evaluator's kernels (collective_reduction.h), so every device gets the
// evaluator's bits. A second barrier keeps everyone's operands alive until
// the whole group has read them. A device whose results overlap its own
// operands (buffer reuse) writes them through a scratch copy after that
// barrier, so its peers never read half-written operands.
//
// Nothing hangs: a device that stops on an error, or finishes without
// reaching a collective its peers wait at, is reported to them (Finish),
// and a wait longer than the timeout (60 s by default) ends with an error
// naming the step and the devices that did not come. Peers that disagree
// on sizes or types all get the same error.
#ifndef RUNTIME_HOST_COLLECTIVES_H_
#define RUNTIME_HOST_COLLECTIVES_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/literal.h"
#include "hlo/primitive_type.h"
#include "runtime/executable.h"

namespace hloc {

// One collective step as a device runs it.
struct HostCollectiveCall {
  // Identifies the step within the executable (its index) and names it in
  // errors.
  int64_t step = 0;
  std::string name;
  const CollectiveConfig* config = nullptr;
  PrimitiveType element_type = PRIMITIVE_TYPE_INVALID;
  // Operand leaves, then result leaves (the step's slots), and the bytes
  // of each.
  absl::Span<void* const> buffers;
  absl::Span<const int64_t> sizes;
};

class HostCollectives {
 public:
  // For a run of `num_devices` devices (replica_count x num_partitions).
  explicit HostCollectives(
      int64_t num_devices,
      std::chrono::milliseconds timeout = std::chrono::seconds(60));

  int64_t num_devices() const { return static_cast<int64_t>(state_.size()); }

  // Runs `call` on `device`: meets its group, writes the device's results.
  // Returns once every member has read this device's operands.
  absl::Status Run(int64_t device, const HostCollectiveCall& call);

  // `device` takes part in nothing more; `failed` when it stopped on an
  // error. Peers waiting for it get an error instead of waiting on.
  void Finish(int64_t device, bool failed);

 private:
  struct Meeting;
  using Key = std::tuple<int64_t, int64_t, int64_t>;

  // Registers the device at its meeting and waits for the whole group.
  absl::StatusOr<std::shared_ptr<Meeting>> Arrive(
      int64_t device, const HostCollectiveCall& call,
      const std::vector<int64_t>& participants, int64_t rank);
  // Waits until every member has computed its results.
  void Depart(Meeting& meeting);

  const std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<Key, std::shared_ptr<Meeting>> meetings_;
  // Per device, per step: how many times it has run the step.
  std::vector<std::map<int64_t, int64_t>> executions_;
  // Per device: 0 running, 1 finished, 2 failed.
  std::vector<int> state_;
};

// Where a runtime's run sits in a replicated run: its device and the
// communicator it shares with the other devices' threads. The default is
// device 0 of a one-device run.
struct HostReplica {
  int64_t device = 0;
  HostCollectives* collectives = nullptr;
};

// Runs `run(device)` for every device of `collectives` on a thread of its
// own, telling `collectives` when each ends; the devices' results in
// device order. On failure the first root cause: an error of a device
// other than one that only reports a failed peer.
absl::StatusOr<std::vector<Literal>> RunOnHostDevices(
    HostCollectives& collectives,
    const std::function<absl::StatusOr<Literal>(int64_t device)>& run);

}  // namespace hloc

#endif  // RUNTIME_HOST_COLLECTIVES_H_

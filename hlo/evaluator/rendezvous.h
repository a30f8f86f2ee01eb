// Where the device threads of a replicated evaluation meet at a collective.
//
// Every device runs its own evaluator on its own thread; at a collective it
// hands a copy of its operands to Exchange and blocks until every device of
// its group has done the same, then reads all contributions and computes
// its own result. Results depend only on the contributions and the group
// order, never on which thread arrives first, so runs are deterministic.
//
// A device that finishes, or fails, while a peer waits for it ends that
// wait with an error instead of a hang: control flow that differs between
// devices (a collective some never reach) is reported, not deadlocked.
#ifndef HLO_EVALUATOR_RENDEZVOUS_H_
#define HLO_EVALUATOR_RENDEZVOUS_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/instruction.h"
#include "hlo/literal.h"

namespace hloc {
namespace eval {

class Rendezvous {
 public:
  // What the participants brought, in participant order.
  using Contributions = std::vector<std::vector<Literal>>;

  explicit Rendezvous(int64_t num_devices);

  // Device `device` (one of `participants`) arrives at the `execution`-th
  // run of `instr` with `values`. Returns every participant's values once
  // all have arrived; an error if one of them ends first.
  absl::StatusOr<std::shared_ptr<const Contributions>> Exchange(
      const HloInstruction& instr, int64_t execution,
      absl::Span<const int64_t> participants, int64_t device,
      std::vector<Literal> values);

  // `device` takes part in nothing more; `failed` when it stopped on an
  // error.
  void Finish(int64_t device, bool failed);

 private:
  struct Slot {
    std::vector<int64_t> participants;
    std::vector<bool> arrived;
    int64_t count = 0;
    std::shared_ptr<Contributions> values;
  };
  // (instruction, execution, first participant): the same collective run by
  // the same group.
  using Key = std::tuple<const HloInstruction*, int64_t, int64_t>;

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<Key, std::shared_ptr<Slot>> slots_;
  // 0 running, 1 finished, 2 failed.
  std::vector<int> state_;
};

}  // namespace eval
}  // namespace hloc

#endif  // HLO_EVALUATOR_RENDEZVOUS_H_

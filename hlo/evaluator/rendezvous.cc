#include "hlo/evaluator/rendezvous.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace hloc {
namespace eval {

Rendezvous::Rendezvous(int64_t num_devices) : state_(num_devices, 0) {}

absl::StatusOr<std::shared_ptr<const Rendezvous::Contributions>>
Rendezvous::Exchange(const HloInstruction& instr, int64_t execution,
                     absl::Span<const int64_t> participants, int64_t device,
                     std::vector<Literal> values) {
  const auto position =
      std::find(participants.begin(), participants.end(), device);
  if (participants.empty() || position == participants.end()) {
    return absl::InternalError(absl::StrCat(
        "device ", device, " is not a participant of ", instr.name()));
  }
  const int64_t rank = position - participants.begin();
  std::unique_lock<std::mutex> lock(mu_);
  const Key key{&instr, execution, participants[0]};
  std::shared_ptr<Slot>& entry = slots_[key];
  if (entry == nullptr) {
    entry = std::make_shared<Slot>();
    entry->participants.assign(participants.begin(), participants.end());
    entry->arrived.assign(participants.size(), false);
    entry->values = std::make_shared<Contributions>(participants.size());
  }
  std::shared_ptr<Slot> slot = entry;
  if (slot->participants !=
      std::vector<int64_t>(participants.begin(), participants.end())) {
    return absl::InternalError(absl::StrCat(
        "devices disagree on the participants of ", instr.name()));
  }
  (*slot->values)[rank] = std::move(values);
  slot->arrived[rank] = true;
  if (++slot->count == static_cast<int64_t>(participants.size())) {
    slots_.erase(key);
    cv_.notify_all();
    return std::shared_ptr<const Contributions>(slot->values);
  }
  while (true) {
    if (slot->count == static_cast<int64_t>(participants.size())) {
      return std::shared_ptr<const Contributions>(slot->values);
    }
    for (size_t i = 0; i < participants.size(); ++i) {
      const int64_t peer = participants[i];
      if (slot->arrived[i] || state_[peer] == 0) continue;
      if (state_[peer] == 2) {
        return absl::AbortedError(absl::StrCat(
            "device ", peer, " stopped on an error before ",
            HloOpcodeString(instr.opcode()), " ", instr.name()));
      }
      return absl::FailedPreconditionError(absl::StrCat(
          "device ", peer, " finished without reaching ",
          HloOpcodeString(instr.opcode()), " ", instr.name(), " (run ",
          execution + 1, " of it on device ", device,
          "): the devices' control flow differs"));
    }
    cv_.wait(lock);
  }
}

void Rendezvous::Finish(int64_t device, bool failed) {
  std::lock_guard<std::mutex> lock(mu_);
  state_[device] = failed ? 2 : 1;
  cv_.notify_all();
}

}  // namespace eval
}  // namespace hloc

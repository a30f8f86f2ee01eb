#include "runtime/host_collectives.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/collective_reduction.h"
#include "runtime/device_threads.h"

namespace hloc {
namespace {

using Op = CollectiveConfig::Op;

bool IsDeviceId(Op op) {
  return op == Op::kReplicaId || op == Op::kPartitionId;
}

bool Reduces(Op op) { return op == Op::kAllReduce || op == Op::kReduceScatter; }

std::string Describe(const HostCollectiveCall& call) {
  return absl::StrCat("collective step ", call.step, " (",
                      CollectiveOpString(call.config->op), " ", call.name, ")");
}

// What a device can check alone, before it meets anyone: the run, the
// reduction and the buffer sizes against the op and the group size.
absl::Status CheckCall(const HostCollectiveCall& call, int64_t num_devices,
                       int64_t device, int64_t group_size) {
  const CollectiveConfig& c = *call.config;
  auto fail = [&](auto&&... parts) {
    return absl::InvalidArgumentError(
        absl::StrCat(Describe(call), ": ", parts...));
  };
  if (c.replica_count * c.num_partitions != num_devices) {
    return absl::FailedPreconditionError(absl::StrCat(
        Describe(call), " is compiled for ", c.replica_count * c.num_partitions,
        " devices (replica_count=", c.replica_count, ", num_partitions=",
        c.num_partitions, "), but the run has ", num_devices,
        num_devices == 1 ? " (run it replicated, e.g. hlo-run --replicas)"
                         : ""));
  }
  if (device < 0 || device >= num_devices) {
    return fail("device ", device, " is not one of the run's ", num_devices);
  }
  if (call.buffers.size() != call.sizes.size()) {
    return fail("buffers and sizes differ in number");
  }
  const int64_t n = static_cast<int64_t>(call.buffers.size());
  if (IsDeviceId(c.op)) {
    if (n != 1 || call.sizes[0] != 4) return fail("writes one u32");
    return absl::OkStatus();
  }
  if (n == 0 || n % 2 != 0) return fail("needs operand and result buffers");
  if (Reduces(c.op)) {
    absl::Status status =
        CheckCollectiveReduction(c.reduction, call.element_type);
    if (!status.ok()) return fail(status.message());
  }
  const int64_t width = ByteWidth(call.element_type);
  if (width <= 0) {
    return fail("elements of ", PrimitiveTypeName(call.element_type),
                " have no size");
  }
  const int64_t operands = n / 2;
  if (c.op == Op::kCollectivePermute && operands != 1) {
    return fail("a permute has one operand");
  }
  const bool tuple_all_to_all = c.op == Op::kAllToAll && operands != 1;
  if (tuple_all_to_all && operands != group_size) {
    return fail("all-to-all has one operand or one per participant");
  }
  for (int64_t i = 0; i < operands; ++i) {
    const int64_t in = call.sizes[i];
    const int64_t out = call.sizes[operands + i];
    const bool fits = c.op == Op::kAllGather       ? out == in * group_size
                      : c.op == Op::kReduceScatter ? in == out * group_size
                      : c.op == Op::kAllToAll && !tuple_all_to_all
                          ? in == out && in % (group_size * width) == 0
                      : tuple_all_to_all ? in == call.sizes[0] && out == in
                                         : in == out;
    if (!fits || in % width != 0 || out % width != 0) {
      return fail("operand ", i, " (", in, " bytes) and its result (", out,
                  " bytes) do not fit a group of ", group_size, " over ",
                  PrimitiveTypeName(call.element_type));
    }
  }
  return absl::OkStatus();
}

bool Overlap(const void* a, int64_t a_size, const void* b, int64_t b_size) {
  const uint8_t* x = static_cast<const uint8_t*>(a);
  const uint8_t* y = static_cast<const uint8_t*>(b);
  return a_size > 0 && b_size > 0 && x < y + b_size && y < x + a_size;
}

}  // namespace

struct HostCollectives::Meeting {
  std::vector<int64_t> participants;
  std::vector<bool> arrived;
  int64_t count = 0;
  int64_t done = 0;
  // Per rank, what it registered.
  std::vector<std::vector<void*>> buffers;
  std::vector<std::vector<int64_t>> sizes;
  std::vector<PrimitiveType> types;
};

HostCollectives::HostCollectives(int64_t num_devices,
                                 std::chrono::milliseconds timeout)
    : timeout_(timeout),
      executions_(std::max<int64_t>(num_devices, 0)),
      state_(std::max<int64_t>(num_devices, 0), 0) {}

void HostCollectives::Finish(int64_t device, bool failed) {
  std::lock_guard<std::mutex> lock(mu_);
  if (device < 0 || device >= num_devices()) return;
  state_[device] = failed ? 2 : 1;
  cv_.notify_all();
}

absl::StatusOr<std::shared_ptr<HostCollectives::Meeting>>
HostCollectives::Arrive(int64_t device, const HostCollectiveCall& call,
                        const std::vector<int64_t>& participants,
                        int64_t rank) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  std::unique_lock<std::mutex> lock(mu_);
  const int64_t execution = executions_[device][call.step]++;
  const Key key{call.step, execution, participants[0]};
  std::shared_ptr<Meeting>& entry = meetings_[key];
  if (entry == nullptr) {
    entry = std::make_shared<Meeting>();
    entry->participants = participants;
    entry->arrived.assign(participants.size(), false);
    entry->buffers.resize(participants.size());
    entry->sizes.resize(participants.size());
    entry->types.resize(participants.size());
  }
  std::shared_ptr<Meeting> meeting = entry;
  if (meeting->participants != participants) {
    return absl::InternalError(
        absl::StrCat("devices disagree on the group of ", Describe(call)));
  }
  const int64_t group_size = static_cast<int64_t>(participants.size());
  meeting->buffers[rank].assign(call.buffers.begin(), call.buffers.end());
  meeting->sizes[rank].assign(call.sizes.begin(), call.sizes.end());
  meeting->types[rank] = call.element_type;
  meeting->arrived[rank] = true;
  if (++meeting->count == group_size) {
    meetings_.erase(key);
    cv_.notify_all();
    return meeting;
  }
  // Leaving early: the peers must not read this device's buffers.
  auto withdraw = [&](absl::Status status) {
    meeting->arrived[rank] = false;
    meeting->buffers[rank].clear();
    if (--meeting->count == 0) meetings_.erase(key);
    return status;
  };
  const std::string where = absl::StrCat(Describe(call), ", run ",
                                         execution + 1, " on device ", device);
  while (meeting->count < group_size) {
    for (int64_t i = 0; i < group_size; ++i) {
      const int64_t peer = participants[i];
      if (meeting->arrived[i] || state_[peer] == 0) continue;
      if (state_[peer] == 2) {
        return withdraw(absl::AbortedError(absl::StrCat(
            "device ", peer, " stopped on an error before ", where)));
      }
      return withdraw(absl::FailedPreconditionError(
          absl::StrCat("device ", peer, " finished without reaching ", where,
                       ": the devices' control flow differs")));
    }
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout &&
        meeting->count < group_size) {
      std::vector<int64_t> missing;
      for (int64_t i = 0; i < group_size; ++i) {
        if (!meeting->arrived[i]) missing.push_back(participants[i]);
      }
      return withdraw(absl::DeadlineExceededError(absl::StrCat(
          where, " waited ", timeout_.count(), " ms for device",
          missing.size() == 1 ? " " : "s ", absl::StrJoin(missing, ", "))));
    }
  }
  return meeting;
}

void HostCollectives::Depart(Meeting& meeting) {
  // Every member got here after a bounded copy or reduction, so this wait
  // needs no timeout.
  std::unique_lock<std::mutex> lock(mu_);
  if (++meeting.done == static_cast<int64_t>(meeting.participants.size())) {
    cv_.notify_all();
    return;
  }
  cv_.wait(lock, [&] {
    return meeting.done == static_cast<int64_t>(meeting.participants.size());
  });
}

absl::Status HostCollectives::Run(int64_t device,
                                  const HostCollectiveCall& call) {
  if (call.config == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("collective step ", call.step, " has no config"));
  }
  const CollectiveConfig& c = *call.config;
  // The group in rank order: everyone for a permute, whose sources say who
  // reads whom.
  std::vector<int64_t> participants;
  if (c.op == Op::kCollectivePermute) {
    if (static_cast<int64_t>(c.sources.size()) != num_devices()) {
      return absl::InvalidArgumentError(absl::StrCat(
          Describe(call), ": needs one source per device of the run"));
    }
    for (int64_t d = 0; d < num_devices(); ++d) participants.push_back(d);
  } else if (!IsDeviceId(c.op)) {
    for (const std::vector<int64_t>& group : c.groups) {
      if (std::find(group.begin(), group.end(), device) != group.end()) {
        participants = group;
      }
    }
    if (participants.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(Describe(call), ": device ", device, " is in no group"));
    }
  }
  const int64_t group_size = static_cast<int64_t>(participants.size());
  absl::Status status = CheckCall(call, num_devices(), device, group_size);
  if (!status.ok()) return status;
  if (IsDeviceId(c.op)) {
    const uint32_t id = static_cast<uint32_t>(c.op == Op::kReplicaId
                                                  ? device / c.num_partitions
                                                  : device % c.num_partitions);
    std::memcpy(call.buffers[0], &id, sizeof(id));
    return absl::OkStatus();
  }
  const int64_t rank =
      std::find(participants.begin(), participants.end(), device) -
      participants.begin();
  absl::StatusOr<std::shared_ptr<Meeting>> met =
      Arrive(device, call, participants, rank);
  if (!met.ok()) return met.status();
  const Meeting& meeting = **met;
  for (int64_t k = 0; k < group_size; ++k) {
    if (meeting.sizes[k] != meeting.sizes[rank] ||
        meeting.types[k] != meeting.types[rank]) {
      status = absl::InvalidArgumentError(
          absl::StrCat(Describe(call), ": devices ", participants[k], " and ",
                       device, " disagree on buffer sizes or element type"));
    }
  }
  const int64_t operands = static_cast<int64_t>(call.buffers.size()) / 2;
  // Results that overlap this device's own operands (which the peers are
  // still reading) go through scratch until everyone is done.
  bool staged = false;
  for (int64_t r = operands; r < 2 * operands; ++r) {
    for (int64_t i = 0; i < operands; ++i) {
      staged |= Overlap(call.buffers[r], call.sizes[r], call.buffers[i],
                        call.sizes[i]);
    }
  }
  std::vector<std::vector<uint8_t>> scratch(staged ? operands : 0);
  auto result = [&](int64_t i) -> uint8_t* {
    if (!staged) return static_cast<uint8_t*>(call.buffers[operands + i]);
    scratch[i].resize(call.sizes[operands + i]);
    return scratch[i].data();
  };
  auto peer = [&](int64_t k, int64_t i) -> const uint8_t* {
    return static_cast<const uint8_t*>(meeting.buffers[k][i]);
  };
  const int64_t width = ByteWidth(call.element_type);
  for (int64_t i = 0; i < operands && status.ok(); ++i) {
    const int64_t in = call.sizes[i];
    const int64_t out = call.sizes[operands + i];
    uint8_t* dst = result(i);
    switch (c.op) {
      case Op::kAllReduce:
      case Op::kReduceScatter: {
        // A reduce-scatter reduces only the chunk of this device's rank.
        const int64_t offset = c.op == Op::kAllReduce ? 0 : rank * out;
        std::vector<const void*> inputs;
        for (int64_t k = 0; k < group_size; ++k) {
          inputs.push_back(peer(k, i) + offset);
        }
        status = ReduceInRankOrder(c.reduction, call.element_type, inputs, dst,
                                   out / width);
        break;
      }
      case Op::kAllGather:
        for (int64_t k = 0; k < group_size; ++k) {
          std::memcpy(dst + k * in, peer(k, i), in);
        }
        break;
      case Op::kAllToAll:
        if (operands == 1) {
          const int64_t chunk = in / group_size;
          for (int64_t k = 0; k < group_size; ++k) {
            std::memcpy(dst + k * chunk, peer(k, 0) + rank * chunk, chunk);
          }
        } else {
          // Result i comes from rank i's operand of this device's rank.
          std::memcpy(dst, peer(i, rank), out);
        }
        break;
      case Op::kCollectivePermute: {
        const int64_t source = c.sources[device];
        if (source < 0) {
          std::memset(dst, 0, out);
        } else {
          std::memcpy(dst, peer(source, 0), out);
        }
        break;
      }
      default:
        status =
            absl::InternalError(absl::StrCat(Describe(call), ": unknown op"));
    }
  }
  Depart(**met);
  if (!status.ok()) return status;
  for (int64_t i = 0; i < static_cast<int64_t>(scratch.size()); ++i) {
    std::memcpy(call.buffers[operands + i], scratch[i].data(),
                scratch[i].size());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Literal>> RunOnHostDevices(
    HostCollectives& collectives,
    const std::function<absl::StatusOr<Literal>(int64_t device)>& run) {
  return RunOnDeviceThreads<Literal>(
      collectives.num_devices(),
      [&](int64_t device) -> absl::StatusOr<Literal> {
        absl::StatusOr<Literal> result = run(device);
        collectives.Finish(device, !result.ok());
        return result;
      });
}

}  // namespace hloc

#include "runtime/graph_streams.h"

#include <algorithm>
#include <map>
#include <utility>

namespace hloc {

StepAccess AccessOf(const ExecutableStep& step) {
  StepAccess access;
  const std::vector<int64_t>& b = step.buffers;
  const size_t n = b.size();
  switch (step.kind) {
    case ExecutableStep::Kind::kKernel: {
      const size_t outputs =
          step.output_buffers < 0
              ? n
              : std::min(n, static_cast<size_t>(step.output_buffers));
      access.reads.assign(b.begin(), b.end() - outputs);
      access.writes.assign(b.end() - outputs, b.end());
      return access;
    }
    case ExecutableStep::Kind::kCopy:
      if (n == 2) {
        access.reads = {b[0]};
        access.writes = {b[1]};
        return access;
      }
      break;
    case ExecutableStep::Kind::kLibraryCall:
      // A gemm reads lhs, rhs and a bias, and writes its output, last.
      if (step.library == "cublas.gemm" && n >= 1) {
        access.reads.assign(b.begin(), b.end() - 1);
        access.writes = {b.back()};
        access.gemm_workspace = true;
        return access;
      }
      break;
    default:
      break;
  }
  access.writes = b;
  access.barrier = true;
  return access;
}

GraphStreams::GraphStreams(const Executable& executable, int streams) {
  const int64_t slots = static_cast<int64_t>(executable.buffers.size());
  overlaps_.resize(slots + 1);
  // Slots by allocation, each allocation's by offset: a slot overlaps the
  // ones after it that start before it ends.
  std::map<int64_t, std::vector<int64_t>> by_allocation;
  for (int64_t i = 0; i < slots; ++i) {
    overlaps_[i].push_back(i);
    if (executable.buffers[i].size > 0) {
      by_allocation[executable.buffers[i].allocation].push_back(i);
    }
  }
  for (auto& [allocation, list] : by_allocation) {
    const auto& buffers = executable.buffers;
    std::sort(list.begin(), list.end(), [&](int64_t x, int64_t y) {
      return buffers[x].offset < buffers[y].offset;
    });
    for (size_t i = 0; i < list.size(); ++i) {
      const int64_t end = buffers[list[i]].offset + buffers[list[i]].size;
      for (size_t j = i + 1; j < list.size() && buffers[list[j]].offset < end;
           ++j) {
        overlaps_[list[i]].push_back(list[j]);
        overlaps_[list[j]].push_back(list[i]);
      }
    }
  }
  overlaps_[slots].push_back(slots);  // the gemm workspace
  const int k = std::max(1, streams);
  count_.assign(k, 0);
  state_.resize(slots + 1);
  Reset();
}

void GraphStreams::Reset() {
  const size_t k = count_.size();
  std::fill(count_.begin(), count_.end(), 0);
  last_used_.assign(k, -1);
  clocks_.assign(k, {});
  issued_at_.assign(k, {});
  for (SlotState& s : state_) {
    s.writer = Position();
    s.readers.assign(k, 0);
  }
  barrier_ = Position();
  issued_ = 0;
}

void GraphStreams::Need(const Position& p, std::vector<int64_t>* need) const {
  if (p.index > 0) (*need)[p.stream] = std::max((*need)[p.stream], p.index);
}

GraphStreams::Placement GraphStreams::Place(const StepAccess& access) {
  const int k = streams();
  // need[t]: how many of stream t's steps this one must come after.
  std::vector<int64_t> need(k, 0);
  Need(barrier_, &need);
  if (access.barrier) need = count_;
  for (int64_t slot : access.reads) {
    for (int64_t o : overlaps_[slot]) Need(state_[o].writer, &need);
  }
  std::vector<int64_t> writes = access.writes;
  const int64_t workspace = static_cast<int64_t>(state_.size()) - 1;
  if (access.gemm_workspace) writes.push_back(workspace);
  for (int64_t slot : writes) {
    for (int64_t o : overlaps_[slot]) {
      Need(state_[o].writer, &need);
      for (int t = 0; t < k; ++t) {
        need[t] = std::max(need[t], state_[o].readers[t]);
      }
    }
  }
  // Continue the chain of the latest stream whose last step this one
  // needs; depending on no stream's last step, start a branch on the
  // stream idle longest.
  int s = -1;
  for (int t = 0; t < k; ++t) {
    if (need[t] > 0 && need[t] == count_[t] &&
        (s < 0 || last_used_[t] > last_used_[s])) {
      s = t;
    }
  }
  if (s < 0) {
    s = 0;
    for (int t = 1; t < k; ++t) {
      if (last_used_[t] < last_used_[s]) s = t;
    }
  }
  Placement placement;
  placement.stream = s;
  std::vector<int64_t> known =
      count_[s] > 0 ? clocks_[s].back() : std::vector<int64_t>(k, 0);
  // The latest needed steps first: the likeliest to be ordered after the
  // others already, which then need no wait.
  std::vector<int> order;
  for (int t = 0; t < k; ++t) {
    if (t != s && need[t] > 0) order.push_back(t);
  }
  std::sort(order.begin(), order.end(), [&](int x, int y) {
    return issued_at_[x][need[x] - 1] > issued_at_[y][need[y] - 1];
  });
  for (int t : order) {
    if (need[t] <= known[t]) continue;
    placement.waits.push_back({t, need[t]});
    // That step, and what was ordered before it.
    const std::vector<int64_t>& clock = clocks_[t][need[t] - 1];
    for (int u = 0; u < k; ++u) known[u] = std::max(known[u], clock[u]);
  }
  const Position self{s, ++count_[s]};
  last_used_[s] = ++issued_;
  known[s] = self.index;
  clocks_[s].push_back(std::move(known));
  issued_at_[s].push_back(issued_);
  for (int64_t slot : access.reads) {
    state_[slot].readers[s] = std::max(state_[slot].readers[s], self.index);
  }
  for (int64_t slot : writes) {
    state_[slot].writer = self;
    std::fill(state_[slot].readers.begin(), state_[slot].readers.end(), 0);
  }
  if (access.barrier) barrier_ = self;
  return placement;
}

bool GraphStreams::Branched() const {
  for (int s = 1; s < streams(); ++s) {
    if (Used(s)) return true;
  }
  return false;
}

}  // namespace hloc

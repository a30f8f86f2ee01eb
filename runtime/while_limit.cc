#include "runtime/while_limit.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace hloc {
namespace {

struct WhileLimitState {
  int64_t limit = 0;
  bool stopped = false;
  std::string loop;  // The loop that was stopped.
};

thread_local WhileLimitState state;

}  // namespace

struct ScopedWhileLimit::Saved {
  WhileLimitState previous;
};

ScopedWhileLimit::ScopedWhileLimit(int64_t max_iterations)
    : saved_(new Saved{state}) {
  state = WhileLimitState();
  state.limit = max_iterations > 0 ? max_iterations : 0;
}

ScopedWhileLimit::~ScopedWhileLimit() {
  state = std::move(saved_->previous);
  delete saved_;
}

absl::Status ScopedWhileLimit::status() const {
  if (!state.stopped) return absl::OkStatus();
  return absl::DeadlineExceededError(absl::StrCat(
      "while loop ", state.loop, " did not finish within ", state.limit,
      " iterations (the limit given; --max-while-iterations)"));
}

}  // namespace hloc

extern "C" int32_t hloc_while_iteration(const char* loop, int64_t iteration) {
  hloc::WhileLimitState& s = hloc::state;
  if (s.stopped) return 1;
  if (s.limit == 0 || iteration < s.limit) return 0;
  s.stopped = true;
  s.loop = loop;
  return 1;
}

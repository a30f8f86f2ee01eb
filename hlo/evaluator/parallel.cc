#include "hlo/evaluator/parallel.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace hloc {
namespace eval {

void ParallelFor(int64_t n, int64_t grain,
                 const std::function<void(int64_t, int64_t)>& fn) {
  static const int64_t kMaxThreads = [] {
    const int64_t hw = std::thread::hardware_concurrency();
    return std::max<int64_t>(1, std::min<int64_t>(hw, 32));
  }();
  const int64_t threads =
      std::min<int64_t>(kMaxThreads, n / std::max<int64_t>(grain, 1));
  if (threads <= 1) {
    if (n > 0) fn(0, n);
    return;
  }
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  const int64_t chunk = (n + threads - 1) / threads;
  for (int64_t t = 1; t < threads; ++t) {
    const int64_t begin = t * chunk;
    const int64_t end = std::min(n, begin + chunk);
    if (begin >= end) break;
    workers.emplace_back([&fn, begin, end] { fn(begin, end); });
  }
  fn(0, std::min(n, chunk));
  for (std::thread& w : workers) w.join();
}

}  // namespace eval
}  // namespace hloc

// Splitting work over threads without changing results: every element is
// computed by one thread in the same order, whatever the thread count.
#ifndef HLO_EVALUATOR_PARALLEL_H_
#define HLO_EVALUATOR_PARALLEL_H_

#include <cstdint>
#include <functional>

namespace hloc {
namespace eval {

// Runs fn over [0, n) split into contiguous chunks on several threads when
// n is at least 2 * grain (else fn(0, n) on the calling thread).
void ParallelFor(int64_t n, int64_t grain,
                 const std::function<void(int64_t, int64_t)>& fn);

}  // namespace eval
}  // namespace hloc

#endif  // HLO_EVALUATOR_PARALLEL_H_

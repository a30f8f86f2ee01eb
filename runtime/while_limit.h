// The iteration limit of compiled while loops (hlo-run
// --max-while-iterations on the cpu platform), so a loop that never ends
// can be stopped with an error instead of hanging the run.
//
// A kernel is `void f(void** buffers)` and cannot return a status, so a
// while kernel (backends/cpu/control_flow_emitter.cc) asks the runtime
// before each iteration of its body, through the kernel runtime symbol
// hloc_while_iteration (runtime/kernel_symbols.h). Past the limit the
// runtime records which loop it was and says stop: the kernel leaves its
// loop, every enclosing loop stops at its next question, and the executor,
// which checks after each step, returns the recorded error. The limit and
// the record are per thread: kernels of a run ask from the thread that
// runs its steps (OpenMP workers only run loops inside kernels), and runs
// on other threads have their own.
#ifndef RUNTIME_WHILE_LIMIT_H_
#define RUNTIME_WHILE_LIMIT_H_

#include <cstdint>

#include "absl/status/status.h"

namespace hloc {

// Sets the calling thread's limit for its lifetime (0: none) and clears
// any earlier record; restores the previous limit and record after.
class ScopedWhileLimit {
 public:
  explicit ScopedWhileLimit(int64_t max_iterations);
  ~ScopedWhileLimit();
  ScopedWhileLimit(const ScopedWhileLimit&) = delete;
  ScopedWhileLimit& operator=(const ScopedWhileLimit&) = delete;

  // OK, or DeadlineExceeded naming the first loop that went past the
  // limit, worded as the evaluator's error (hlo/evaluator) is.
  absl::Status status() const;

 private:
  struct Saved;
  Saved* saved_;
};

}  // namespace hloc

// What a compiled while kernel calls before running its body for the
// `iteration`-th time (from 0): nonzero means stop (the limit is reached, or
// another loop of this run was stopped). `loop` is the while instruction's
// name, a NUL-terminated string the kernel's module holds.
extern "C" int32_t hloc_while_iteration(const char* loop, int64_t iteration);

#endif  // RUNTIME_WHILE_LIMIT_H_

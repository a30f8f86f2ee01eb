// Denormal (subnormal) f32/f64 values, handled as XLA handles them: XLA's
// CPU and GPU runtimes flush them -- a denormal input of an arithmetic
// instruction reads as a zero of its sign (DAZ) and a denormal result is
// written as one (FTZ). So for x = [-1e-40, 1e-39], XLA:CPU's sqrt(x) is
// [-0, 0] and log(x) is [-inf, -inf], where IEEE arithmetic gives NaN and
// -89.8.
//
// The CPU executor runs kernels in the mode the caller asks for (flushing by
// default); the reference evaluator is plain IEEE C++ code, so hlo-run gives
// it the same environment: ScopedDenormalMode around the run (threads it
// starts inherit the mode, as POSIX threads inherit the floating-point
// environment) and FlushDenormals on its f32/f64 inputs (but those only
// bitcast-converts read, whose bits XLA moves exactly), bf16 and complex
// ones included, whose values are f32/f64 values when computed on (library
// functions such as logf and clogf classify their argument with integer
// instructions, which DAZ does not reach: log of a bf16 1e-40 was -104
// where XLA:CPU gives -inf).
//
// OpenMP's worker threads are created once and keep their own control
// registers, so kernels call ParallelInCallersDenormalMode instead of
// libgomp's GOMP_parallel directly: it runs each worker in the calling
// thread's mode.
#ifndef RUNTIME_DENORMALS_H_
#define RUNTIME_DENORMALS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

#include "hlo/literal.h"

namespace hloc {

enum class DenormalMode {
  kFlush,  // FTZ and DAZ, as XLA's runtimes (the default).
  kKeep,   // IEEE gradual underflow.
};

// "flush" or "keep".
const char* DenormalModeName(DenormalMode mode);

// Sets the calling thread's denormal mode (x86 MXCSR FTZ and DAZ; AArch64
// FPCR FZ) for its lifetime and restores the previous state after.
class ScopedDenormalMode {
 public:
  explicit ScopedDenormalMode(DenormalMode mode);
  ~ScopedDenormalMode();
  ScopedDenormalMode(const ScopedDenormalMode&) = delete;
  ScopedDenormalMode& operator=(const ScopedDenormalMode&) = delete;

 private:
  uint64_t saved_;
};

// Replaces every denormal f32/f64/bf16 element and every denormal part of a
// c64/c128 element of `literal` (tuples too) by a zero of its sign; returns
// how many it replaced.
int64_t FlushDenormals(Literal* literal);

// Copies of `literals` with their denormals flushed (FlushDenormals): the
// inputs of a run that reads them as zeros, the caller's own untouched.
// Call it (as FlushDenormals) before a ScopedDenormalMode(kFlush): under
// DAZ its test for a denormal, a comparison, sees a zero.
std::vector<Literal> FlushedCopies(absl::Span<const Literal> literals);

// GOMP_parallel(fn, data, num_threads, flags) whose workers run `fn` in the
// calling thread's denormal mode. The kernels' "GOMP_parallel" symbol
// resolves here (backends/cpu/jit.cc, runtime/object_loader.cc).
extern "C" void ParallelInCallersDenormalMode(void (*fn)(void*), void* data,
                                              unsigned num_threads,
                                              unsigned flags);

}  // namespace hloc

#endif  // RUNTIME_DENORMALS_H_

// Where a backend compile spends its time after the HLO pipeline, for
// tools/compile_bench and hlo-opt --time-passes: the kernel emitters (HLO ->
// LLVM IR), LLVM's optimisation pipeline, the target's code generator (PTX or
// object code) and ptxas. A compile adds to the struct its options point at;
// with no struct (the default) nothing is measured.
#ifndef BACKENDS_COMMON_COMPILE_PHASE_TIMES_H_
#define BACKENDS_COMMON_COMPILE_PHASE_TIMES_H_

#include <chrono>

namespace hloc {

struct CompilePhaseTimes {
  double emit_s = 0;      // HLO -> LLVM IR: the kernel emitters.
  double optimize_s = 0;  // LLVM's pipeline (and linking libdevice).
  double codegen_s = 0;   // LLVM IR -> PTX or object code.
  double assemble_s = 0;  // PTX -> cubin: ptxas, when the compile runs it.
};

// Adds the wall time of its scope to *seconds (nothing when null).
class ScopedPhaseTimer {
 public:
  explicit ScopedPhaseTimer(double* seconds)
      : seconds_(seconds), start_(std::chrono::steady_clock::now()) {}
  ~ScopedPhaseTimer() {
    if (seconds_ == nullptr) return;
    *seconds_ += std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - start_)
                     .count();
  }
  ScopedPhaseTimer(const ScopedPhaseTimer&) = delete;
  ScopedPhaseTimer& operator=(const ScopedPhaseTimer&) = delete;

 private:
  double* seconds_;
  std::chrono::steady_clock::time_point start_;
};

// The field of `times` to add to, or null when `times` is.
inline double* PhaseField(CompilePhaseTimes* times,
                          double CompilePhaseTimes::*field) {
  return times == nullptr ? nullptr : &(times->*field);
}

}  // namespace hloc

#endif  // BACKENDS_COMMON_COMPILE_PHASE_TIMES_H_

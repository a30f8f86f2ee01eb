// Counts the kernels a module leaves: the measure fusion is judged by
// (tools/fusion_stats compares it with XLA:GPU's optimized HLO).
//
// In the entry computation and, through while/conditional/call, the bodies it
// runs, every fusion is one kernel, every custom-call is one (a library call
// such as a cuBLAS GEMM), and so is every other op except those that move no
// data: parameter, constant, tuple, get-tuple-element, bitcast, a reshape
// that is a bitcast (row-major layouts on both sides), and the control-flow
// ops themselves (their bodies are counted instead). The same rule applies to
// our output and to XLA's.
#ifndef PASSES_FUSION_KERNEL_COUNT_H_
#define PASSES_FUSION_KERNEL_COUNT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/module.h"

namespace hloc {

struct KernelCount {
  int64_t fusions = 0;
  int64_t unfused = 0;  // Non-trivial ops outside fusions (incl. custom-calls).
  // "fusion.3 (kLoop)", "dot.1 (dot)", one per kernel, in order.
  std::vector<std::string> kernels;
  int64_t total() const { return fusions + unfused; }
};

KernelCount CountKernels(const HloModule& module);

}  // namespace hloc

#endif  // PASSES_FUSION_KERNEL_COUNT_H_

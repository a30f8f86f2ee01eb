// The GPU's LoopMapping (backends/common/loop_emitter.h): block and thread
// ids give each thread `vectors` runs of `unroll` consecutive linear
// positions of the iteration shape (physical order; launch_dims.h's
// LoopLaunch says which), bounds-checked. Threads whose runs are all whole
// take one unchecked block: consecutive accesses, read and written as one
// vector a run where the loop emitter hands its runs over
// (EmitLoopNestInRuns), with every run's loads free to issue before the
// first run computes. Only the threads at
// the end check, a run at a time when the element count is a multiple of
// `unroll`, else every element.
#ifndef BACKENDS_GPU_LOOP_MAPPING_H_
#define BACKENDS_GPU_LOOP_MAPPING_H_

#include "backends/common/loop_emitter.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/launch_dims.h"

namespace hloc {

class GpuLoopMapping : public LoopMapping {
 public:
  GpuLoopMapping(KernelBuilder* kernel, const LoopLaunch& launch)
      : kernel_(kernel), launch_(launch) {}

  absl::Status EmitLoopNest(const Shape& shape, const BodyEmitter& body,
                            llvm::IRBuilderBase* b) override;
  absl::Status EmitLoopNestInRuns(const Shape& shape, const BodyEmitter& body,
                                  const RunEmitter& run,
                                  llvm::IRBuilderBase* b) override;

 private:
  KernelBuilder* kernel_;
  LoopLaunch launch_;
};

}  // namespace hloc

#endif  // BACKENDS_GPU_LOOP_MAPPING_H_

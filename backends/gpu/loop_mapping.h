// The GPU's LoopMapping (backends/common/loop_emitter.h): block and thread
// ids give each thread `unroll` consecutive linear positions of the
// iteration shape (physical order), bounds-checked. When the element count
// is a multiple of `unroll`, one check covers a thread's whole run; else
// full runs take an unchecked path and only the last, partial run checks
// every element. The unchecked run is one basic block of consecutive
// accesses, which LLVM's load/store vectorizer turns into 16-byte vector
// loads and stores.
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

 private:
  KernelBuilder* kernel_;
  LoopLaunch launch_;
};

}  // namespace hloc

#endif  // BACKENDS_GPU_LOOP_MAPPING_H_

// The GPU kernel emitters, one per kind of kernel (see gpu_kernel_emitter.h
// for which instruction gets which). Each emits one kernel named `symbol`
// into `module` and returns its launch dimensions; on error the kernel is
// gone from the module again.
#ifndef BACKENDS_GPU_KERNEL_EMITTERS_H_
#define BACKENDS_GPU_KERNEL_EMITTERS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/common/kernel_analysis.h"
#include "backends/gpu/gpu_kernel_emitter.h"
#include "backends/gpu/gpu_target.h"

namespace hloc {

struct KernelRequest {
  const GpuTarget* target;
  llvm::Module* module;
  const KernelInfo* info;
  const KernelBuffers* buffers;
  std::string symbol;
};

// The outputs `outputs` (indices into info.outputs, all of one dimensions)
// computed element by element.
absl::StatusOr<LaunchDims> EmitLoopKernel(const KernelRequest& request,
                                          const std::vector<size_t>& outputs);

// A dynamic-update-slice (the instruction, or a fusion's root) writing into
// its operand's buffer: only the update's elements are visited.
absl::StatusOr<LaunchDims> EmitInPlaceDynamicUpdateSliceKernel(
    const KernelRequest& request, const HloInstruction* dus);

// Whether `r` reduces contiguous rows (the reduced dimensions are the
// physically most minor ones): EmitRowReductionKernel's case.
bool IsContiguousRowReduction(const ReductionInfo& r);

// A reduction kernel (reduce, or kInput fusion with multi-output) whose
// reduces each reduce contiguous rows: warp shuffles, shared memory.
absl::StatusOr<LaunchDims> EmitRowReductionKernel(const KernelRequest& request,
                                                  const ReductionInfo& r);

// Ops with kernels of their own (op_kernels.cc): how many kernel steps
// `op` (the kernel's instruction or its fused root) takes, in order; 0 when
// it is not such an op.
int OpKernelSteps(const KernelRequest& request, const HloInstruction* op);
// Step `step` of those.
absl::StatusOr<LaunchDims> EmitOpKernel(const KernelRequest& request,
                                        const HloInstruction* op, int step);

// A sort (sort_emitter.cc): a block per row, bitonic in shared memory.
absl::StatusOr<LaunchDims> EmitSortKernel(const KernelRequest& request,
                                          const HloInstruction* sort);
// The k first of every row of a topk, by the same sort.
absl::StatusOr<LaunchDims> EmitTopKKernel(const KernelRequest& request,
                                          const HloInstruction* topk);

// A scatter (scatter_emitter.cc): copy the operands to the outputs unless
// they are in place, then apply the updates.
int ScatterKernelSteps(const KernelRequest& request,
                       const HloInstruction* scatter);
absl::StatusOr<LaunchDims> EmitScatterKernel(const KernelRequest& request,
                                             const HloInstruction* scatter,
                                             int step);

// A select-and-scatter (select_and_scatter_emitter.cc): step 0 fills the
// output with the init value, step 1 scatters.
absl::StatusOr<LaunchDims> EmitSelectAndScatterKernel(
    const KernelRequest& request, const HloInstruction* hlo, int step);

// A scan with an elementwise body (scan_emitter.cc): a thread per slice
// element walks the scan dimension.
absl::StatusOr<LaunchDims> EmitScanKernel(const KernelRequest& request,
                                          const HloInstruction* scan);

}  // namespace hloc

#endif  // BACKENDS_GPU_KERNEL_EMITTERS_H_

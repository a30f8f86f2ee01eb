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

// A loop fusion whose output is made of `concat` (kernel_analysis.h,
// FindConcatenateHero): each operand's elements are visited in turn and
// written at their offset.
absl::StatusOr<LaunchDims> EmitConcatenateKernel(const KernelRequest& request,
                                                 const HloInstruction* concat);

// A dynamic-update-slice (the instruction, or a fusion's root) writing into
// its operand's buffer: only the update's elements are visited.
absl::StatusOr<LaunchDims> EmitInPlaceDynamicUpdateSliceKernel(
    const KernelRequest& request, const HloInstruction* dus);

// Whether `r` reduces contiguous rows (the reduced dimensions are the
// physically most minor ones): EmitRowReductionKernel's case.
bool IsContiguousRowReduction(const ReductionInfo& r);

// A reduction kernel (reduce, or kInput fusion with multi-output and
// epilogue outputs, AnalyzeReduction(allow_epilogue)) whose reduces each
// reduce contiguous rows: warp shuffles, shared memory.
absl::StatusOr<LaunchDims> EmitRowReductionKernel(const KernelRequest& request,
                                                  const ReductionInfo& r);

// Ops with kernels of their own (op_kernels.cc): how many kernel steps
// `op` (the kernel's instruction or its fused root) takes, in order; 0 when
// it is not such an op.
int OpKernelSteps(const KernelRequest& request, const HloInstruction* op);
// Step `step` of those.
absl::StatusOr<LaunchDims> EmitOpKernel(const KernelRequest& request,
                                        const HloInstruction* op, int step);

// The dot a tiled dot kernel computes (tiled_dot_emitter.cc) for this
// kernel: an unfused dot, an unfused ragged-dot of the grouped-matmul form
// (hlo/ragged_dot.h), or a fusion's single dot whose only output reads it
// at the output's own position (a kDotEpilogue); nullptr otherwise.
const HloInstruction* FindTiledDot(const KernelInfo& info);

// A dot through shared-memory tiles, a register tile per thread (or MFMA
// per wave where the target has matrix cores).
absl::StatusOr<LaunchDims> EmitTiledDotKernel(const KernelRequest& request,
                                              const HloInstruction* dot);

// A sort (sort_emitter.cc): a block per row, bitonic in shared memory.
absl::StatusOr<LaunchDims> EmitSortKernel(const KernelRequest& request,
                                          const HloInstruction* sort);
// The k first of every row of a topk, by the same sort.
absl::StatusOr<LaunchDims> EmitTopKKernel(const KernelRequest& request,
                                          const HloInstruction* topk);

// The radix sort custom call (radix_sort_emitter.cc,
// passes/radix_sort_plan.h): three kernels a digit pass.
bool IsRadixSortCall(const HloInstruction* op);
int RadixSortKernelSteps(const HloInstruction* call);
absl::StatusOr<LaunchDims> EmitRadixSortKernel(const KernelRequest& request,
                                               const HloInstruction* call,
                                               int step);

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

// A depthwise convolution (depthwise_conv.h; unfused) by
// depthwise_conv_emitter.cc: a thread per vector of channels and tile of
// outputs along W, the filter staged in shared memory.
absl::StatusOr<LaunchDims> EmitDepthwiseConvolutionKernel(
    const KernelRequest& request, const HloInstruction* conv);

// A scan with an elementwise body (scan_emitter.cc): a thread per slice
// element walks the scan dimension.
// Long rows of few are scanned in three steps (row_scan_emitter.cc).
int ScanKernelSteps(const KernelRequest& request, const HloInstruction* scan);
absl::StatusOr<LaunchDims> EmitScanKernel(const KernelRequest& request,
                                          const HloInstruction* scan, int step);

// Whether `r` keeps the physically minor dimension and its reduced
// dimensions are contiguous in physical order (input seen as [outer,
// reduced, columns]): EmitColumnReductionKernel's case.
bool IsColumnReduction(const ReductionInfo& r);

// A reduction kernel over columns: lanes along the kept minor columns
// (coalesced, vector loads), warps over rows, one deterministic pass;
// epilogue outputs as EmitRowReductionKernel's.
absl::StatusOr<LaunchDims> EmitColumnReductionKernel(
    const KernelRequest& request, const ReductionInfo& r);

// The transpose that moves the minor dimension (alone, or in a loop fusion
// whose one output it reaches through elementwise ops only, the fusion's
// other outputs being of the transpose operand's dimensions and minor
// dimension) for EmitTransposeKernel, or nullptr.
const HloInstruction* FindTransposeHero(const KernelInfo& info);

// A transpose (kernel) through shared-memory tiles, coalesced on both
// sides.
absl::StatusOr<LaunchDims> EmitTransposeKernel(const KernelRequest& request,
                                               const HloInstruction* hero);

// True for a row-reduction fusion (fusion_kinds.h, kRowReduction), and for
// a reduction fusion whose reduces are row reductions that fit a block.
bool IsRowFusion(const HloInstruction& hlo);

// A row-reduction fusion (softmax, layer norm, log-softmax) as one kernel:
// a group of threads per row, the row's inputs read once into registers,
// every reduction and the epilogue in the same kernel.
absl::StatusOr<LaunchDims> EmitRowFusionKernel(const KernelRequest& request);

}  // namespace hloc

#endif  // BACKENDS_GPU_KERNEL_EMITTERS_H_

// Which ops have kernels of their own and how many steps each takes: the
// one place gpu_kernel_emitter.cc asks, so adding an op touches this file
// and its emitter only.
#include "backends/gpu/depthwise_conv.h"
#include "backends/gpu/kernel_emitters.h"

namespace hloc {

int OpKernelSteps(const KernelRequest& request, const HloInstruction* op) {
  switch (op->opcode()) {
    case HloOpcode::kSort:
    case HloOpcode::kTopK:
      return 1;
    case HloOpcode::kScan:
      return ScanKernelSteps(request, op);
    case HloOpcode::kScatter:
      return ScatterKernelSteps(request, op);
    case HloOpcode::kSelectAndScatter:
      return 2;
    case HloOpcode::kCustomCall:
      return IsRadixSortCall(op) ? RadixSortKernelSteps(op) : 0;
    case HloOpcode::kConvolution:
      return !request.info->fused && MatchDepthwiseConvolution(*op) ? 1 : 0;
    default:
      return 0;
  }
}

absl::StatusOr<LaunchDims> EmitOpKernel(const KernelRequest& request,
                                        const HloInstruction* op, int step) {
  switch (op->opcode()) {
    case HloOpcode::kSort:
      return EmitSortKernel(request, op);
    case HloOpcode::kTopK:
      return EmitTopKKernel(request, op);
    case HloOpcode::kScatter:
      return EmitScatterKernel(request, op, step);
    case HloOpcode::kSelectAndScatter:
      return EmitSelectAndScatterKernel(request, op, step);
    case HloOpcode::kScan:
      return EmitScanKernel(request, op, step);
    case HloOpcode::kConvolution:
      return EmitDepthwiseConvolutionKernel(request, op);
    case HloOpcode::kCustomCall:
      if (IsRadixSortCall(op)) return EmitRadixSortKernel(request, op, step);
      return CodegenUnimplemented(*op, "no GPU kernel of its own");
    default:
      return CodegenUnimplemented(*op, "no GPU kernel of its own");
  }
}

}  // namespace hloc

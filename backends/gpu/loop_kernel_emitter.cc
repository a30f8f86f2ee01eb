// Loop kernels: the elemental emitter computes every element, the GPU loop
// mapping (loop_mapping.h) spreads the elements over threads.
#include <algorithm>

#include "backends/common/in_place_update.h"
#include "backends/common/loop_emitter.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/loop_mapping.h"
#include "hlo/status_macros.h"

namespace hloc {

absl::StatusOr<LaunchDims> EmitLoopKernel(const KernelRequest& request,
                                          const std::vector<size_t>& outputs) {
  const KernelInfo& info = *request.info;
  if (outputs.size() == 1) {
    if (const HloInstruction* concat = FindConcatenateHero(info)) {
      return EmitConcatenateKernel(request, concat);
    }
  }
  const Shape& iteration = info.output_shapes[outputs[0]];
  int64_t widest = 1;
  for (size_t o : outputs) {
    widest = std::max<int64_t>(widest,
                               ByteWidth(info.output_shapes[o].element_type()));
  }
  LoopLaunch launch = ComputeLoopLaunch(
      iteration.ElementCount(), widest, request.target->device(),
      WidestStreamedInputBytes(info, iteration.ElementCount()));
  bool index64 =
      !Use32BitIndexing(MaxElementsTouched(info), launch.LaunchedElements());
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, launch.threads_per_block, index64);
  absl::Status status = [&]() -> absl::Status {
    std::vector<ElementGenerator> generators;
    std::vector<IrArray> arrays;
    for (size_t o : outputs) {
      HLOC_ASSIGN_OR_RETURN(ElementGenerator g,
                            kernel.generators().ForOutput(info.outputs[o]));
      generators.push_back(std::move(g));
      arrays.push_back(kernel.output(o));
    }
    LoopEmitter emitter(std::move(generators), std::move(arrays), kernel.b());
    GpuLoopMapping mapping(&kernel, launch);
    return emitter.EmitLoop(mapping);
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return launch.dims;
}

absl::StatusOr<LaunchDims> EmitInPlaceDynamicUpdateSliceKernel(
    const KernelRequest& request, const HloInstruction* dus) {
  const KernelInfo& info = *request.info;
  const Shape& out = info.output_shapes[0];
  const Shape update = dus->operand(1)->shape();
  LoopLaunch launch =
      ComputeLoopLaunch(update.ElementCount(), ByteWidth(out.element_type()),
                        request.target->device());
  bool index64 =
      !Use32BitIndexing(MaxElementsTouched(info), launch.LaunchedElements());
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, launch.threads_per_block, index64);
  absl::Status status = [&]() -> absl::Status {
    HLOC_ASSIGN_OR_RETURN(LoopMapping::BodyEmitter body,
                          InPlaceDynamicUpdateSliceBody(
                              *dus, kernel.generators(), kernel.output(0),
                              kernel.index_type(), kernel.b()));
    GpuLoopMapping mapping(&kernel, launch);
    return mapping.EmitLoopNest(dus->operand(1)->shape(), body, kernel.b());
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return launch.dims;
}

}  // namespace hloc

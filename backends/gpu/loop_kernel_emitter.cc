// Loop kernels: the elemental emitter computes every element, the GPU loop
// mapping (loop_mapping.h) spreads the elements over threads.
#include <algorithm>

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
    llvm::IRBuilderBase* b = kernel.b();
    HLOC_ASSIGN_OR_RETURN(ElementGenerator update_gen,
                          kernel.generators().Get(dus->operand(1)));
    std::vector<ElementGenerator> starts;
    for (int64_t d = 0; d < out.rank(); ++d) {
      HLOC_ASSIGN_OR_RETURN(ElementGenerator g,
                            kernel.generators().Get(dus->operand(2 + d)));
      starts.push_back(std::move(g));
    }
    const IrArray& output = kernel.output(0);
    // The update's elements, each stored at start + its index; the rest of
    // the buffer already holds the operand.
    GpuLoopMapping mapping(&kernel, launch);
    return mapping.EmitLoopNest(
        update,
        [&](const IrIndex& index) -> absl::Status {
          HLOC_ASSIGN_OR_RETURN(llvm::Value * value, update_gen(index));
          std::vector<llvm::Value*> out_index;
          for (int64_t d = 0; d < out.rank(); ++d) {
            HLOC_ASSIGN_OR_RETURN(
                llvm::Value * start,
                EmitClampedStartIndex(
                    starts[d], dus->operand(2 + d)->shape().element_type(),
                    out.dimensions(d) - update.dimensions(d),
                    kernel.index_type(), b));
            out_index.push_back(b->CreateAdd(start, index[d], "", true, true));
          }
          return output.EmitWrite(IrIndex(out_index, kernel.index_type()),
                                  value, b);
        },
        b);
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return launch.dims;
}

}  // namespace hloc

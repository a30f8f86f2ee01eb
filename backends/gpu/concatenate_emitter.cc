// Loop fusions made of a concatenate (kernel_analysis.h,
// FindConcatenateHero): the kernel walks each operand's elements in turn,
// one loop nest per operand over the same threads, and writes each element
// at its offset along the concatenated dimension, computed through the
// fused ops after the concatenate (XLA:GPU's concatenate fusion does the
// same). Asked element by element, the concatenate would pick its operand
// with a branch per element, and the branches keep every access scalar: a
// rotary embedding's concatenate of two half rows ran at a third of the
// bandwidth that way (rmsnorm_rotary, H100).
//
// The concatenate's generator gives the operand and index the loop selects
// (kernel_builder.h, ConcatenateHero): its users only read it at the
// output's own position (FindConcatenateHero's condition), which the loop
// computes from that same operand index.
#include <algorithm>
#include <memory>

#include "backends/common/loop_emitter.h"
#include "backends/gpu/kernel_builder.h"
#include "backends/gpu/kernel_emitters.h"
#include "backends/gpu/launch_dims.h"
#include "backends/gpu/loop_mapping.h"
#include "hlo/status_macros.h"

namespace hloc {

absl::StatusOr<LaunchDims> EmitConcatenateKernel(const KernelRequest& request,
                                                 const HloInstruction* concat) {
  const KernelInfo& info = *request.info;
  const Shape& output_shape = info.output_shapes[0];
  const int64_t dim = concat->dimensions().at(0);
  int64_t largest = 0;
  for (const HloInstruction* operand : concat->operands()) {
    largest = std::max(largest, operand->shape().ElementCount());
  }
  LoopLaunch launch = ComputeLoopLaunch(
      largest, ByteWidth(output_shape.element_type()), request.target->device(),
      WidestStreamedInputBytes(info, largest));
  bool index64 =
      !Use32BitIndexing(MaxElementsTouched(info), launch.LaunchedElements());
  KernelBuilder kernel(*request.target, request.module, info, *request.buffers,
                       request.symbol, launch.threads_per_block, index64);
  absl::Status status = [&]() -> absl::Status {
    llvm::IRBuilderBase* b = kernel.b();
    HLOC_ASSIGN_OR_RETURN(ConcatenateHero hero,
                          ConcatenateHero::Bind(concat, kernel));
    HLOC_ASSIGN_OR_RETURN(ElementGenerator root,
                          kernel.generators().ForOutput(info.outputs[0]));
    const IrArray& output = kernel.output(0);
    GpuLoopMapping mapping(&kernel, launch);
    int64_t offset = 0;
    for (size_t j = 0; j < hero.operand_count(); ++j) {
      const Shape& shape = concat->operand(j)->shape();
      const int64_t this_offset = offset;
      offset += shape.dimensions(dim);
      if (shape.ElementCount() == 0) continue;
      HLOC_RETURN_IF_ERROR(mapping.EmitLoopNest(
          shape,
          [&](const IrIndex& index) -> absl::Status {
            hero.Select(j, index);
            // The concatenate's linear position is the output's (both
            // row-major, same element count).
            llvm::Value* linear =
                PositionInConcatenate(concat, this_offset, index, kernel);
            const IrIndex out = IrIndex::FromLinear(linear, output_shape, b);
            HLOC_ASSIGN_OR_RETURN(llvm::Value * value, root(out));
            return output.EmitWrite(out, value, b);
          },
          b));
    }
    return absl::OkStatus();
  }();
  HLOC_RETURN_IF_ERROR(kernel.Finish(status));
  return launch.dims;
}

}  // namespace hloc

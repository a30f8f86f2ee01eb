// A dynamic-update-slice whose output buffer is its updated operand's
// (runtime/buffer_assignment.h, InPlaceOperand; the buffer plan decides
// when that is safe): the buffer already holds the operand, so the kernel
// stores the update's elements alone instead of writing every element of
// the output. A scan that stacks one row per step into a carried array
// then costs a row a step, not the whole array. The CPU and GPU kernels
// share this body and differ only in how they walk the update's shape.
#ifndef BACKENDS_COMMON_IN_PLACE_UPDATE_H_
#define BACKENDS_COMMON_IN_PLACE_UPDATE_H_

#include "absl/status/statusor.h"
#include "backends/common/ir_array.h"
#include "backends/common/kernel_generators.h"
#include "backends/common/loop_emitter.h"
#include "hlo/instruction.h"

namespace hloc {

// The loop body over `dus`'s update shape (dus->operand(1)->shape()) that
// stores update element i at start + i of `output`, the starts clamped as
// XLA clamps them. `dus` is the kernel's instruction or its fused root;
// `generators` compute its update and starts.
absl::StatusOr<LoopMapping::BodyEmitter> InPlaceDynamicUpdateSliceBody(
    const HloInstruction& dus, KernelGenerators& generators,
    const IrArray& output, llvm::Type* index_type, llvm::IRBuilderBase* b);

}  // namespace hloc

#endif  // BACKENDS_COMMON_IN_PLACE_UPDATE_H_

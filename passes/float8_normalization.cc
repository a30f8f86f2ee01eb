#include "passes/float8_normalization.h"

#include "hlo/computation.h"
#include "hlo/float8.h"
#include "hlo/status_macros.h"
#include "passes/widen_to_f32.h"

namespace hloc {

absl::StatusOr<bool> Float8Normalization::Run(HloModule* module) {
  return RewriteEach(
      module, [](const HloComputation*) { return true; },
      [](const HloInstruction* instr) {
        return ComputesOnValues(instr->opcode()) && instr->shape().IsArray() &&
               TouchesFloat8(*instr);
      },
      "ops-widened",
      [](HloComputation* computation,
         HloInstruction* instr) -> absl::StatusOr<bool> {
        HLOC_RETURN_IF_ERROR(WidenToF32(computation, instr, IsFloat8Type));
        return true;
      });
}

}  // namespace hloc

#include "passes/transpose_bitcasts.h"

#include "hlo/computation.h"
#include "passes/permutation.h"

namespace hloc {

absl::StatusOr<bool> TransposeBitcasts::Run(HloModule* module) {
  return RewriteEach(
      module, HloOpcode::kTranspose, "transposes-as-bitcasts",
      [](HloComputation* computation,
         HloInstruction* transpose) -> absl::StatusOr<bool> {
        if (!transpose->shape().IsArray() ||
            !TransposeKeepsBytes(*transpose) ||
            transpose->operand(0)->opcode() == HloOpcode::kParameter) {
          return false;
        }
        // Only results and tuples take the second name: a library call
        // may check its operand buffers' layouts (they are the defining
        // value's) or overwrite an operand in place (gesvdj's
        // output_to_operand_aliasing), where the transpose's own buffer
        // was the copy it could clobber.
        for (const HloInstruction* user : transpose->users()) {
          if (user->opcode() != HloOpcode::kTuple) return false;
        }
        HloInstruction* bitcast =
            computation->AddInstruction(HloInstruction::Create(
                HloOpcode::kBitcast, transpose->shape(),
                {transpose->operand(0)}));
        if (absl::Status s =
                computation->ReplaceInstruction(transpose, bitcast);
            !s.ok()) {
          return s;
        }
        return true;
      });
}

}  // namespace hloc

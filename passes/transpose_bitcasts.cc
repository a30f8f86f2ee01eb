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
            !TransposeKeepsBytes(*transpose)) {
          return false;
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

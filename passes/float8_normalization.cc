#include "passes/float8_normalization.h"

#include "hlo/computation.h"
#include "hlo/float8.h"
#include "hlo/status_macros.h"
#include "passes/widen_to_f32.h"

namespace hloc {
namespace {

// Operations that compute on their values (so on 8-bit floats only after
// widening): the elementwise ones except those that move or reinterpret
// values, and the few others that make or combine numbers. Everything
// else moves values (copies, slices, gathers, selects, sorts, tuples) or
// applies a computation this pass rewrites itself (reduce, scatter, map).
bool Computes(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kSelect:
    case HloOpcode::kConvert:
    case HloOpcode::kBitcastConvert:
    case HloOpcode::kCopy:
      return false;
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kIota:
    case HloOpcode::kReducePrecision:
    case HloOpcode::kRng:
    case HloOpcode::kCholesky:
    case HloOpcode::kTriangularSolve:
      return true;
    default:
      return HloOpcodeIsElementwise(opcode);
  }
}

}  // namespace

absl::StatusOr<bool> Float8Normalization::Run(HloModule* module) {
  return RewriteEach(
      module, [](const HloComputation*) { return true; },
      [](const HloInstruction* instr) {
        return Computes(instr->opcode()) && instr->shape().IsArray() &&
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

#include "backends/common/scan_analysis.h"

namespace hloc {

bool IsElementwiseScanBody(const HloComputation* body) {
  if (body == nullptr) return false;
  for (const HloInstruction* instr : body->instructions()) {
    switch (instr->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kTuple:
      case HloOpcode::kGetTupleElement:
        continue;
      case HloOpcode::kConstant:
        if (instr->shape().IsArray() && instr->shape().rank() == 0) continue;
        return false;
      case HloOpcode::kBroadcast:
        if (instr->operand(0)->shape().rank() == 0) continue;
        return false;
      default:
        if (!instr->IsElementwise()) return false;
    }
  }
  return true;
}

int64_t NumScanCarries(const HloInstruction& scan) {
  if (scan.attrs().num_carries > 0) return scan.attrs().num_carries;
  const HloComputation* body = scan.to_apply();
  if (body == nullptr) return 0;
  int64_t carries = 0;
  for (int64_t i = scan.operand_count() - 1; i >= 0; --i) {
    if (i >= body->num_parameters() ||
        !body->parameter_instruction(i)->shape().Compatible(
            scan.operand(i)->shape())) {
      break;
    }
    ++carries;
  }
  return carries;
}

}  // namespace hloc

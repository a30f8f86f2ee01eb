#include "backends/gpu/dot_fusion_split.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/gpu/gemm_lowering.h"
#include "hlo/computation.h"
#include "hlo/status_macros.h"

namespace hloc {
namespace {

// `operand` of a fused dot (a parameter, maybe behind bitcasts) rebuilt
// beside the fusion, on the fusion's operand.
HloInstruction* OperandBeside(HloComputation* computation,
                              const HloInstruction& fusion,
                              const HloInstruction* operand) {
  std::vector<const HloInstruction*> bitcasts;
  while (operand->opcode() == HloOpcode::kBitcast) {
    bitcasts.push_back(operand);
    operand = operand->operand(0);
  }
  HloInstruction* value = fusion.operand(operand->parameter_number());
  for (auto it = bitcasts.rbegin(); it != bitcasts.rend(); ++it) {
    value = computation->AddInstruction(
        HloInstruction::Create(HloOpcode::kBitcast, (*it)->shape(), {value}));
  }
  return value;
}

bool ReadsParameter(const HloInstruction* operand) {
  while (operand->opcode() == HloOpcode::kBitcast)
    operand = operand->operand(0);
  return operand->opcode() == HloOpcode::kParameter;
}

absl::Status Split(HloComputation* computation, HloInstruction* fusion,
                   HloInstruction* dot) {
  HloComputation* fused = fusion->fused_computation();
  std::vector<HloInstruction*> operands = {
      OperandBeside(computation, *fusion, dot->operand(0)),
      OperandBeside(computation, *fusion, dot->operand(1))};
  std::unique_ptr<HloInstruction> unfused =
      HloInstruction::Create(HloOpcode::kDot, dot->shape(), operands);
  unfused->mutable_attrs() = dot->attrs();
  unfused->SetName(dot->name());
  HloInstruction* new_dot = computation->AddInstruction(std::move(unfused));

  const int64_t number = fusion->operand_count();
  HloInstruction* parameter =
      fused->AddParameter(HloInstruction::CreateParameter(
          number, dot->shape(), absl::StrCat("param_", number)));
  HLOC_RETURN_IF_ERROR(dot->ReplaceAllUsesWith(parameter));
  HLOC_RETURN_IF_ERROR(fused->RemoveInstructionAndUnusedOperands(dot));
  fusion->AppendOperand(new_dot);
  fusion->set_fusion_kind(FusionKind::kLoop);
  return absl::OkStatus();
}

}  // namespace

absl::Status SplitDotFusions(HloModule* module) {
  // The entry and what while loops and conditionals call (their steps are
  // compiled the same way); fused computations hold no fusions.
  for (HloComputation* computation : module->computations()) {
    if (computation->IsFusionComputation()) continue;
    for (HloInstruction* instr : computation->MakeInstructionPostOrder()) {
      if (instr->opcode() != HloOpcode::kFusion || !HasDot(*instr)) continue;
      HloInstruction* dot = const_cast<HloInstruction*>(FusedDot(*instr));
      if (dot == nullptr || !ReadsParameter(dot->operand(0)) ||
          !ReadsParameter(dot->operand(1))) {
        continue;
      }
      const HloInstruction* root = instr->fused_expression_root();
      while (root->opcode() == HloOpcode::kBitcast) root = root->operand(0);
      // A dot at the root is one gemm call as it is.
      if (root == dot) continue;
      if (LowerToGemmCall(*instr).ok()) continue;
      HLOC_RETURN_IF_ERROR(Split(computation, instr, dot));
    }
  }
  return absl::OkStatus();
}

}  // namespace hloc

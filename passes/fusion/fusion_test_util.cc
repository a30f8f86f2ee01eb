#include "passes/fusion/fusion_test_util.h"

#include <memory>

#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/verifier.h"
#include "passes/fusion/fusion_kinds.h"
#include "passes/fusion/instruction_fusion.h"
#include "passes/fusion/multi_output_fusion.h"
#include "passes/fusion/row_reduction_fusion.h"

namespace hloc {

std::vector<HloInstruction*> EntryFusions(const HloModule& module) {
  std::vector<HloInstruction*> out;
  for (HloInstruction* instr :
       module.entry_computation()->MakeInstructionPostOrder()) {
    if (instr->opcode() == HloOpcode::kFusion) out.push_back(instr);
  }
  return out;
}

std::vector<Literal> MakeFusionArguments(const HloModule& module) {
  std::vector<Literal> args;
  for (const HloInstruction* param :
       module.entry_computation()->parameter_instructions()) {
    Literal arg(param->shape());
    const bool real = IsFloatingPointType(param->shape().element_type());
    for (int64_t i = 0; i < arg.element_count(); ++i) {
      const int64_t h = (i * 7919 + param->parameter_number() * 104729) % 97;
      if (real) {
        arg.SetFromDouble(i, (h - 48) / 16.0);
      } else {
        arg.SetFromInt64(i, h % 4);
      }
    }
    args.push_back(std::move(arg));
  }
  return args;
}

void RunFusionAndCheck(HloModule* module, const FusionOptions& options,
                       FusionReport* report,
                       std::optional<Tolerance> tolerance) {
  std::unique_ptr<HloModule> original = module->Clone();
  if (options.row_reduction_fusion) {
    ASSERT_TRUE(RowReductionFusion(options, report).Run(module).ok());
  }
  ASSERT_TRUE(InstructionFusion(options, report).Run(module).ok());
  ASSERT_TRUE(MultiOutputFusion(options, report).Run(module).ok());
  absl::Status verified = VerifyModule(*module);
  ASSERT_TRUE(verified.ok()) << verified;
  for (HloInstruction* fusion : EntryFusions(*module)) {
    absl::Status status = VerifyFusionShape(*fusion);
    EXPECT_TRUE(status.ok()) << status;
  }
  if (!tolerance.has_value()) return;
  std::vector<Literal> args = MakeFusionArguments(*original);
  absl::StatusOr<Literal> before = EvaluateModule(*original, args);
  ASSERT_TRUE(before.ok()) << before.status();
  absl::StatusOr<Literal> after = EvaluateModule(*module, args);
  ASSERT_TRUE(after.ok()) << after.status();
  ComparisonResult result = CompareLiterals(*after, *before, *tolerance);
  EXPECT_TRUE(result.ok()) << result.mismatch_count << " elements differ "
                           << result.shape_message;
}

}  // namespace hloc

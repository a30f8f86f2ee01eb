// Producer-consumer fusion ("instruction-fusion"), in the manner of XLA's
// InstructionFusion.
//
// Algorithm: in every kernel computation, visit consumers users-first
// (reverse post order). For a consumer, look at its operands latest first
// (post order: a producer after every operand that uses it, so none joins
// the consumer twice) and ask the cost model (cost_model.h) whether each
// producer should fuse into it.
// On yes, the producer (a copy of it, if it has other users and is cheap) and
// the consumer become one fusion -- kLoop, or kInput when the consumer is a
// reduce or (GPU) the producer a reduction and the consumer its elementwise
// epilogue, or kOutput when the producer is a dot and the consumer its
// elementwise epilogue -- and the new fusion is examined again, since it has
// new operands. An expensive producer with several users is re-examined
// every time its consumer fusion grows: once all its users are inside that
// one fusion it has a single user and fuses without duplication.
//
// A producer fused without copying has no other users, and a copied producer
// leaves the original in place, so this pass cannot create cycles.
// Reductions are barriers: a reduce is never fused into its consumers here
// (row-reduction-fusion does that where a row fits one block), except into
// an elementwise epilogue where FusionOptions::reduction_epilogue_fusion
// allows it.
//
// Every pair considered is recorded in the FusionReport with its rule.
// Statistics: "fusions" (fusion instructions created or grown),
// "duplicated" (producers copied into a consumer).
#ifndef PASSES_FUSION_INSTRUCTION_FUSION_H_
#define PASSES_FUSION_INSTRUCTION_FUSION_H_

#include "passes/fusion/cost_model.h"
#include "passes/fusion/report.h"
#include "passes/pass.h"

namespace hloc {

class InstructionFusion : public HloPass {
 public:
  // `report`: where decisions go; null means the scoped sink, if any.
  explicit InstructionFusion(FusionOptions options = {},
                             FusionReport* report = nullptr)
      : options_(options), report_(report) {}
  absl::string_view name() const override { return "instruction-fusion"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  absl::StatusOr<bool> RunOnComputation(HloComputation* computation,
                                        FusionReport* report);

  FusionOptions options_;
  FusionReport* report_;
};

}  // namespace hloc

#endif  // PASSES_FUSION_INSTRUCTION_FUSION_H_

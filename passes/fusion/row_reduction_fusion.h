// Row-reduction fusion ("row-reduction-fusion"): one kernel for a group of
// reductions over the same rows and the elementwise work between and after
// them -- softmax, log-softmax, layer norm, logsumexp, x / sum(x). The
// fusion shape and the emitter's contract are in fusion_kinds.h
// (kRowReduction); this pass only forms the groups.
//
// Algorithm, per kernel computation, over the instructions in post order:
//  - A seed is a row reduction (GetRowReductionShape) whose row fits one
//    block (RowFitsInBlock) and that is not in a group yet.
//  - Walking on from the seed in post order, an instruction joins the group
//    if it uses a group member, uses no instruction that depends on the group
//    without being in it, and ClassifyRowInstruction accepts it: it keeps
//    every value per-row or full (elementwise ops, broadcasts along the row,
//    reshapes that keep the row split, slices, pads, reverses and
//    transposes within the rows, further reductions of the same rows).
//    A concatenate stays only as the group's hero (its one output reads it
//    at its own positions, fusion_kinds.h): the rule is in the .cc.
//    Anything else that depends on the group is "tainted" and so is
//    everything that depends on it, which keeps the group convex: fusing it
//    cannot create a cycle. Earlier row fusions take part as the single
//    instructions they became (the order is recomputed after each), so a
//    dependence through one of them taints too.
//  - A piece of the rows (a slice within them, say) that is used outside
//    the group leaves it, with what depends on it: only whole rows can be
//    written.
//  - A group of the seed alone is left for instruction-fusion (a plain
//    reduction fusion). Otherwise the group becomes one kCustom fusion; its
//    members used outside are extra outputs. Producers of its inputs are
//    fused later by instruction-fusion, like for any fusion.
// Runs before instruction-fusion, on unfused HLO.
//
// Statistics: "row-fusions", "reductions" (reduces inside row fusions).
#ifndef PASSES_FUSION_ROW_REDUCTION_FUSION_H_
#define PASSES_FUSION_ROW_REDUCTION_FUSION_H_

#include "passes/fusion/cost_model.h"
#include "passes/fusion/report.h"
#include "passes/pass.h"

namespace hloc {

class RowReductionFusion : public HloPass {
 public:
  explicit RowReductionFusion(FusionOptions options = {},
                              FusionReport* report = nullptr)
      : options_(options), report_(report) {}
  absl::string_view name() const override { return "row-reduction-fusion"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  absl::StatusOr<bool> RunOnComputation(HloComputation* computation,
                                        FusionReport* report);

  FusionOptions options_;
  FusionReport* report_;
};

}  // namespace hloc

#endif  // PASSES_FUSION_ROW_REDUCTION_FUSION_H_

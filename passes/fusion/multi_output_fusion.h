// Multi-output fusion ("multi-output-fusion"): one kernel computing several
// results, so a large input is read once or an intermediate is not written
// and read back.
//
// Two forms, tried in this order until nothing changes:
//  - Producer-consumer: a producer that instruction-fusion could not fuse
//    because it has other users (typically an expensive op feeding a
//    reduction and an elementwise consumer, like exp in softmax without row
//    fusion) is fused into one consumer fusion and also kept as an output of
//    it. Its other users read that output, so the kernel that only computed
//    the producer disappears.
//  - Siblings: two kernels (fusions or loop-fusible ops) that read the same
//    non-scalar operand are merged, so the operand is read once (sin(x) and
//    cos(x); the three updates of an Adam step).
// Legality: the merged kernel must have one iteration space -- loop outputs
// of the same dimensions; reductions of the same input shape over the same
// dimensions, with loop outputs of that input shape; row fusions of the same
// rows with outputs of per-row or full shape -- never an in-place update or a
// dot epilogue, and no path may lead from one part to the other through an
// instruction outside (a cycle): checked by reachability.
//
// Statistics: "producer-consumer", "siblings".
#ifndef PASSES_FUSION_MULTI_OUTPUT_FUSION_H_
#define PASSES_FUSION_MULTI_OUTPUT_FUSION_H_

#include "passes/fusion/cost_model.h"
#include "passes/fusion/report.h"
#include "passes/pass.h"

namespace hloc {

class MultiOutputFusion : public HloPass {
 public:
  explicit MultiOutputFusion(FusionOptions options = {},
                             FusionReport* report = nullptr)
      : options_(options), report_(report) {}
  absl::string_view name() const override { return "multi-output-fusion"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  struct Analyses;  // multi_output_fusion.cc

  // One merge in `computation`, or false if none applies.
  absl::StatusOr<bool> FuseOneProducerConsumer(HloComputation* computation,
                                               FusionReport* report,
                                               Analyses* analyses);
  absl::StatusOr<bool> FuseOneSiblingPair(HloComputation* computation,
                                          FusionReport* report,
                                          Analyses* analyses);

  FusionOptions options_;
  FusionReport* report_;
};

}  // namespace hloc

#endif  // PASSES_FUSION_MULTI_OUTPUT_FUSION_H_

// What the fusion passes' tests share: the entry's fusions, deterministic
// arguments, and one run of the fusion passes that checks the result (a
// valid module, every fusion keeping its shape's invariant, the same values
// under the evaluator).
#ifndef PASSES_FUSION_FUSION_TEST_UTIL_H_
#define PASSES_FUSION_FUSION_TEST_UTIL_H_

#include <optional>
#include <vector>

#include "hlo/literal.h"
#include "hlo/module.h"
#include "passes/fusion/cost_model.h"
#include "passes/fusion/report.h"
#include "runtime/compare.h"

namespace hloc {

// The fusion instructions of the entry computation, in post order.
std::vector<HloInstruction*> EntryFusions(const HloModule& module);

// Deterministic arguments for the entry: floats in [-3, 3] in steps of
// 1/16, integers in 0..3 (so integer operands used as indices stay in
// range).
std::vector<Literal> MakeFusionArguments(const HloModule& module);

// Runs row-reduction fusion (where `options` enables it), instruction
// fusion and multi-output fusion, as the pipelines order them, recording
// decisions in `report`; expects a valid module whose fusions all keep
// their shape's invariant and, unless `tolerance` is nullopt (rng, custom
// calls), the values the module computed before under the evaluator.
void RunFusionAndCheck(HloModule* module, const FusionOptions& options,
                       FusionReport* report,
                       std::optional<Tolerance> tolerance);

}  // namespace hloc

#endif  // PASSES_FUSION_FUSION_TEST_UTIL_H_

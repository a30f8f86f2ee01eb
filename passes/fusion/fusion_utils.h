// Graph helpers shared by the fusion passes: which computations hold
// kernels, reachability for cycle checks, copying a producer for one
// consumer, and fusing any set of instructions -- plain ones and existing
// fusions alike -- into one fusion.
#ifndef PASSES_FUSION_FUSION_UTILS_H_
#define PASSES_FUSION_FUSION_UTILS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/module.h"

namespace hloc {

// Computations whose instructions become kernels: the entry and, through
// while/conditional/call, the bodies it runs. Not fused computations and not
// the scalar computations of reduce/sort/scatter/map.
std::vector<HloComputation*> KernelComputations(const HloModule& module);

// True if a path of operand-to-user edges leads from `from` to `to`
// (`from` == `to` counts).
bool Reaches(const HloInstruction* from, const HloInstruction* to);
// True if such a path exists other than the direct edge from `from` to its
// user `to`: fusing the two (keeping `from` as an output) would make a cycle.
bool ReachesIndirectly(const HloInstruction* from, const HloInstruction* to);

// Adds a copy of `producer` (a deep copy if it is a fusion) and makes
// `consumer` use it instead; returns the copy.
absl::StatusOr<HloInstruction*> DuplicateFor(HloInstruction* producer,
                                             HloInstruction* consumer);

// Fuses `group` -- instructions of `computation`, possibly fusions, whose
// union is closed (no path leaves the group and comes back) -- into one
// fusion of `kind`. Existing fusions are expanded and merged. Members with
// users outside the group become extra outputs (a multi-output fusion whose
// users read get-tuple-elements). The fusion is named `name` (made unique
// unless `keep_name`) and gets `backend_config`. Identical fused
// instructions (copies made by duplication) are merged.
absl::StatusOr<HloInstruction*> FuseInstructions(
    HloComputation* computation, const std::vector<HloInstruction*>& group,
    FusionKind kind, absl::string_view name, bool keep_name,
    absl::string_view backend_config = "");

// Fuses `producer`, whose only user is `fusion` (a single-output fusion of
// `computation`), into that fusion in place: the result is the fusion
// FuseInstructions(computation, {producer, fusion}, kind, fusion's name,
// /*keep_name=*/true, fusion's backend_config) makes -- the same fused
// instructions in the same order, the same parameters and operands in the
// same order, identical instructions merged alike -- but the fused
// instructions already there are kept rather than copied out and back in
// (they keep their names), so growing a fusion costs time linear in its
// size instead of copies and name look-ups for every fused instruction.
// The fused computation moves to just before `computation`, where a new one
// would go. `computation`'s stored order is left for the caller to sort
// (SortInstructionsInPostOrder). Returns the new fusion instruction, or
// nullptr, having changed nothing, when the case is one FuseInstructions
// must handle (a fusion producer, control dependencies, a multi-output
// fusion, a producer with other users or that is the root).
absl::StatusOr<HloInstruction*> FuseProducerIntoFusion(
    HloComputation* computation, HloInstruction* producer,
    HloInstruction* fusion);

// A readable name for a new fusion of `kind` whose main result is `root`
// ("loop_fusion", "reduction_fusion", "row_reduction_fusion",
// "dot_epilogue_fusion").
std::string FusionNameFor(FusionKind kind, absl::string_view backend_config);

}  // namespace hloc

#endif  // PASSES_FUSION_FUSION_UTILS_H_

// Who takes part in a collective: XLA's group modes, replica groups (explicit
// or the iota form), and the devices of a run of replica_count x
// num_partitions programs. Shared by the verifier (which checks what it can
// without a run) and the evaluator (which checks against the actual run).
//
// A device is named by its flattened id, replica * num_partitions +
// partition, as XLA's use_global_device_ids groups name them.
#ifndef HLO_COLLECTIVES_H_
#define HLO_COLLECTIVES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/instruction.h"

namespace hloc {

// What the ids in replica_groups (or source_target_pairs) name, as XLA
// derives it from channel_id and use_global_device_ids.
enum class CollectiveGroupMode {
  // No channel id: replica ids; each partition runs its own collective.
  kCrossReplica,
  // Channel id, not global ids (all-to-all, collective-permute): partition
  // ids; each replica runs its own collective.
  kCrossPartition,
  // Channel id, use_global_device_ids=false (all-reduce, all-gather,
  // reduce-scatter): replica ids; a group takes every partition of its
  // replicas.
  kCrossReplicaAndPartition,
  // use_global_device_ids=true: flattened device ids.
  kFlattenedId,
};

absl::string_view CollectiveGroupModeString(CollectiveGroupMode mode);

// The opcodes the evaluator runs across devices.
bool IsCrossDeviceCollective(HloOpcode opcode);

absl::StatusOr<CollectiveGroupMode> GetCollectiveGroupMode(
    const HloInstruction& instr);

// "[G,S]<=[d0,d1,...]" or "...T(p0,p1,...)" expanded to G groups of S ids:
// iota(d0*d1*...) reshaped to the dims, transposed by the permutation, read
// in row-major order.
absl::StatusOr<std::vector<std::vector<int64_t>>> ExpandIotaReplicaGroups(
    absl::string_view text);

// The instruction's replica groups as explicit lists (empty when none were
// given).
absl::StatusOr<std::vector<std::vector<int64_t>>> ReplicaGroupsOf(
    const HloInstruction& instr);

// The module-independent checks XLA's verifier makes: no empty group, no id
// twice, the ids are 0..n-1, groups of equal size where `uniform`, groups
// given in flattened-id mode; and, when replica_count / num_partitions are
// above 1, that n is the count the mode names. Also checks a
// collective-permute's pairs (no source or target twice, ids in range).
absl::Status CheckCollectiveGroups(const HloInstruction& instr,
                                   int64_t replica_count,
                                   int64_t num_partitions);

// The groups of flattened device ids that take part together, in XLA's
// order (a device's position in its group is its rank: the shard it
// contributes to all-gather and receives from reduce-scatter). Every device
// of the run is in exactly one group. Errors when the groups do not fit a
// run of this size. Not for collective-permute (see PermuteSources).
absl::StatusOr<std::vector<std::vector<int64_t>>> ParticipantGroups(
    const HloInstruction& instr, int64_t replica_count,
    int64_t num_partitions);

// For collective-permute: the flattened id each device receives from, or -1
// when no pair targets it (it receives zeros).
absl::StatusOr<std::vector<int64_t>> PermuteSources(
    const HloInstruction& instr, int64_t replica_count,
    int64_t num_partitions);

// For an all-gather, reduce-scatter or all-to-all along a dimension: that
// dimension is the most major of every operand's and result's layout
// (every more major dimension has size 1), so that the collective moves
// flat chunks of its buffers. True when there is no dimension.
bool CollectiveDimensionIsMajor(const HloInstruction& instr);

// The reductions collective libraries (NCCL, the host runtime) apply in
// place of an all-reduce's or reduce-scatter's to_apply.
enum class CollectiveReduction { kSum, kProduct, kMin, kMax };

absl::string_view CollectiveReductionString(CollectiveReduction reduction);

// What `to_apply` computes, when it is one of the reductions above applied
// to its two parameters (in either order): add, multiply, minimum, maximum;
// on pred also and (min) and or (max). NotFound otherwise (any other
// computation is only run by the evaluator).
absl::StatusOr<CollectiveReduction> MatchCollectiveReduction(
    const HloComputation& to_apply);

}  // namespace hloc

#endif  // HLO_COLLECTIVES_H_

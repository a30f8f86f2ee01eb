#include "hlo/collectives.h"

#include <algorithm>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hlo/computation.h"

namespace hloc {
namespace {

absl::Status Error(const HloInstruction& instr, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat(HloOpcodeString(instr.opcode()), " ", instr.name(), ": ",
                   message));
}

// "a,b,c" inside brackets -> numbers.
absl::StatusOr<std::vector<int64_t>> ParseInts(absl::string_view text,
                                               absl::string_view whole) {
  std::vector<int64_t> out;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    int64_t v;
    if (!absl::SimpleAtoi(part, &v) || v < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad iota replica groups '", whole, "'"));
    }
    out.push_back(v);
  }
  return out;
}

// The number of participants a group-less collective has in `mode`.
int64_t DefaultGroupSize(CollectiveGroupMode mode, int64_t replica_count,
                         int64_t num_partitions) {
  switch (mode) {
    case CollectiveGroupMode::kCrossPartition:
      return num_partitions;
    case CollectiveGroupMode::kFlattenedId:
      return replica_count * num_partitions;
    default:
      return replica_count;
  }
}

}  // namespace

absl::string_view CollectiveGroupModeString(CollectiveGroupMode mode) {
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
      return "cross-replica";
    case CollectiveGroupMode::kCrossPartition:
      return "cross-partition";
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      return "cross-replica-and-partition";
    case CollectiveGroupMode::kFlattenedId:
      return "flattened-id";
  }
  return "?";
}

bool IsCrossDeviceCollective(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectivePermute:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<CollectiveGroupMode> GetCollectiveGroupMode(
    const HloInstruction& instr) {
  const HloAttributes& a = instr.attrs();
  // all-to-all and collective-permute have no use_global_device_ids in XLA;
  // a channel id alone makes them cross-partition.
  const bool has_global_flag = instr.opcode() != HloOpcode::kAllToAll &&
                               instr.opcode() != HloOpcode::kCollectivePermute;
  if (!a.channel_id.has_value()) {
    if (a.use_global_device_ids) {
      return Error(instr, "use_global_device_ids=true needs a channel_id");
    }
    return CollectiveGroupMode::kCrossReplica;
  }
  if (!has_global_flag) return CollectiveGroupMode::kCrossPartition;
  return a.use_global_device_ids ? CollectiveGroupMode::kFlattenedId
                                 : CollectiveGroupMode::kCrossReplicaAndPartition;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> ExpandIotaReplicaGroups(
    absl::string_view text) {
  const absl::Status bad = absl::InvalidArgumentError(
      absl::StrCat("bad iota replica groups '", text, "'"));
  absl::string_view rest = text;
  std::vector<absl::string_view> halves = absl::StrSplit(rest, "<=");
  if (halves.size() != 2) return bad;
  absl::string_view shape = halves[0];
  absl::string_view source = halves[1];
  absl::string_view perm_text;
  if (size_t t = source.find("T("); t != absl::string_view::npos) {
    perm_text = source.substr(t + 2);
    source = source.substr(0, t);
    if (!absl::ConsumeSuffix(&perm_text, ")")) return bad;
  }
  if (!absl::ConsumePrefix(&shape, "[") || !absl::ConsumeSuffix(&shape, "]") ||
      !absl::ConsumePrefix(&source, "[") ||
      !absl::ConsumeSuffix(&source, "]")) {
    return bad;
  }
  auto groups_dims = ParseInts(shape, text);
  auto dims = ParseInts(source, text);
  if (!groups_dims.ok()) return groups_dims.status();
  if (!dims.ok()) return dims.status();
  if (groups_dims->size() != 2) return bad;
  std::vector<int64_t> perm;
  if (!perm_text.empty()) {
    auto p = ParseInts(perm_text, text);
    if (!p.ok()) return p.status();
    perm = *p;
  } else {
    for (size_t i = 0; i < dims->size(); ++i) perm.push_back(i);
  }
  const size_t rank = dims->size();
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted.size() != rank || sorted[i] != static_cast<int64_t>(i)) {
      return bad;
    }
  }
  int64_t total = 1;
  for (int64_t d : *dims) {
    if (d == 0 || total > (int64_t{1} << 31) / d) return bad;
    total *= d;
  }
  const int64_t num_groups = (*groups_dims)[0];
  const int64_t group_size = (*groups_dims)[1];
  if (num_groups * group_size != total) return bad;
  // Row-major strides of the source array, visited in the permuted order.
  std::vector<int64_t> strides(rank, 1);
  for (size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * (*dims)[i];
  std::vector<int64_t> index(rank, 0);
  std::vector<std::vector<int64_t>> groups(num_groups);
  for (int64_t k = 0; k < total; ++k) {
    int64_t value = 0;
    for (size_t i = 0; i < rank; ++i) value += index[i] * strides[perm[i]];
    groups[k / group_size].push_back(value);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < (*dims)[perm[i]]) break;
      index[i] = 0;
    }
  }
  return groups;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> ReplicaGroupsOf(
    const HloInstruction& instr) {
  const HloAttributes& a = instr.attrs();
  if (!a.iota_replica_groups.empty()) {
    return ExpandIotaReplicaGroups(a.iota_replica_groups);
  }
  return a.replica_groups;
}

absl::Status CheckCollectiveGroups(const HloInstruction& instr,
                                   int64_t replica_count,
                                   int64_t num_partitions) {
  if (!IsCrossDeviceCollective(instr.opcode())) return absl::OkStatus();
  auto mode = GetCollectiveGroupMode(instr);
  if (!mode.ok()) return mode.status();
  const int64_t expected =
      DefaultGroupSize(*mode, replica_count, num_partitions);
  if (instr.opcode() == HloOpcode::kCollectivePermute) {
    absl::flat_hash_set<int64_t> sources, targets;
    for (const auto& [source, target] : instr.attrs().source_target_pairs) {
      if (source < 0 || target < 0) {
        return Error(instr, absl::StrCat("negative id in source_target_pairs {",
                                         source, ",", target, "}"));
      }
      if (!sources.insert(source).second) {
        return Error(instr, absl::StrCat("source ", source,
                                         " appears twice in source_target_pairs"));
      }
      if (!targets.insert(target).second) {
        return Error(instr, absl::StrCat("target ", target,
                                         " appears twice in source_target_pairs"));
      }
      if (expected > 1 && (source >= expected || target >= expected)) {
        return Error(instr,
                     absl::StrCat("pair {", source, ",", target,
                                  "} names an id outside 0..", expected - 1,
                                  " (", CollectiveGroupModeString(*mode),
                                  ")"));
      }
    }
    return absl::OkStatus();
  }
  auto groups = ReplicaGroupsOf(instr);
  if (!groups.ok()) return Error(instr, groups.status().message());
  if (groups->empty()) {
    if (*mode == CollectiveGroupMode::kFlattenedId) {
      return Error(instr,
                   "use_global_device_ids=true needs explicit replica_groups");
    }
    return absl::OkStatus();
  }
  absl::flat_hash_set<int64_t> seen;
  for (const std::vector<int64_t>& group : *groups) {
    if (group.empty()) return Error(instr, "a replica group is empty");
    for (int64_t id : group) {
      if (id < 0) {
        return Error(instr, absl::StrCat("negative id ", id,
                                         " in replica_groups"));
      }
      if (!seen.insert(id).second) {
        return Error(instr,
                     absl::StrCat("id ", id, " appears twice in replica_groups"));
      }
    }
  }
  const int64_t n = static_cast<int64_t>(seen.size());
  for (int64_t id = 0; id < n; ++id) {
    if (!seen.contains(id)) {
      return Error(instr, absl::StrCat("replica_groups name ", n,
                                       " ids but not id ", id));
    }
  }
  if (expected > 1 && n != expected) {
    return Error(instr,
                 absl::StrCat("replica_groups name ", n, " ids but ",
                              CollectiveGroupModeString(*mode), " mode needs ",
                              expected, " (replica_count=", replica_count,
                              ", num_partitions=", num_partitions, ")"));
  }
  if (instr.opcode() != HloOpcode::kAllReduce) {
    for (const std::vector<int64_t>& group : *groups) {
      if (group.size() != (*groups)[0].size()) {
        return Error(instr, "replica groups differ in size");
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::vector<int64_t>>> ParticipantGroups(
    const HloInstruction& instr, int64_t replica_count,
    int64_t num_partitions) {
  if (absl::Status s = CheckCollectiveGroups(instr, replica_count,
                                             num_partitions);
      !s.ok()) {
    return s;
  }
  auto mode = GetCollectiveGroupMode(instr);
  if (!mode.ok()) return mode.status();
  auto groups = ReplicaGroupsOf(instr);
  if (!groups.ok()) return groups.status();
  const int64_t size = DefaultGroupSize(*mode, replica_count, num_partitions);
  if (groups->empty()) {
    std::vector<int64_t> all(size);
    for (int64_t i = 0; i < size; ++i) all[i] = i;
    groups->push_back(std::move(all));
  } else {
    int64_t n = 0;
    for (const auto& g : *groups) n += g.size();
    if (n != size) {
      return Error(instr, absl::StrCat("replica_groups name ", n,
                                       " ids but the run has ", size, " (",
                                       CollectiveGroupModeString(*mode),
                                       ", replica_count=", replica_count,
                                       ", num_partitions=", num_partitions,
                                       ")"));
    }
  }
  const int64_t P = num_partitions;
  std::vector<std::vector<int64_t>> out;
  switch (*mode) {
    case CollectiveGroupMode::kCrossReplica:
      for (int64_t p = 0; p < P; ++p) {
        for (const auto& g : *groups) {
          std::vector<int64_t> devices;
          for (int64_t r : g) devices.push_back(r * P + p);
          out.push_back(std::move(devices));
        }
      }
      break;
    case CollectiveGroupMode::kCrossPartition:
      for (int64_t r = 0; r < replica_count; ++r) {
        for (const auto& g : *groups) {
          std::vector<int64_t> devices;
          for (int64_t p : g) devices.push_back(r * P + p);
          out.push_back(std::move(devices));
        }
      }
      break;
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      // Replica-major: every partition of the group's first replica, then
      // the next replica's.
      for (const auto& g : *groups) {
        std::vector<int64_t> devices;
        for (int64_t r : g) {
          for (int64_t p = 0; p < P; ++p) devices.push_back(r * P + p);
        }
        out.push_back(std::move(devices));
      }
      break;
    case CollectiveGroupMode::kFlattenedId:
      out = *groups;
      break;
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> PermuteSources(
    const HloInstruction& instr, int64_t replica_count,
    int64_t num_partitions) {
  if (absl::Status s = CheckCollectiveGroups(instr, replica_count,
                                             num_partitions);
      !s.ok()) {
    return s;
  }
  auto mode = GetCollectiveGroupMode(instr);
  if (!mode.ok()) return mode.status();
  const bool cross_replica = *mode == CollectiveGroupMode::kCrossReplica;
  const int64_t limit = cross_replica ? replica_count : num_partitions;
  const int64_t P = num_partitions;
  std::vector<int64_t> sources(replica_count * num_partitions, -1);
  for (const auto& [source, target] : instr.attrs().source_target_pairs) {
    if (source >= limit || target >= limit) {
      return Error(instr, absl::StrCat("pair {", source, ",", target,
                                       "} names an id outside 0..", limit - 1,
                                       " (", CollectiveGroupModeString(*mode),
                                       ")"));
    }
    // The pair applies within every partition (cross-replica) or every
    // replica (cross-partition).
    const int64_t copies = cross_replica ? P : replica_count;
    for (int64_t c = 0; c < copies; ++c) {
      const int64_t from = cross_replica ? source * P + c : c * P + source;
      const int64_t to = cross_replica ? target * P + c : c * P + target;
      sources[to] = from;
    }
  }
  return sources;
}

namespace {

bool IsEffectivelyMajor(const Shape& shape, int64_t dim) {
  if (!shape.IsArray() || dim < 0 || dim >= shape.rank()) return false;
  bool above = false;
  for (int64_t d : shape.MinorToMajor()) {
    if (above && shape.dimensions(d) != 1) return false;
    if (d == dim) above = true;
  }
  return above;
}

}  // namespace

bool CollectiveDimensionIsMajor(const HloInstruction& instr) {
  if (instr.dimensions().empty()) return true;
  const int64_t dim = instr.dimensions(0);
  for (const HloInstruction* operand : instr.operands()) {
    if (!IsEffectivelyMajor(operand->shape(), dim)) return false;
  }
  if (!instr.shape().IsTuple()) return IsEffectivelyMajor(instr.shape(), dim);
  for (const Shape& shape : instr.shape().tuple_shapes()) {
    if (!IsEffectivelyMajor(shape, dim)) return false;
  }
  return true;
}

absl::string_view CollectiveReductionString(CollectiveReduction reduction) {
  switch (reduction) {
    case CollectiveReduction::kSum:
      return "sum";
    case CollectiveReduction::kProduct:
      return "product";
    case CollectiveReduction::kMin:
      return "min";
    case CollectiveReduction::kMax:
      return "max";
  }
  return "unknown";
}

absl::StatusOr<CollectiveReduction> MatchCollectiveReduction(
    const HloComputation& to_apply) {
  const HloInstruction* root = to_apply.root_instruction();
  auto not_found = [&] {
    return absl::NotFoundError(
        absl::StrCat("to_apply ", to_apply.name(),
                     " is not a sum, product, min or max of its two "
                     "parameters"));
  };
  if (root == nullptr || to_apply.num_parameters() != 2 ||
      root->operand_count() != 2 || !root->shape().IsArray() ||
      root->shape().rank() != 0) {
    return not_found();
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (a->opcode() != HloOpcode::kParameter ||
      b->opcode() != HloOpcode::kParameter ||
      a->parameter_number() == b->parameter_number()) {
    return not_found();
  }
  const bool is_pred = root->shape().element_type() == PRED;
  switch (root->opcode()) {
    case HloOpcode::kAdd:
      return CollectiveReduction::kSum;
    case HloOpcode::kMultiply:
      return CollectiveReduction::kProduct;
    case HloOpcode::kMinimum:
      return CollectiveReduction::kMin;
    case HloOpcode::kMaximum:
      return CollectiveReduction::kMax;
    case HloOpcode::kAnd:
      if (is_pred) return CollectiveReduction::kMin;
      return not_found();
    case HloOpcode::kOr:
      if (is_pred) return CollectiveReduction::kMax;
      return not_found();
    default:
      return not_found();
  }
}

}  // namespace hloc

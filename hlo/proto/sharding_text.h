// XLA's text form of an OpSharding ("{replicated}", "{maximal device=1}",
// "{devices=[2,1]0,1}", "{devices=[2,2]<=[4] last_tile_dim_replicate}",
// "{{replicated}, {manual}}"), which is how the IR keeps shardings, and the
// way back for export. Iota-form replica groups ("[2,4]<=[4,2]T(1,0)") share
// the iota notation and live here too.
#ifndef HLO_PROTO_SHARDING_TEXT_H_
#define HLO_PROTO_SHARDING_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/proto/hlo.pb.h"

namespace hloc {

// Per-op metadata and the Shardy form (named_sharding) are not rendered.
absl::StatusOr<std::string> ShardingToText(const xla::OpSharding& sharding);
absl::StatusOr<xla::OpSharding> ShardingFromText(absl::string_view text);

std::string IotaReplicaGroupsToText(const xla::IotaReplicaGroupListProto& list);
absl::StatusOr<xla::IotaReplicaGroupListProto> IotaReplicaGroupsFromText(
    absl::string_view text);

}  // namespace hloc

#endif  // HLO_PROTO_SHARDING_TEXT_H_

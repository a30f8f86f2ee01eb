// Replica groups given by mesh axes (XLA's MeshAxesReplicaGroupList, what
// Shardy-partitioned modules carry): the devices of a mesh that differ only
// in the named axes form a group.
#ifndef HLO_PROTO_MESH_REPLICA_GROUPS_H_
#define HLO_PROTO_MESH_REPLICA_GROUPS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/proto/hlo.pb.h"

namespace hloc {

// The explicit groups of `list`, as XLA's MeshAxesReplicaGroupList
// flattens them. The mesh's devices are its device_ids, else its iota
// transform (iota reshaped and transposed), else 0..n-1, laid out row-major
// over the mesh axes. A sub-axis (pre_size p, size s) of an axis of size n
// is the middle factor of that axis split as [p, s, n/(p s)] (several
// sub-axes of one axis split it at each). Devices with equal coordinates on
// every factor not named form a group; within a group, devices are ordered
// by the named factors: the axes in mesh order, the sub-axes of one axis in
// the order the list names them. InvalidArgument for sizes that do not fit,
// an axis named twice, or device ids that are not a permutation.
absl::StatusOr<std::vector<std::vector<int64_t>>> ExpandMeshAxesReplicaGroups(
    const xla::MeshAxesReplicaGroupListProto& list);

}  // namespace hloc

#endif  // HLO_PROTO_MESH_REPLICA_GROUPS_H_

// Replica groups given by mesh axes (XLA's MeshAxesReplicaGroupList, what
// Shardy-partitioned modules carry): the devices of a mesh that differ only
// in the named axes form a group.
#ifndef HLO_MESH_REPLICA_GROUPS_H_
#define HLO_MESH_REPLICA_GROUPS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hloc {

// A mesh of devices (XLA's Mesh): axis sizes, and the devices laid out
// row-major over them: `device_ids` when given, else iota reshaped to
// `iota_reshape_dims` and transposed by `iota_transpose_perm` when those
// are given, else 0..n-1.
struct DeviceMesh {
  std::vector<int64_t> axis_sizes;
  std::vector<int64_t> device_ids;
  std::vector<int64_t> iota_reshape_dims;
  std::vector<int64_t> iota_transpose_perm;
};

// An axis of the mesh, or with size > 0 its sub-axis (pre_size, size).
struct MeshAxisRef {
  int64_t axis = 0;
  int64_t pre_size = 0;
  int64_t size = 0;
};

// The explicit groups of the replica groups given by `axes` of `mesh`
// (Shardy- and GSPMD-partitioned modules' MeshAxesReplicaGroupList), as XLA
// flattens them. A sub-axis (pre_size p, size s) of an axis of size n
// is the middle factor of that axis split as [p, s, n/(p s)] (several
// sub-axes of one axis split it at each). Devices with equal coordinates on
// every factor not named form a group; within a group, devices are ordered
// by the named factors: the axes in mesh order, the sub-axes of one axis in
// the order the list names them. InvalidArgument for sizes that do not fit,
// an axis named twice, or device ids that are not a permutation.
absl::StatusOr<std::vector<std::vector<int64_t>>> ExpandMeshAxesReplicaGroups(
    const DeviceMesh& mesh, absl::Span<const MeshAxisRef> axes);

}  // namespace hloc

#endif  // HLO_MESH_REPLICA_GROUPS_H_

#include "hlo/mesh_replica_groups.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace hloc {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

absl::StatusOr<Groups> Expand(const DeviceMesh& mesh,
                              std::vector<MeshAxisRef> axes) {
  return ExpandMeshAxesReplicaGroups(mesh, axes);
}

TEST(MeshReplicaGroups, AxesOfAGrid) {
  // mesh['a'=2,'b'=2]: devices 0 1 / 2 3.
  const DeviceMesh grid{{2, 2}};
  EXPECT_EQ(*Expand(grid, {{1}}), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(*Expand(grid, {{0}}), (Groups{{0, 2}, {1, 3}}));
  // Both axes, the second listed first: still in mesh order (a, then b),
  // as XLA flattens them.
  EXPECT_EQ(*Expand(grid, {{1}, {0}}), (Groups{{0, 1, 2, 3}}));
}

TEST(MeshReplicaGroups, DeviceOrderAndSubAxes) {
  // Explicit device ids: the mesh is 3 1 / 0 2.
  DeviceMesh mesh{{2, 2}, {3, 1, 0, 2}};
  EXPECT_EQ(*Expand(mesh, {{1}}), (Groups{{3, 1}, {0, 2}}));
  // An iota transform: [2,2]T(1,0) is 0 2 / 1 3.
  mesh = DeviceMesh{{2, 2}, {}, {2, 2}, {1, 0}};
  EXPECT_EQ(*Expand(mesh, {{1}}), (Groups{{0, 2}, {1, 3}}));
  // Axis of 8 split [2, 2, 2]: the middle factor (stride 2).
  const DeviceMesh line{{8}};
  EXPECT_EQ(*Expand(line, {{0, 2, 2}}),
            (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  // Two sub-axes of it, the outer factors, named inner first: the group is
  // ordered by the list (stride 1, then stride 4).
  EXPECT_EQ(*Expand(line, {{0, 4, 2}, {0, 1, 2}}),
            (Groups{{0, 4, 1, 5}, {2, 6, 3, 7}}));
}

TEST(MeshReplicaGroups, BadListsAreErrors) {
  const DeviceMesh grid{{2, 2}};
  EXPECT_FALSE(Expand(grid, {{2}}).ok());
  EXPECT_FALSE(Expand(grid, {{0}, {0}}).ok());
  EXPECT_FALSE(Expand(DeviceMesh{{6}}, {{0, 4, 2}}).ok());
  EXPECT_FALSE(Expand(DeviceMesh{{2, 2}, {0, 1, 1, 2}}, {{0}}).ok());
  EXPECT_FALSE(Expand(DeviceMesh{{2, 2}, {}, {3}, {0}}, {{0}}).ok());
}

}  // namespace
}  // namespace hloc

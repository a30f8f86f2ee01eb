#include "hlo/proto/mesh_replica_groups.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace hloc {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

xla::MeshAxesReplicaGroupListProto Mesh(std::vector<int64_t> sizes) {
  xla::MeshAxesReplicaGroupListProto list;
  for (int64_t size : sizes) list.mutable_mesh()->add_axes()->set_size(size);
  return list;
}

void Name(xla::MeshAxesReplicaGroupListProto* list, int64_t axis,
          int64_t pre = 0, int64_t size = 0) {
  xla::AxisRefProto* ref = list->add_axes();
  ref->set_mesh_axis_index(axis);
  if (size > 0) {
    ref->mutable_sub_axis_info()->set_pre_size(pre);
    ref->mutable_sub_axis_info()->set_size(size);
  }
}

TEST(MeshReplicaGroups, AxesOfAGrid) {
  // mesh['a'=2,'b'=2]: devices 0 1 / 2 3.
  auto list = Mesh({2, 2});
  Name(&list, 1);
  EXPECT_EQ(*ExpandMeshAxesReplicaGroups(list), (Groups{{0, 1}, {2, 3}}));
  list = Mesh({2, 2});
  Name(&list, 0);
  EXPECT_EQ(*ExpandMeshAxesReplicaGroups(list), (Groups{{0, 2}, {1, 3}}));
  // Both axes, the second listed first: still in mesh order (a, then b),
  // as XLA flattens them.
  list = Mesh({2, 2});
  Name(&list, 1);
  Name(&list, 0);
  EXPECT_EQ(*ExpandMeshAxesReplicaGroups(list), (Groups{{0, 1, 2, 3}}));
}

TEST(MeshReplicaGroups, DeviceOrderAndSubAxes) {
  // Explicit device ids: the mesh is 3 1 / 0 2.
  auto list = Mesh({2, 2});
  for (int64_t id : {3, 1, 0, 2}) list.mutable_mesh()->add_device_ids(id);
  Name(&list, 1);
  EXPECT_EQ(*ExpandMeshAxesReplicaGroups(list), (Groups{{3, 1}, {0, 2}}));
  // An iota transform: [2,2]T(1,0) is 0 2 / 1 3.
  list = Mesh({2, 2});
  auto* t = list.mutable_mesh()->mutable_iota_transform();
  t->add_reshape_dims(2);
  t->add_reshape_dims(2);
  t->add_transpose_perm(1);
  t->add_transpose_perm(0);
  Name(&list, 1);
  EXPECT_EQ(*ExpandMeshAxesReplicaGroups(list), (Groups{{0, 2}, {1, 3}}));
  // Axis of 8 split [2, 2, 2]: the middle factor (stride 2).
  list = Mesh({8});
  Name(&list, 0, /*pre=*/2, /*size=*/2);
  EXPECT_EQ(*ExpandMeshAxesReplicaGroups(list),
            (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
  // Two sub-axes of it, the outer factors, named inner first: the group is
  // ordered by the list (stride 1, then stride 4).
  list = Mesh({8});
  Name(&list, 0, /*pre=*/4, /*size=*/2);
  Name(&list, 0, /*pre=*/1, /*size=*/2);
  EXPECT_EQ(*ExpandMeshAxesReplicaGroups(list),
            (Groups{{0, 4, 1, 5}, {2, 6, 3, 7}}));
}

TEST(MeshReplicaGroups, BadListsAreErrors) {
  auto list = Mesh({2, 2});
  Name(&list, 2);
  EXPECT_FALSE(ExpandMeshAxesReplicaGroups(list).ok());
  list = Mesh({2, 2});
  Name(&list, 0);
  Name(&list, 0);
  EXPECT_FALSE(ExpandMeshAxesReplicaGroups(list).ok());
  list = Mesh({6});
  Name(&list, 0, 4, 2);
  EXPECT_FALSE(ExpandMeshAxesReplicaGroups(list).ok());
  list = Mesh({2, 2});
  for (int64_t id : {0, 1, 1, 2}) list.mutable_mesh()->add_device_ids(id);
  Name(&list, 0);
  EXPECT_FALSE(ExpandMeshAxesReplicaGroups(list).ok());
}

}  // namespace
}  // namespace hloc

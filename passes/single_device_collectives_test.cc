// single-device-collectives: the collectives of shard_map over a mesh axis
// of size 1 (as JAX lowers them: channel ids, global device ids, groups
// {{0}}) become their operands, a permute with no pairs zeros,
// partition-id zero, with the module's value unchanged; cross-replica
// collectives (no channel id), replica-id, and collectives with groups of
// several devices stay.
#include "passes/single_device_collectives.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

constexpr char kOneDevice[] = R"(
HloModule shard_map

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[8,4] parameter(0)
  y = f32[8,4] parameter(1)
  psum = f32[8,4] all-reduce(x), channel_id=1, replica_groups={{0}}, use_global_device_ids=true, to_apply=add
  pair = (f32[8,4], f32[8,4]) all-reduce(x, y), channel_id=7, replica_groups={}, to_apply=add
  cross = f32[8,4] all-reduce(x), replica_groups={}, to_apply=add
  gather = f32[8,4] all-gather(y), channel_id=2, replica_groups={{0}}, dimensions={0}, use_global_device_ids=true
  scatter = f32[8,4] reduce-scatter(y), channel_id=3, replica_groups={{0}}, use_global_device_ids=true, dimensions={0}, to_apply=add
  a2a = f32[8,4] all-to-all(x), channel_id=4, replica_groups={{0}}, dimensions={1}
  self = f32[8,4] collective-permute(x), channel_id=5, source_target_pairs={{0,0}}
  none = f32[8,4] collective-permute(y), channel_id=6, source_target_pairs={}
  pid = u32[] partition-id()
  rid = u32[] replica-id()
  ids = u32[] add(pid, rid)
  f = f32[] convert(ids)
  fs = f32[8,4] broadcast(f), dimensions={}
  p0 = f32[8,4] get-tuple-element(pair), index=0
  p1 = f32[8,4] get-tuple-element(pair), index=1
  s1 = f32[8,4] add(psum, gather)
  s2 = f32[8,4] add(scatter, a2a)
  s3 = f32[8,4] add(self, none)
  s4 = f32[8,4] add(p0, p1)
  s5 = f32[8,4] add(s1, s2)
  s6a = f32[8,4] add(s3, s4)
  s6 = f32[8,4] add(s6a, cross)
  s7 = f32[8,4] add(s5, s6)
  ROOT r = f32[8,4] add(s7, fs)
}
)";

TEST(SingleDeviceCollectivesTest, OneDeviceCollectivesAreValues) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(kOneDevice);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<Literal> args;
  for (int i = 0; i < 2; ++i) {
    Literal x(Shape::Array(F32, {8, 4}));
    for (int64_t j = 0; j < 32; ++j) x.SetFromDouble(j, 0.25 * j - 3 * i);
    args.push_back(std::move(x));
  }
  absl::StatusOr<Literal> before = EvaluateModule(**module, args);
  ASSERT_TRUE(before.ok()) << before.status();
  SingleDeviceCollectives pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  for (HloOpcode opcode :
       {HloOpcode::kAllGather, HloOpcode::kReduceScatter, HloOpcode::kAllToAll,
        HloOpcode::kCollectivePermute, HloOpcode::kPartitionId}) {
    EXPECT_EQ(CountOpcode(**module, opcode), 0) << HloOpcodeString(opcode);
  }
  // The cross-replica all-reduce and replica-id stay runtime steps.
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kAllReduce), 1);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kReplicaId), 1);
  absl::StatusOr<Literal> after = EvaluateModule(**module, args);
  ASSERT_TRUE(after.ok()) << after.status();
  for (int64_t j = 0; j < 32; ++j) {
    // psum + gather + scatter + a2a + self + none(0) + x + y + cross + 0
    const double x = 0.25 * j, y = 0.25 * j - 3;
    EXPECT_EQ(after->GetAsDouble(j), 5 * x + 3 * y) << "element " << j;
    EXPECT_EQ(after->GetAsDouble(j), before->GetAsDouble(j)) << "element " << j;
  }
}

TEST(SingleDeviceCollectivesTest, GroupsOfSeveralDevicesStay) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(R"(
HloModule two, replica_count=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[4] parameter(0)
  both = f32[4] all-reduce(x), channel_id=1, replica_groups={{0,1}}, to_apply=add
  alone = f32[4] all-reduce(both), channel_id=2, replica_groups={{0},{1}}, to_apply=add
  swap = f32[4] collective-permute(alone), channel_id=3, source_target_pairs={{0,1},{1,0}}
  rid = u32[] replica-id()
  f = f32[] convert(rid)
  fs = f32[4] broadcast(f), dimensions={}
  ROOT r = f32[4] add(swap, fs)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  SingleDeviceCollectives pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  // Only `alone` goes: each replica sums its own value.
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kAllReduce), 1);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kCollectivePermute), 1);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kReplicaId), 1);
}

}  // namespace
}  // namespace hloc

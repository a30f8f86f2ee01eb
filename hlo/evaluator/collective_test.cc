#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/evaluator/test_util.h"

namespace hloc {
namespace eval_test {
namespace {

// Runs `hlo` on one f32 vector per device; device d's is `per_device[d]`.
absl::StatusOr<std::vector<Literal>> RunReplicated(
    const std::string& hlo, const std::vector<std::vector<float>>& per_device) {
  auto module = ParseHloModule(hlo, "test.hlo");
  if (!module.ok()) return module.status();
  std::vector<std::vector<Literal>> args;
  for (const std::vector<float>& v : per_device) {
    args.emplace_back();
    args.back().push_back(Vec<float>(F32, v));
  }
  return EvaluateReplicated(**module, args);
}

std::vector<std::vector<float>> Iotas(int devices, int n) {
  std::vector<std::vector<float>> out(devices);
  for (int d = 0; d < devices; ++d) {
    for (int i = 0; i < n; ++i) out[d].push_back(10 * d + i);
  }
  return out;
}

const char kAdd[] = R"(
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
)";

std::string Module(const std::string& header, const std::string& in,
                   const std::string& out, const std::string& body) {
  return "HloModule m, " + header + "\n" + kAdd + "ENTRY %e (p: " + in +
         ") -> " + out + " {\n  %p = " + in + " parameter(0)\n" + body + "\n}";
}

TEST(Collectives, AllReduceInGroups) {
  auto r = RunReplicated(
      Module("replica_count=4", "f32[2]", "f32[2]",
             "  ROOT %r = f32[2] all-reduce(%p), replica_groups={{0,2},{1,3}}, "
             "to_apply=%add"),
      Iotas(4, 2));
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectFloats((*r)[0], {20, 22});
  ExpectFloats((*r)[1], {40, 42});
  ExpectFloats((*r)[2], {20, 22});
  ExpectFloats((*r)[3], {40, 42});
}

TEST(Collectives, EmptyGroupsMeanAllReplicas) {
  auto r = RunReplicated(
      Module("replica_count=3", "f32[1]", "f32[1]",
             "  ROOT %r = f32[1] all-reduce(%p), replica_groups={}, "
             "to_apply=%add"),
      Iotas(3, 1));
  ASSERT_TRUE(r.ok()) << r.status();
  for (const Literal& l : *r) ExpectFloats(l, {30});
}

TEST(Collectives, AllGatherAndReduceScatter) {
  auto r = RunReplicated(
      Module("replica_count=2", "f32[2]", "(f32[4], f32[1])",
             "  %g = f32[4] all-gather(%p), replica_groups={{1,0}}, "
             "dimensions={0}\n"
             "  %s = f32[1] reduce-scatter(%p), replica_groups={{0,1}}, "
             "dimensions={0}, to_apply=%add\n"
             "  ROOT %t = (f32[4], f32[1]) tuple(%g, %s)"),
      Iotas(2, 2));
  ASSERT_TRUE(r.ok()) << r.status();
  // Group {1,0}: device 1's block comes first.
  ExpectFloats((*r)[0].tuple_elements()[0], {10, 11, 0, 1});
  ExpectFloats((*r)[1].tuple_elements()[0], {10, 11, 0, 1});
  ExpectFloats((*r)[0].tuple_elements()[1], {10});
  ExpectFloats((*r)[1].tuple_elements()[1], {12});
}

TEST(Collectives, AllToAllBothForms) {
  auto r = RunReplicated(
      Module("replica_count=2", "f32[4]", "(f32[4], f32[2], f32[2])",
             "  %a = f32[4] all-to-all(%p), replica_groups={{0,1}}, "
             "dimensions={0}\n"
             "  %lo = f32[2] slice(%p), slice={[0:2]}\n"
             "  %hi = f32[2] slice(%p), slice={[2:4]}\n"
             "  %b = (f32[2], f32[2]) all-to-all(%lo, %hi), "
             "replica_groups={{0,1}}\n"
             "  %b0 = f32[2] get-tuple-element(%b), index=0\n"
             "  %b1 = f32[2] get-tuple-element(%b), index=1\n"
             "  ROOT %t = (f32[4], f32[2], f32[2]) tuple(%a, %b0, %b1)"),
      Iotas(2, 4));
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectFloats((*r)[0].tuple_elements()[0], {0, 1, 10, 11});
  ExpectFloats((*r)[1].tuple_elements()[0], {2, 3, 12, 13});
  ExpectFloats((*r)[1].tuple_elements()[1], {2, 3});
  ExpectFloats((*r)[1].tuple_elements()[2], {12, 13});
}

TEST(Collectives, PermuteGivesZerosToUntargetedDevices) {
  auto r = RunReplicated(
      Module("replica_count=3", "f32[1]", "f32[1]",
             "  ROOT %c = f32[1] collective-permute(%p), "
             "source_target_pairs={{0,1},{1,2}}"),
      Iotas(3, 1));
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectFloats((*r)[0], {0});
  ExpectFloats((*r)[1], {0});
  ExpectFloats((*r)[2], {10});
}

TEST(Collectives, PartitionsAndReplicaIds) {
  // 2 replicas x 2 partitions; a flattened-id all-reduce of each device's
  // replica-id * 10 + partition-id over devices {0,3} and {1,2}.
  const std::string hlo = R"(HloModule m, replica_count=2, num_partitions=2
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (p: f32[1]) -> f32[] {
  %p = f32[1] parameter(0)
  %r = u32[] replica-id()
  %q = u32[] partition-id()
  %ten = u32[] constant(10)
  %rt = u32[] multiply(%r, %ten)
  %id = u32[] add(%rt, %q)
  %f = f32[] convert(%id)
  ROOT %s = f32[] all-reduce(%f), channel_id=1, replica_groups={{0,3},{1,2}},
      use_global_device_ids=true, to_apply=%add
})";
  auto r = RunReplicated(hlo, Iotas(4, 1));
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectFloats((*r)[0], {11});
  ExpectFloats((*r)[1], {11});
  ExpectFloats((*r)[2], {11});
  ExpectFloats((*r)[3], {11});
}

TEST(Collectives, AllReduceInALoopMeetsTheSameIteration) {
  const std::string hlo = R"(HloModule m, replica_count=2
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
%cond (s: (s32[], f32[1])) -> pred[] {
  %s = (s32[], f32[1]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], f32[1])) -> (s32[], f32[1]) {
  %s = (s32[], f32[1]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[1] get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %j = s32[] add(%i, %one)
  %w = f32[1] all-reduce(%v), replica_groups={}, to_apply=%add
  ROOT %t = (s32[], f32[1]) tuple(%j, %w)
}
ENTRY %e (p: f32[1]) -> f32[1] {
  %p = f32[1] parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[1]) tuple(%zero, %p)
  %loop = (s32[], f32[1]) while(%init), condition=%cond, body=%body
  ROOT %out = f32[1] get-tuple-element(%loop), index=1
})";
  auto r = RunReplicated(hlo, {{1}, {2}});
  ASSERT_TRUE(r.ok()) << r.status();
  // 3 -> 6 -> 12 on both.
  ExpectFloats((*r)[0], {12});
  ExpectFloats((*r)[1], {12});
}

TEST(Collectives, DivergentControlFlowIsAnErrorNotAHang) {
  // Replica 1 skips the all-reduce.
  const std::string hlo = R"(HloModule m, replica_count=2
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
%reduce (x: f32[1]) -> f32[1] {
  %x = f32[1] parameter(0)
  ROOT %r = f32[1] all-reduce(%x), replica_groups={}, to_apply=%add
}
%keep (x: f32[1]) -> f32[1] {
  ROOT %x = f32[1] parameter(0)
}
ENTRY %e (p: f32[1]) -> f32[1] {
  %p = f32[1] parameter(0)
  %r = u32[] replica-id()
  ROOT %c = f32[1] conditional(%r, %p, %p), branch_computations={%reduce, %keep}
})";
  auto r = RunReplicated(hlo, {{1}, {2}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("finished without reaching all-reduce"),
            std::string::npos)
      << r.status();
}

TEST(Collectives, BadRunsAreClearErrors) {
  const std::string hlo =
      Module("replica_count=4", "f32[1]", "f32[1]",
             "  ROOT %r = f32[1] all-reduce(%p), replica_groups={}, "
             "to_apply=%add");
  auto r = RunReplicated(hlo, Iotas(2, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("runs on 4 devices"), std::string::npos)
      << r.status();
  // Groups for 2 replicas in a module of 4.
  r = RunReplicated(
      Module("replica_count=4", "f32[1]", "f32[1]",
             "  ROOT %r = f32[1] all-reduce(%p), replica_groups={{0,1}}, "
             "to_apply=%add"),
      Iotas(4, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("needs 4"), std::string::npos)
      << r.status();
}

TEST(Collectives, OneDeviceRunsAGroupOfOne) {
  Literal r = MustRun(
      Module("num_partitions=1", "f32[2]", "f32[2]",
             "  ROOT %r = f32[2] all-reduce(%p), replica_groups={}, "
             "to_apply=%add"),
      {Vec<float>(F32, {1, 2})});
  ExpectFloats(r, {1, 2});
}

}  // namespace
}  // namespace eval_test
}  // namespace hloc

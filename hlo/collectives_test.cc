#include "hlo/collectives.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/text/parser.h"

namespace hloc {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

// A module whose entry's root is the collective written in `instr` (operand
// %p, f32[8]; %add is the reduction).
std::unique_ptr<HloModule> ModuleWith(const std::string& shape,
                                      const std::string& instr) {
  const std::string text = R"(HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (p: f32[8]) -> )" + shape + R"( {
  %p = f32[8]{0} parameter(0)
  ROOT %c = )" + shape + " " + instr + R"(
})";
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

const HloInstruction& Root(const HloModule& m) {
  return *m.entry_computation()->root_instruction();
}

TEST(Collectives, ExpandsIotaGroups) {
  EXPECT_EQ(*ExpandIotaReplicaGroups("[2,4]<=[8]"),
            (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(*ExpandIotaReplicaGroups("[4,2]<=[2,4]T(1,0)"),
            (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_FALSE(ExpandIotaReplicaGroups("[3,3]<=[8]").ok());
  EXPECT_FALSE(ExpandIotaReplicaGroups("[2,4]<=[8]T(1)").ok());
  EXPECT_FALSE(ExpandIotaReplicaGroups("[2,4]").ok());
}

TEST(Collectives, GroupModes) {
  auto m = ModuleWith("f32[8]", "all-reduce(%p), to_apply=%add");
  EXPECT_EQ(*GetCollectiveGroupMode(Root(*m)),
            CollectiveGroupMode::kCrossReplica);
  m = ModuleWith("f32[8]", "all-reduce(%p), channel_id=1, to_apply=%add");
  EXPECT_EQ(*GetCollectiveGroupMode(Root(*m)),
            CollectiveGroupMode::kCrossReplicaAndPartition);
  m = ModuleWith("f32[8]",
                 "all-reduce(%p), channel_id=1, replica_groups={{0,1}}, "
                 "use_global_device_ids=true, to_apply=%add");
  EXPECT_EQ(*GetCollectiveGroupMode(Root(*m)),
            CollectiveGroupMode::kFlattenedId);
  m = ModuleWith("f32[8]", "all-to-all(%p), channel_id=1, dimensions={0}");
  EXPECT_EQ(*GetCollectiveGroupMode(Root(*m)),
            CollectiveGroupMode::kCrossPartition);
}

TEST(Collectives, ParticipantsOfEachMode) {
  // Cross-replica with 2 partitions: each partition has its own groups.
  auto m = ModuleWith("f32[8]",
                      "all-reduce(%p), replica_groups={{0,1}}, to_apply=%add");
  EXPECT_EQ(*ParticipantGroups(Root(*m), 2, 2), (Groups{{0, 2}, {1, 3}}));
  // Empty groups: all replicas.
  m = ModuleWith("f32[8]", "all-reduce(%p), replica_groups={}, to_apply=%add");
  EXPECT_EQ(*ParticipantGroups(Root(*m), 4, 1), (Groups{{0, 1, 2, 3}}));
  // Cross-partition all-to-all: one collective per replica.
  m = ModuleWith("f32[8]",
                 "all-to-all(%p), channel_id=1, replica_groups={{1,0}}, "
                 "dimensions={0}");
  EXPECT_EQ(*ParticipantGroups(Root(*m), 2, 2), (Groups{{1, 0}, {3, 2}}));
  // Cross replica and partition: every partition of the group's replicas.
  m = ModuleWith("f32[8]",
                 "all-reduce(%p), channel_id=1, replica_groups={{0},{1}}, "
                 "to_apply=%add");
  EXPECT_EQ(*ParticipantGroups(Root(*m), 2, 2), (Groups{{0, 1}, {2, 3}}));
  // Flattened ids, given as iota.
  m = ModuleWith("f32[8]",
                 "all-reduce(%p), channel_id=1, replica_groups=[2,2]<=[4], "
                 "use_global_device_ids=true, to_apply=%add");
  EXPECT_EQ(*ParticipantGroups(Root(*m), 1, 4), (Groups{{0, 1}, {2, 3}}));
}

TEST(Collectives, BadGroupsAreErrors) {
  auto m = ModuleWith("f32[8]",
                      "all-reduce(%p), replica_groups={{0,1},{1,2}}, "
                      "to_apply=%add");
  ASSERT_NE(m, nullptr);
  absl::Status s = CheckCollectiveGroups(Root(*m), 1, 1);
  EXPECT_NE(s.message().find("id 1 appears twice"), std::string::npos) << s;
  m = ModuleWith("f32[8]",
                 "all-reduce(%p), replica_groups={{0,2}}, to_apply=%add");
  s = CheckCollectiveGroups(Root(*m), 1, 1);
  EXPECT_NE(s.message().find("not id 1"), std::string::npos) << s;
  // Groups for 2 replicas in a run of 4.
  m = ModuleWith("f32[8]",
                 "all-reduce(%p), replica_groups={{0,1}}, to_apply=%add");
  s = ParticipantGroups(Root(*m), 4, 1).status();
  EXPECT_NE(s.message().find("needs 4"), std::string::npos) << s;
  m = ModuleWith("f32[8]",
                 "all-gather(%p), replica_groups={{0},{1,2}}, "
                 "dimensions={0}");
  s = CheckCollectiveGroups(Root(*m), 1, 1);
  EXPECT_NE(s.message().find("differ in size"), std::string::npos) << s;
}

TEST(Collectives, PermuteSources) {
  auto m = ModuleWith("f32[8]",
                      "collective-permute(%p), source_target_pairs={{0,1},{1,2}}");
  EXPECT_EQ(*PermuteSources(Root(*m), 4, 1),
            (std::vector<int64_t>{-1, 0, 1, -1}));
  // Cross-partition pairs apply within each replica.
  m = ModuleWith("f32[8]",
                 "collective-permute(%p), channel_id=2, "
                 "source_target_pairs={{1,0}}");
  EXPECT_EQ(*PermuteSources(Root(*m), 2, 2),
            (std::vector<int64_t>{1, -1, 3, -1}));
  m = ModuleWith("f32[8]",
                 "collective-permute(%p), source_target_pairs={{0,1},{2,1}}");
  absl::Status s = PermuteSources(Root(*m), 4, 1).status();
  EXPECT_NE(s.message().find("target 1 appears twice"), std::string::npos)
      << s;
  m = ModuleWith("f32[8]", "collective-permute(%p), source_target_pairs={{0,5}}");
  s = PermuteSources(Root(*m), 4, 1).status();
  EXPECT_NE(s.message().find("outside 0..3"), std::string::npos) << s;
}

TEST(Collectives, MatchCollectiveReduction) {
  auto parse = [](const std::string& body) {
    return ParseHloModule(absl::StrCat(
        "HloModule m\n\nr {\n", body,
        "\n}\n\nENTRY e {\n  ROOT c = f32[] constant(0)\n}\n"));
  };
  auto reduction = [&](const std::string& body)
      -> absl::StatusOr<CollectiveReduction> {
    auto m = parse(body);
    if (!m.ok()) return m.status();
    for (const HloComputation* c : (*m)->computations()) {
      if (c->name() == "r") return MatchCollectiveReduction(*c);
    }
    return absl::InternalError("no r");
  };
  EXPECT_EQ(*reduction("a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
                       "ROOT s = f32[] add(a, b)"),
            CollectiveReduction::kSum);
  // Parameters in either order.
  EXPECT_EQ(*reduction("a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
                       "ROOT s = s32[] maximum(b, a)"),
            CollectiveReduction::kMax);
  EXPECT_EQ(*reduction("a = pred[] parameter(0)\n b = pred[] parameter(1)\n"
                       "ROOT s = pred[] and(a, b)"),
            CollectiveReduction::kMin);
  EXPECT_EQ(*reduction("a = f64[] parameter(0)\n b = f64[] parameter(1)\n"
                       "ROOT s = f64[] multiply(a, b)"),
            CollectiveReduction::kProduct);
  // Not a plain reduction: the evaluator's business.
  EXPECT_TRUE(absl::IsNotFound(
      reduction("a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
                "ROOT s = f32[] subtract(a, b)")
          .status()));
  EXPECT_TRUE(absl::IsNotFound(
      reduction("a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
                "ROOT s = f32[] add(a, a)")
          .status()));
  EXPECT_TRUE(absl::IsNotFound(
      reduction("a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
                "ROOT s = s32[] and(a, b)")
          .status()));
}

}  // namespace
}  // namespace hloc

// async-collectives-to-sync turns XLA:GPU's start/done pairs into the
// collectives they run, with the same results on every device of a
// replicated evaluation as the module written with synchronous
// collectives.
#include "passes/async_collectives_to_sync.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/evaluator/evaluator.h"
#include "passes/test_util.h"

namespace hloc {
namespace {

constexpr char kReductions[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

wrapped_rs {
  x = f32[8] parameter(0)
  ROOT rs = f32[4] reduce-scatter(x), replica_groups={{0,1}}, dimensions={0}, to_apply=add
}
)";

constexpr char kAsync[] = R"(
ENTRY e {
  p = f32[8] parameter(0)
  ars = f32[8] all-reduce-start(p), replica_groups={{0,1}}, to_apply=add
  ard = f32[8] all-reduce-done(ars)
  ags = (f32[8], f32[16]) all-gather-start(ard), replica_groups={{0,1}}, dimensions={0}
  agd = f32[16] all-gather-done(ags)
  cps = (f32[8], f32[8], u32[], u32[]) collective-permute-start(p), source_target_pairs={{0,1}}
  cpd = f32[8] collective-permute-done(cps)
  rss = ((f32[8]), f32[4], u32[]) async-start(cpd), calls=wrapped_rs
  rsd = f32[4] async-done(rss)
  ROOT t = (f32[16], f32[4]) tuple(agd, rsd)
}
)";

constexpr char kSync[] = R"(
ENTRY e {
  p = f32[8] parameter(0)
  ard = f32[8] all-reduce(p), replica_groups={{0,1}}, to_apply=add
  agd = f32[16] all-gather(ard), replica_groups={{0,1}}, dimensions={0}
  cpd = f32[8] collective-permute(p), source_target_pairs={{0,1}}
  rsd = f32[4] reduce-scatter(cpd), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  ROOT t = (f32[16], f32[4]) tuple(agd, rsd)
}
)";

std::string Module(const char* entry) {
  return std::string("HloModule m, replica_count=2\n") + kReductions + entry;
}

TEST(AsyncCollectivesToSync, PairsBecomeCollectivesWithTheSameResults) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseAndVerify(Module(kAsync));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<HloModule>> sync =
      ParseAndVerify(Module(kSync));
  ASSERT_TRUE(sync.ok()) << sync.status();

  AsyncCollectivesToSync pass;
  absl::StatusOr<bool> changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  // The entry's instructions (the async wrapper computation stays, unused).
  auto count = [&](HloOpcode opcode) {
    int64_t n = 0;
    for (const HloInstruction* instr :
         (*module)->entry_computation()->instructions()) {
      n += instr->opcode() == opcode;
    }
    return n;
  };
  for (HloOpcode gone :
       {HloOpcode::kAllReduceStart, HloOpcode::kAllReduceDone,
        HloOpcode::kAllGatherStart, HloOpcode::kAllGatherDone,
        HloOpcode::kCollectivePermuteStart, HloOpcode::kCollectivePermuteDone,
        HloOpcode::kAsyncStart, HloOpcode::kAsyncDone}) {
    EXPECT_EQ(count(gone), 0) << HloOpcodeString(gone);
  }
  for (HloOpcode kept : {HloOpcode::kAllReduce, HloOpcode::kAllGather,
                         HloOpcode::kCollectivePermute,
                         HloOpcode::kReduceScatter}) {
    EXPECT_EQ(count(kept), 1) << HloOpcodeString(kept);
  }
  // The collectives keep the names of the dones.
  EXPECT_NE(FindInstruction(**module, "ard"), nullptr);
  EXPECT_EQ(FindInstruction(**module, "ard")->opcode(), HloOpcode::kAllReduce);

  std::vector<std::vector<Literal>> inputs(2);
  for (int d = 0; d < 2; ++d) {
    inputs[d].push_back(MakeUniformInput(
        (*module)->entry_computation()->parameter_instruction(0)->shape(),
        static_cast<uint32_t>(d + 1)));
  }
  absl::StatusOr<std::vector<Literal>> got =
      EvaluateReplicated(**module, inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<std::vector<Literal>> want =
      EvaluateReplicated(**sync, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  for (int d = 0; d < 2; ++d) {
    EXPECT_TRUE((*got)[d] == (*want)[d]) << "device " << d;
  }
  // Device 0 receives nothing from the permute: zeros, scattered.
  EXPECT_FALSE((*got)[0] == (*got)[1]);

  // A second run finds nothing to do.
  changed = RunAndVerify(pass, module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
}

TEST(AsyncCollectivesToSync, DoneOfSomethingElseIsAnError) {
  // all-reduce-done of a plain value is not what XLA writes; the verifier
  // lets it through (it checks shapes), the pass names it.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseAndVerify(
      Module("ENTRY e {\n  p = f32[8] parameter(0)\n  ROOT d = f32[8] "
             "all-reduce-done(p)\n}\n"));
  ASSERT_TRUE(module.ok()) << module.status();
  AsyncCollectivesToSync pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("not its start"),
            std::string::npos)
      << changed.status();
}

}  // namespace
}  // namespace hloc

// Collectives on the CPU: every collective op, replicated over host
// threads (runtime/host_collectives.h), against the evaluator's replicated
// run (EvaluateReplicated, the oracle) at several device counts, group
// layouts and element types, on random inputs per device. The host reduces
// in rank order with the evaluator's own kernels, so results must match
// bit for bit. Modules go through the cpu pipeline first (collective-layout
// turns a gather along a minor dimension into one along the major one) and
// compile strictly: no collective may fall back to the evaluator.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "backends/cpu/aarch64_aot.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/op_test_util.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "passes/pipelines.h"
#include "runtime/host_collectives.h"

namespace hloc {
namespace {

using testing_util::MakeOpInput;

// Leaf by leaf: the same shape and the same bytes.
void ExpectSameBits(const Literal& expected, const Literal& actual,
                    const std::string& what) {
  ASSERT_EQ(expected.shape().IsTuple(), actual.shape().IsTuple()) << what;
  if (expected.shape().IsTuple()) {
    ASSERT_EQ(expected.tuple_elements().size(), actual.tuple_elements().size())
        << what;
    for (size_t i = 0; i < expected.tuple_elements().size(); ++i) {
      ExpectSameBits(expected.tuple_elements()[i], actual.tuple_elements()[i],
                     absl::StrCat(what, "{", i, "}"));
    }
    return;
  }
  ASSERT_TRUE(expected.shape().Compatible(actual.shape()))
      << what << ": " << expected.shape().ToString() << " vs "
      << actual.shape().ToString();
  EXPECT_EQ(0, std::memcmp(expected.untyped_data(), actual.untyped_data(),
                           expected.size_bytes()))
      << what << "\n expected " << expected.ValuesToString() << "\n got      "
      << actual.ValuesToString();
}

// MakeOpInput's values; complex ones get both parts random.
Literal DeviceInput(const Shape& shape, uint32_t seed) {
  const PrimitiveType type = shape.IsArray() ? shape.element_type() : F32;
  if (type != C64 && type != C128) return MakeOpInput(shape, seed);
  Literal parts = MakeOpInput(
      Shape::Array(type == C64 ? F32 : F64, {2 * shape.ElementCount()}), seed);
  Literal literal(shape);
  std::memcpy(literal.untyped_data(), parts.untyped_data(),
              literal.size_bytes());
  return literal;
}

absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileStrict(
    const HloModule& module) {
  std::unique_ptr<HloModule> optimized = module.Clone();
  absl::StatusOr<HloPassPipeline> pipeline =
      MakePipeline("cpu", PipelineOptions{});
  if (!pipeline.ok()) return pipeline.status();
  absl::StatusOr<bool> changed = pipeline->Run(optimized.get());
  if (!changed.ok()) return changed.status();
  CpuCompileOptions options;
  options.allow_fallback = false;
  options.log_fallbacks = false;
  return CompileForCpu(*optimized, options);
}

absl::StatusOr<std::vector<Literal>> RunOnCpu(
    CpuExecutable& executable, const std::vector<std::vector<Literal>>& args) {
  HostCollectives collectives(static_cast<int64_t>(args.size()));
  return RunOnHostDevices(collectives, [&](int64_t device) {
    return executable.Run(args[device], DenormalMode::kKeep, 0,
                          HostReplica{device, &collectives});
  });
}

// Runs `text` on every device of its replica_count x num_partitions, on the
// cpu and in the evaluator, and compares every device's result.
void CheckModule(const std::string& text) {
  SCOPED_TRACE(text);
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModule(text, "collectives.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloModuleConfig& config = (*module)->config();
  const int64_t devices = config.replica_count * config.num_partitions;
  const HloComputation* entry = (*module)->entry_computation();
  std::vector<std::vector<Literal>> args(devices);
  for (int64_t d = 0; d < devices; ++d) {
    for (int64_t i = 0; i < entry->num_parameters(); ++i) {
      args[d].push_back(DeviceInput(entry->parameter_instruction(i)->shape(),
                                    static_cast<uint32_t>(100 * d + i + 1)));
    }
  }
  absl::StatusOr<std::vector<Literal>> expected =
      EvaluateReplicated(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileStrict(**module);
  ASSERT_TRUE(executable.ok()) << executable.status();
  absl::StatusOr<std::vector<Literal>> actual = RunOnCpu(**executable, args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  ASSERT_EQ(actual->size(), static_cast<size_t>(devices));
  for (int64_t d = 0; d < devices; ++d) {
    ExpectSameBits((*expected)[d], (*actual)[d], absl::StrCat("device ", d));
  }
}

// A module of one entry: `params` ("p0: f32[4], ..."), `body` (its
// instructions, the last ROOT), a reduction %red of `type` by `opcode`.
std::string Module(int64_t replicas, int64_t partitions,
                   const std::string& type, const std::string& opcode,
                   const std::string& params, const std::string& result,
                   const std::string& body) {
  std::string parameters;
  std::vector<std::string> declared = absl::StrSplit(params, ", ");
  for (size_t i = 0; i < declared.size() && !params.empty(); ++i) {
    const std::string name = declared[i].substr(0, declared[i].find(':'));
    const std::string shape = declared[i].substr(declared[i].find(':') + 2);
    absl::StrAppend(&parameters, "  %", name, " = ", shape, " parameter(", i,
                    ")\n");
  }
  return absl::StrCat("HloModule collectives, replica_count=", replicas,
                      ", num_partitions=", partitions, "\n\n%red (a: ", type,
                      "[], b: ", type, "[]) -> ", type, "[] {\n  %a = ", type,
                      "[] parameter(0)\n  %b = ", type,
                      "[] parameter(1)\n  ROOT %r = ", type, "[] ", opcode,
                      "(%a, %b)\n}\n\nENTRY %main (", params, ") -> ", result,
                      " {\n", parameters, body, "\n}\n");
}

struct Reduction {
  std::string type;
  std::string opcode;
};

std::vector<Reduction> Reductions() {
  std::vector<Reduction> all;
  for (const char* type : {"f32", "bf16", "s32", "f64"}) {
    for (const char* opcode : {"add", "multiply", "minimum", "maximum"}) {
      all.push_back({type, opcode});
    }
  }
  for (const char* opcode : {"and", "or", "add"}) {
    all.push_back({"pred", opcode});
  }
  // The other types the host reduces, more briefly; complex min and max
  // are not defined.
  for (const char* type : {"s8", "u64", "f16", "c64", "c128"}) {
    for (const char* opcode : {"add", "multiply"})
      all.push_back({type, opcode});
  }
  all.push_back({"s8", "minimum"});
  all.push_back({"u64", "maximum"});
  all.push_back({"f16", "maximum"});
  return all;
}

TEST(CpuCollectivesTest, AllReduceEveryReductionAndType) {
  for (int64_t replicas : {1, 2, 4}) {
    for (const Reduction& r : Reductions()) {
      const std::string shape = r.type + "[3,5]";
      CheckModule(Module(replicas, 1, r.type, r.opcode, "p: " + shape, shape,
                         "  ROOT %ar = " + shape +
                             " all-reduce(%p), replica_groups={}, "
                             "to_apply=%red"));
    }
  }
}

TEST(CpuCollectivesTest, AllReduceOfATuple) {
  for (int64_t replicas : {2, 3}) {
    CheckModule(Module(replicas, 1, "f32", "add", "p0: f32[7], p1: f32[2,3]",
                       "(f32[7], f32[2,3])",
                       "  ROOT %ar = (f32[7], f32[2,3]) all-reduce(%p0, %p1), "
                       "replica_groups={}, to_apply=%red"));
  }
}

TEST(CpuCollectivesTest, AllReduceGroupLayouts) {
  for (const char* groups :
       {"{{0,1},{2,3}}", "{{0,2},{1,3}}", "[2,2]<=[4]", "[2,2]<=[2,2]T(1,0)",
        "{{3,1,0,2}}", "{{0},{1},{2},{3}}"}) {
    for (const char* type : {"f32", "s32"}) {
      const std::string shape = absl::StrCat(type, "[6]");
      CheckModule(Module(4, 1, type, "add", "p: " + shape, shape,
                         absl::StrCat("  ROOT %ar = ", shape,
                                      " all-reduce(%p), replica_groups=",
                                      groups, ", to_apply=%red")));
    }
  }
}

TEST(CpuCollectivesTest, EightReplicas) {
  CheckModule(Module(8, 1, "bf16", "add", "p: bf16[33]", "bf16[33]",
                     "  ROOT %ar = bf16[33] all-reduce(%p), "
                     "replica_groups={}, to_apply=%red"));
  CheckModule(Module(8, 1, "f32", "add", "p: f32[2,3]", "f32[16,3]",
                     "  ROOT %ag = f32[16,3] all-gather(%p), "
                     "replica_groups={}, dimensions={0}"));
}

TEST(CpuCollectivesTest, AllGatherAlongMajorAndMinorDimensions) {
  for (int64_t replicas : {1, 2, 4}) {
    for (const char* type : {"f32", "bf16", "s32", "pred", "f64"}) {
      const std::string in = absl::StrCat(type, "[2,3]");
      CheckModule(Module(replicas, 1, "f32", "add", "p: " + in,
                         absl::StrCat(type, "[", 2 * replicas, ",3]"),
                         absl::StrCat("  ROOT %ag = ", type, "[", 2 * replicas,
                                      ",3] all-gather(%p), replica_groups={}, "
                                      "dimensions={0}")));
      CheckModule(
          Module(replicas, 1, "f32", "add", "p: " + in,
                 absl::StrCat(type, "[2,", 3 * replicas, "]"),
                 absl::StrCat("  ROOT %ag = ", type, "[2,", 3 * replicas,
                              "] all-gather(%p), replica_groups={}, "
                              "dimensions={1}")));
    }
  }
  CheckModule(Module(4, 1, "f32", "add", "p: f32[2,3]", "f32[2,6]",
                     "  ROOT %ag = f32[2,6] all-gather(%p), "
                     "replica_groups={{0,2},{1,3}}, dimensions={1}"));
}

TEST(CpuCollectivesTest, ReduceScatterAlongMajorAndMinorDimensions) {
  for (int64_t replicas : {1, 2, 4}) {
    for (const Reduction& r : std::vector<Reduction>{{"f32", "add"},
                                                     {"bf16", "add"},
                                                     {"s32", "maximum"},
                                                     {"f64", "multiply"},
                                                     {"pred", "or"}}) {
      const std::string in =
          absl::StrCat(r.type, "[", 2 * replicas, ",", 4 * replicas, "]");
      CheckModule(
          Module(replicas, 1, r.type, r.opcode, "p: " + in,
                 absl::StrCat(r.type, "[2,", 4 * replicas, "]"),
                 absl::StrCat("  ROOT %rs = ", r.type, "[2,", 4 * replicas,
                              "] reduce-scatter(%p), replica_groups={}, "
                              "dimensions={0}, to_apply=%red")));
      CheckModule(
          Module(replicas, 1, r.type, r.opcode, "p: " + in,
                 absl::StrCat(r.type, "[", 2 * replicas, ",4]"),
                 absl::StrCat("  ROOT %rs = ", r.type, "[", 2 * replicas,
                              ",4] reduce-scatter(%p), replica_groups={}, "
                              "dimensions={1}, to_apply=%red")));
    }
  }
  CheckModule(Module(4, 1, "f32", "add", "p: f32[4,6]", "f32[2,6]",
                     "  ROOT %rs = f32[2,6] reduce-scatter(%p), "
                     "replica_groups=[2,2]<=[4], dimensions={0}, "
                     "to_apply=%red"));
}

TEST(CpuCollectivesTest, AllToAll) {
  for (int64_t replicas : {1, 2, 4}) {
    for (const char* type : {"f32", "bf16", "s32", "pred", "f64"}) {
      const std::string shape =
          absl::StrCat(type, "[", 2 * replicas, ",", 3 * replicas, "]");
      for (const char* dim : {"0", "1"}) {
        CheckModule(Module(replicas, 1, "f32", "add", "p: " + shape, shape,
                           absl::StrCat("  ROOT %a2a = ", shape,
                                        " all-to-all(%p), replica_groups={}, "
                                        "dimensions={",
                                        dim, "}")));
      }
    }
  }
  CheckModule(Module(4, 1, "f32", "add", "p: f32[4,2]", "f32[4,2]",
                     "  ROOT %a2a = f32[4,2] all-to-all(%p), "
                     "replica_groups={{0,3},{1,2}}, dimensions={0}"));
  // The tuple form: operand j goes to rank j.
  CheckModule(Module(2, 1, "f32", "add", "p0: s32[3], p1: s32[3]",
                     "(s32[3], s32[3])",
                     "  ROOT %a2a = (s32[3], s32[3]) all-to-all(%p0, %p1), "
                     "replica_groups={}"));
  CheckModule(Module(4, 1, "f32", "add", "p0: f32[2], p1: f32[2]",
                     "(f32[2], f32[2])",
                     "  ROOT %a2a = (f32[2], f32[2]) all-to-all(%p0, %p1), "
                     "replica_groups={{0,1},{2,3}}"));
}

TEST(CpuCollectivesTest, CollectivePermute) {
  for (const char* type : {"f32", "bf16", "s32", "pred", "f64"}) {
    const std::string shape = absl::StrCat(type, "[5]");
    // Device 0 receives nothing (zeros).
    CheckModule(Module(4, 1, "f32", "add", "p: " + shape, shape,
                       "  ROOT %cp = " + shape +
                           " collective-permute(%p), "
                           "source_target_pairs={{0,1},{1,2},{2,3}}"));
  }
  CheckModule(Module(3, 1, "f32", "add", "p: f32[2,2]", "f32[2,2]",
                     "  ROOT %cp = f32[2,2] collective-permute(%p), "
                     "source_target_pairs={{0,2},{2,0},{1,1}}"));
  CheckModule(Module(1, 1, "f32", "add", "p: f32[3]", "f32[3]",
                     "  ROOT %cp = f32[3] collective-permute(%p), "
                     "source_target_pairs={{0,0}}"));
}

TEST(CpuCollectivesTest, DeviceIds) {
  for (auto [replicas, partitions] : std::vector<std::pair<int64_t, int64_t>>{
           {1, 1}, {4, 1}, {2, 2}, {1, 3}}) {
    CheckModule(Module(replicas, partitions, "f32", "add", "", "(u32[], u32[])",
                       "  %r = u32[] replica-id()\n"
                       "  %q = u32[] partition-id()\n"
                       "  ROOT %t = (u32[], u32[]) tuple(%r, %q)"));
  }
}

// Partitioned modules as SPMD partitioning writes them: channel ids, global
// device ids, and collectives across replicas within a partition.
TEST(CpuCollectivesTest, PartitionedModules) {
  CheckModule(
      Module(2, 2, "f32", "add", "p: f32[4]", "f32[4]",
             "  ROOT %ar = f32[4] all-reduce(%p), channel_id=1, "
             "replica_groups={{0,1},{2,3}}, use_global_device_ids=true, "
             "to_apply=%red"));
  CheckModule(Module(1, 4, "f32", "add", "p: f32[2,3]", "f32[8,3]",
                     "  ROOT %ag = f32[8,3] all-gather(%p), channel_id=2, "
                     "replica_groups=[1,4]<=[4], use_global_device_ids=true, "
                     "dimensions={0}"));
  // channel_id without global ids: the groups are of partitions, in every
  // replica.
  CheckModule(Module(2, 2, "s32", "add", "p: s32[4]", "s32[4]",
                     "  ROOT %ar = s32[4] all-reduce(%p), channel_id=3, "
                     "replica_groups={{0,1}}, to_apply=%red"));
  // No channel_id: across replicas, within each partition.
  CheckModule(Module(2, 2, "f64", "add", "p: f64[4]", "f64[4]",
                     "  ROOT %ar = f64[4] all-reduce(%p), "
                     "replica_groups={{0,1}}, to_apply=%red"));
  CheckModule(
      Module(1, 4, "f32", "add", "p: f32[3]", "f32[3]",
             "  ROOT %cp = f32[3] collective-permute(%p), "
             "channel_id=4, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}"));
  CheckModule(Module(1, 4, "bf16", "add", "p: bf16[8,2]", "bf16[8,2]",
                     "  %pid = u32[] partition-id()\n"
                     "  %c = bf16[] convert(%pid)\n"
                     "  %b = bf16[8,2] broadcast(%c), dimensions={}\n"
                     "  %m = bf16[8,2] multiply(%p, %b)\n"
                     "  ROOT %a2a = bf16[8,2] all-to-all(%m), channel_id=5, "
                     "replica_groups={{0,1,2,3}}, dimensions={0}"));
}

// Collectives between kernels, two in a row on the same values.
TEST(CpuCollectivesTest, CollectivesBetweenKernels) {
  CheckModule(Module(4, 1, "f32", "add", "p: f32[16,8]",
                     "(f32[16,8], f32[4,8])",
                     "  %e = f32[16,8] add(%p, %p)\n"
                     "  %ar = f32[16,8] all-reduce(%e), replica_groups={}, "
                     "to_apply=%red\n"
                     "  %n = f32[16,8] negate(%ar)\n"
                     "  %rs = f32[4,8] reduce-scatter(%n), replica_groups={}, "
                     "dimensions={0}, to_apply=%red\n"
                     "  ROOT %t = (f32[16,8], f32[4,8]) tuple(%ar, %rs)"));
}

// pmap's form: the result a bitcast of the collective's (its own slot over
// the collective's bytes), and a tuple returning a parameter beside it.
TEST(CpuCollectivesTest, ResultsThatBitcastACollective) {
  CheckModule(Module(4, 1, "f32", "add", "p: f32[1,8,6]", "f32[1,8,6]",
                     "  %b = f32[8,6] bitcast(%p)\n"
                     "  %ar = f32[8,6] all-reduce(%b), channel_id=1, "
                     "replica_groups={{0,1,2,3}}, use_global_device_ids=true, "
                     "to_apply=%red\n"
                     "  ROOT %r = f32[1,8,6] bitcast(%ar)"));
  CheckModule(Module(2, 1, "s32", "add", "p: s32[4]", "(s32[1,4], s32[4])",
                     "  %ar = s32[4] all-reduce(%p), replica_groups={}, "
                     "to_apply=%red\n"
                     "  %b = s32[1,4] bitcast(%ar)\n"
                     "  ROOT %t = (s32[1,4], s32[4]) tuple(%b, %p)"));
}

// A collective inside a while body (the cpu compiles the loop whole) has no
// peers to meet: an error on more than one device, never a wrong answer;
// on one device it runs.
TEST(CpuCollectivesTest, CollectivesInsideAWhileAreRefusedOnManyDevices) {
  const std::string body = R"(
%body (s: (s32[], f32[4])) -> (s32[], f32[4]) {
  %s = (s32[], f32[4]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %x = f32[4] get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %i1 = s32[] add(%i, %one)
  %id = u32[] replica-id()
  %f = f32[] convert(%id)
  %b = f32[4] broadcast(%f), dimensions={}
  %y = f32[4] add(%x, %b)
  ROOT %t = (s32[], f32[4]) tuple(%i1, %y)
}

%cond (s: (s32[], f32[4])) -> pred[] {
  %s = (s32[], f32[4]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4] parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[4]) tuple(%zero, %p)
  %w = (s32[], f32[4]) while(%init), condition=%cond, body=%body
  ROOT %r = f32[4] get-tuple-element(%w), index=1
}
)";
  for (int64_t replicas : {1, 2}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
        absl::StrCat("HloModule loop, replica_count=", replicas, "\n", body),
        "loop.hlo");
    ASSERT_TRUE(module.ok()) << module.status();
    CpuCompileOptions options;
    options.log_fallbacks = false;
    absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
        CompileForCpu(**module, options);
    ASSERT_TRUE(executable.ok()) << executable.status();
    std::vector<std::vector<Literal>> args(replicas);
    for (auto& device : args)
      device.push_back(MakeOpInput(
          (*module)->entry_computation()->parameter_instruction(0)->shape(),
          5));
    absl::StatusOr<std::vector<Literal>> results = RunOnCpu(**executable, args);
    if (replicas == 1) {
      ASSERT_TRUE(results.ok()) << results.status();
      absl::StatusOr<std::vector<Literal>> expected =
          EvaluateReplicated(**module, args);
      ASSERT_TRUE(expected.ok()) << expected.status();
      ExpectSameBits((*expected)[0], (*results)[0], "device 0");
      continue;
    }
    ASSERT_FALSE(results.ok());
    EXPECT_TRUE(absl::IsUnimplemented(results.status())) << results.status();
    EXPECT_NE(
        std::string(results.status().message()).find("holds replica-id id"),
        std::string::npos)
        << results.status();
  }
}

// Saved AArch64 executables carry the same collective steps; the qemu
// driver cannot run them, which the compiled module says.
TEST(CpuCollectivesTest, Aarch64ExecutablesCarryCollectiveSteps) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
      Module(2, 1, "f32", "add", "p: f32[4]", "f32[4]",
             "  %n = f32[4] negate(%p)\n"
             "  ROOT %ar = f32[4] all-reduce(%n), replica_groups={}, "
             "to_apply=%red"),
      "aarch64.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Aarch64AotModule> compiled = CompileForAarch64(**module);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  int collectives = 0;
  for (const ExecutableStep& step : compiled->executable.steps) {
    if (step.kind != ExecutableStep::Kind::kCollective) continue;
    ++collectives;
    EXPECT_EQ(step.collective.op, CollectiveConfig::Op::kAllReduce);
    EXPECT_EQ(step.collective.groups,
              (std::vector<std::vector<int64_t>>{{0, 1}}));
  }
  EXPECT_EQ(collectives, 1);
  ASSERT_EQ(compiled->missing.size(), 1u);
  EXPECT_NE(compiled->missing[0].find("ar (all-reduce, a collective step)"),
            std::string::npos)
      << compiled->missing[0];
  EXPECT_TRUE(ValidateExecutable(compiled->executable).ok());
}

// A form the runtimes do not run (a to_apply that is no sum, product, min or
// max) goes to the evaluator with the step maker's reason; the AArch64
// object, which has no evaluator, names it missing.
TEST(CpuCollectivesTest, ADeclinedFormFallsBackWithItsReason) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
      Module(2, 1, "f32", "subtract", "p: f32[4]", "f32[4]",
             "  ROOT %ar = f32[4] all-reduce(%p), replica_groups={}, "
             "to_apply=%red"),
      "declined.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string reason_start = "all-reduce ar: ";

  CpuCompileOptions options;
  options.log_fallbacks = false;
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileForCpu(**module, options);
  ASSERT_TRUE(executable.ok()) << executable.status();
  int fallbacks = 0;
  for (const CpuStep& step : (*executable)->steps()) {
    if (step.instruction->name() != "ar") continue;
    ++fallbacks;
    EXPECT_EQ(step.kind, CpuStep::Kind::kEvaluator);
    EXPECT_EQ(step.fallback_reason.rfind(reason_start, 0), 0u)
        << step.fallback_reason;
  }
  EXPECT_EQ(fallbacks, 1);

  options.allow_fallback = false;
  executable = CompileForCpu(**module, options);
  ASSERT_FALSE(executable.ok());
  EXPECT_NE(std::string(executable.status().message()).find(reason_start),
            std::string::npos)
      << executable.status();

  Aarch64AotOptions aarch64_options;
  absl::StatusOr<Aarch64AotModule> compiled =
      CompileForAarch64(**module, aarch64_options);
  ASSERT_FALSE(compiled.ok());
  EXPECT_NE(std::string(compiled.status().message()).find(reason_start),
            std::string::npos)
      << compiled.status();
  aarch64_options.allow_fallback = true;
  aarch64_options.log_fallbacks = false;
  compiled = CompileForAarch64(**module, aarch64_options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_EQ(compiled->missing.size(), 1u);
  EXPECT_EQ(compiled->missing[0], "ar (all-reduce)");
  int evaluator_steps = 0;
  for (const ExecutableStep& step : compiled->executable.steps) {
    if (step.kind != ExecutableStep::Kind::kEvaluator) continue;
    ++evaluator_steps;
    EXPECT_EQ(step.fallback_reason.rfind(reason_start, 0), 0u)
        << step.fallback_reason;
  }
  EXPECT_EQ(evaluator_steps, 1);
}

// A module for four devices run as one: a clear error.
TEST(CpuCollectivesTest, ARunWithTooFewDevicesIsAnError) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
      Module(4, 1, "f32", "add", "p: f32[2]", "f32[2]",
             "  ROOT %ar = f32[2] all-reduce(%p), replica_groups={}, "
             "to_apply=%red"),
      "four.hlo");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
      CompileStrict(**module);
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<Literal> args;
  args.push_back(MakeOpInput(
      (*module)->entry_computation()->parameter_instruction(0)->shape(), 1));
  absl::StatusOr<Literal> result = (*executable)->Run(args);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(
      std::string(result.status().message()).find("compiled for 4 devices"),
      std::string::npos)
      << result.status();
}

}  // namespace
}  // namespace hloc

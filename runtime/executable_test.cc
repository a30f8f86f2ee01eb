// The executable format and the CPU executor without any code generation:
// executables whose every step runs in the evaluator (so no LLVM is
// involved), saved, loaded and run against the evaluator on the whole
// module; and truncated, corrupted or inconsistent files, which must give
// a clear error.
#include "runtime/executable.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "runtime/buffer_assignment.h"
#include "runtime/cpu_executor.h"

namespace hloc {
namespace {

constexpr char kModule[] = R"(
HloModule sample
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,3] parameter(0)
  p = (f32[3], s32[]) parameter(1)
  y = f32[3] get-tuple-element(p), index=0
  k = f32[3] constant({1, 2, 3})
  yk = f32[3] multiply(y, k)
  b = f32[4,3] broadcast(yk), dimensions={1}
  e = f32[4,3] exponential(x)
  m = f32[4,3] add(e, b)
  n = f32[4,3] negate(m)
  zero = f32[] constant(0)
  r = f32[4] reduce(n, zero), dimensions={1}, to_apply=add
  t = f32[3,4]{0,1} transpose(n), dimensions={1,0}
  i = s32[] get-tuple-element(p), index=1
  ROOT out = (f32[4], f32[3,4]{0,1}, s32[]) tuple(r, t, i)
}
)";

// Every step in the evaluator: the executable a compiler without code
// generation would make.
Executable EvaluatorOnly(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  std::vector<HloInstruction*> order = entry->MakeInstructionPostOrder();
  auto assignment = AssignBuffers(*entry, order);
  EXPECT_TRUE(assignment.ok()) << assignment.status();
  Executable e;
  e.name = module.name();
  e.hlo_module = PrintModule(module);
  EXPECT_TRUE(SetBufferPlan(*assignment, *entry, &e).ok());
  for (const HloInstruction* instr : order) {
    if (instr->opcode() == HloOpcode::kParameter ||
        instr->opcode() == HloOpcode::kConstant || IsBufferAlias(*instr)) {
      continue;
    }
    ExecutableStep step;
    step.kind = ExecutableStep::Kind::kEvaluator;
    step.instruction = instr->name();
    for (const HloInstruction* operand : instr->operands()) {
      const std::vector<int64_t>& l = assignment->LeafValues(operand);
      step.buffers.insert(step.buffers.end(), l.begin(), l.end());
    }
    const std::vector<int64_t>& l = assignment->LeafValues(instr);
    step.buffers.insert(step.buffers.end(), l.begin(), l.end());
    auto fallback = MakeFallbackModule(*instr);
    EXPECT_TRUE(fallback.ok()) << fallback.status();
    step.fallback_hlo = PrintModule(**fallback);
    step.fallback_reason = "test";
    e.steps.push_back(std::move(step));
  }
  return e;
}

CpuExecutor::KernelResolver NoKernels() {
  return [](const std::string& symbol) -> absl::StatusOr<void*> {
    return absl::NotFoundError(symbol);
  };
}

std::vector<Literal> Arguments() {
  Literal x = Literal::FromVector<float>(
      Shape::Array(F32, {4, 3}),
      {0.5f, -1, 2, 0.25f, 3, -0.5f, 1, 1.5f, -2, 0, 0.75f, -0.25f});
  Literal y = Literal::FromVector<float>(Shape::Array(F32, {3}), {1, -2, 0.5f});
  Literal i = Literal::CreateR0<int32_t>(S32, 7);
  std::vector<Literal> args;
  args.push_back(std::move(x));
  std::vector<Literal> elements;
  elements.push_back(std::move(y));
  elements.push_back(std::move(i));
  args.push_back(Literal::MakeTuple(std::move(elements)));
  return args;
}

void ExpectSameLiteral(const Literal& a, const Literal& b) {
  ASSERT_TRUE(a.shape().Compatible(b.shape()))
      << a.shape().ToString() << " vs " << b.shape().ToString();
  if (a.shape().IsTuple()) {
    for (size_t i = 0; i < a.tuple_elements().size(); ++i) {
      ExpectSameLiteral(a.tuple_elements()[i], b.tuple_elements()[i]);
    }
    return;
  }
  ASSERT_EQ(a.size_bytes(), b.size_bytes());
  EXPECT_EQ(0, std::memcmp(a.untyped_data(), b.untyped_data(), a.size_bytes()))
      << a.ValuesToString() << " vs " << b.ValuesToString();
}

class ExecutableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto module = ParseHloModule(kModule);
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *std::move(module);
    executable_ = EvaluatorOnly(*module_);
    auto expected = EvaluateModule(*module_, Arguments());
    ASSERT_TRUE(expected.ok()) << expected.status();
    expected_ = *std::move(expected);
  }
  std::unique_ptr<HloModule> module_;
  Executable executable_;
  Literal expected_;
};

TEST_F(ExecutableTest, RunsLikeTheEvaluator) {
  ASSERT_TRUE(ValidateExecutable(executable_).ok());
  auto executor = CpuExecutor::Create(executable_, NoKernels());
  ASSERT_TRUE(executor.ok()) << executor.status();
  for (int run = 0; run < 2; ++run) {
    auto result = (*executor)->Run(Arguments());
    ASSERT_TRUE(result.ok()) << result.status();
    ExpectSameLiteral(*result, expected_);
  }
  EXPECT_EQ((*executor)->fallback_runs(),
            2 * static_cast<int64_t>(executable_.steps.size()));
  // The arena and the outputs, not one buffer per value.
  EXPECT_LT((*executor)->run_bytes(),
            executable_.AllocationBytes(BufferAllocation::Kind::kArena) +
                executable_.AllocationBytes(BufferAllocation::Kind::kOutput) +
                64);
}

TEST_F(ExecutableTest, SaveLoadRoundTrip) {
  auto bytes = SerializeExecutable(executable_);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto loaded = DeserializeExecutable(*bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->name, executable_.name);
  EXPECT_EQ(loaded->hlo_module, executable_.hlo_module);
  ASSERT_EQ(loaded->buffers.size(), executable_.buffers.size());
  for (size_t i = 0; i < loaded->buffers.size(); ++i) {
    EXPECT_EQ(loaded->buffers[i].offset, executable_.buffers[i].offset);
    EXPECT_EQ(loaded->buffers[i].allocation, executable_.buffers[i].allocation);
    EXPECT_TRUE(
        loaded->buffers[i].shape.Compatible(executable_.buffers[i].shape));
  }
  ASSERT_EQ(loaded->allocations.size(), executable_.allocations.size());
  for (size_t i = 0; i < loaded->allocations.size(); ++i) {
    EXPECT_EQ(loaded->allocations[i].constant_data,
              executable_.allocations[i].constant_data);
  }
  EXPECT_EQ(loaded->result_buffers, executable_.result_buffers);
  EXPECT_EQ(loaded->parameter_buffers, executable_.parameter_buffers);
  // Deterministic: the same bytes again.
  auto again = SerializeExecutable(*loaded);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *bytes);

  auto executor = CpuExecutor::Create(*std::move(loaded), NoKernels());
  ASSERT_TRUE(executor.ok()) << executor.status();
  auto result = (*executor)->Run(Arguments());
  ASSERT_TRUE(result.ok()) << result.status();
  ExpectSameLiteral(*result, expected_);
  EXPECT_NE(DescribeExecutable((*executor)->executable()).find("steps:"),
            std::string::npos);
}

TEST_F(ExecutableTest, TruncatedFilesAreRejected) {
  auto bytes = SerializeExecutable(executable_);
  ASSERT_TRUE(bytes.ok());
  for (size_t n = 0; n < bytes->size(); ++n) {
    auto loaded = DeserializeExecutable(absl::string_view(*bytes).substr(0, n),
                                        "m.hloexe");
    ASSERT_FALSE(loaded.ok()) << n;
    EXPECT_NE(loaded.status().message().find("m.hloexe: truncated"),
              absl::string_view::npos)
        << n << ": " << loaded.status();
  }
  auto longer = DeserializeExecutable(*bytes + "x");
  ASSERT_FALSE(longer.ok());
  EXPECT_NE(longer.status().message().find("after the payload"),
            absl::string_view::npos);
}

TEST_F(ExecutableTest, CorruptFilesAreRejected) {
  auto bytes = SerializeExecutable(executable_);
  ASSERT_TRUE(bytes.ok());
  for (size_t i = 0; i < bytes->size(); ++i) {
    for (int bit : {0, 5}) {
      std::string corrupt = *bytes;
      corrupt[i] = static_cast<char>(corrupt[i] ^ (1 << bit));
      auto loaded = DeserializeExecutable(corrupt);
      EXPECT_FALSE(loaded.ok()) << "byte " << i << " bit " << bit;
    }
  }
  EXPECT_NE(DeserializeExecutable("HloModule m\n")
                .status()
                .message()
                .find("not an hloc executable"),
            absl::string_view::npos);
  std::string other_version = *bytes;
  other_version[8] = 9;
  EXPECT_NE(DeserializeExecutable(other_version)
                .status()
                .message()
                .find("format version 9"),
            absl::string_view::npos);
}

// Rewrites the payload and fixes the checksum: a file that passes the
// integrity checks but says something inconsistent.
std::string WithPayload(const std::string& file, const std::string& payload) {
  std::string out = file.substr(0, 16);
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : payload) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  for (int i = 0; i < 8; ++i) out.push_back((payload.size() >> (8 * i)) & 0xff);
  for (int i = 0; i < 8; ++i) out.push_back((hash >> (8 * i)) & 0xff);
  return out + payload;
}

TEST_F(ExecutableTest, InconsistentExecutablesAreRejected) {
  auto check = [&](const Executable& e, const std::string& expected) {
    auto bytes = SerializeExecutable(e);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    auto loaded = DeserializeExecutable(*bytes);
    ASSERT_FALSE(loaded.ok()) << expected;
    EXPECT_NE(loaded.status().message().find(expected), absl::string_view::npos)
        << loaded.status();
  };
  Executable e = executable_;
  e.buffers[3].offset = e.allocations[e.buffers[3].allocation].size;
  check(e, "does not fit allocation");
  e = executable_;
  e.buffers[0].allocation = 99;
  check(e, "is in allocation 99");
  e = executable_;
  e.steps[1].buffers[0] = -1;
  check(e, "names slot -1");
  e = executable_;
  e.parameter_buffers[1].pop_back();
  check(e, "parameter 1 has 2 leaves but 1 slots");
  e = executable_;
  e.result_buffers[0] = e.result_buffers[1];
  check(e, "the result leaf 0 is f32[4]");
  e = executable_;
  e.platform = "tpu";
  check(e, "unknown platform 'tpu'");
  e = executable_;
  e.steps[0].kind = ExecutableStep::Kind::kCopy;
  e.steps[0].buffers.resize(1);
  check(e, "must copy one slot to one of equal size");
  e = executable_;
  for (ExecutableAllocation& a : e.allocations) {
    if (a.kind == BufferAllocation::Kind::kConstant) a.constant_data.pop_back();
  }
  check(e, "bytes of data for");
  e = executable_;
  e.steps[0].kind = ExecutableStep::Kind::kKernel;
  auto unsaved = SerializeExecutable(e);
  EXPECT_FALSE(unsaved.ok());

  // A shape that does not parse, with a valid checksum.
  auto bytes = SerializeExecutable(executable_);
  ASSERT_TRUE(bytes.ok());
  std::string payload = bytes->substr(32);
  // Field 8 (parameter_shapes), 13 bytes: the first parameter's shape.
  const size_t at = payload.find(
      "\x42\x0d"
      "f32[4,3]{1,0}");
  ASSERT_NE(at, std::string::npos);
  payload.replace(at + 2, 8, "f32[4,x]");
  auto bad_shape = DeserializeExecutable(WithPayload(*bytes, payload));
  ASSERT_FALSE(bad_shape.ok());
  EXPECT_NE(bad_shape.status().message().find(
                "parameter 0: bad shape 'f32[4,x]{1,0}'"),
            absl::string_view::npos)
      << bad_shape.status().message();
  // Not a proto at all.
  EXPECT_NE(DeserializeExecutable(WithPayload(*bytes, "\xff\xff\xff"))
                .status()
                .message()
                .find("not an ExecutableProto"),
            absl::string_view::npos);
}

TEST_F(ExecutableTest, BadFallbackModulesAreRejectedAtCreation) {
  Executable e = executable_;
  e.steps[2].fallback_hlo = "HloModule broken\nENTRY e {\n  ROOT x = f32[";
  auto executor = CpuExecutor::Create(e, NoKernels());
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.status().message().find("evaluator step 2"),
            absl::string_view::npos)
      << executor.status();

  // A well-formed module that does not match the step's slots.
  e = executable_;
  e.steps[2].fallback_hlo = e.steps[3].fallback_hlo;
  EXPECT_FALSE(CpuExecutor::Create(e, NoKernels()).ok());

  // A kernel step whose symbol cannot be found.
  e = executable_;
  e.steps[0].kind = ExecutableStep::Kind::kKernel;
  e.steps[0].kernel_name = "hloc.nothing";
  executor = CpuExecutor::Create(e, NoKernels());
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.status().message().find("kernel hloc.nothing"),
            absl::string_view::npos);
}

TEST_F(ExecutableTest, BadArgumentsAreRejected) {
  auto executor = CpuExecutor::Create(executable_, NoKernels());
  ASSERT_TRUE(executor.ok());
  std::vector<Literal> args = Arguments();
  args.pop_back();
  EXPECT_FALSE((*executor)->Run(args).ok());
  args = Arguments();
  args[0] = Literal(Shape::Array(F32, {3, 4}));
  auto result = (*executor)->Run(args);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("argument 0 has shape"),
            absl::string_view::npos);
}

// A GPU executable's own parts: device code, launch dimensions, a while
// loop with nested steps, copies and a library call survive a round trip
// and are described; broken ones are rejected with the step named.
TEST_F(ExecutableTest, GpuStepsRoundTrip) {
  Executable e = executable_;
  e.platform = "cuda";
  e.target_triple = "nvptx64-nvidia-cuda";
  e.device_code.push_back({"ptx", "sm_90", ".version 8.0\n"});
  e.device_code.push_back({"cubin", "sm_90",
                           std::string("\x7f"
                                       "ELF\0",
                                       5)});
  // Slots of the module above: find an s32[] and an f32[3] slot to use.
  int64_t s32_slot = -1, f32_slot = -1, f32_slot2 = -1;
  for (size_t i = 0; i < e.buffers.size(); ++i) {
    const Shape& shape = e.buffers[i].shape;
    if (shape.element_type() == S32 && shape.ElementCount() == 1) s32_slot = i;
    if (shape.element_type() == F32 && shape.ElementCount() == 3) {
      (f32_slot < 0 ? f32_slot : f32_slot2) = i;
    }
  }
  ASSERT_GE(s32_slot, 0);
  ASSERT_GE(f32_slot2, 0);
  ExecutableStep kernel;
  kernel.kind = ExecutableStep::Kind::kKernel;
  kernel.instruction = "fusion.1";
  kernel.kernel_name = "fusion_1";
  kernel.buffers = {f32_slot, f32_slot2};
  kernel.output_buffers = 1;
  kernel.launch.grid[0] = 132;
  kernel.launch.block[0] = 256;
  kernel.launch.shared_memory_bytes = 1024;
  kernel.launch.programmatic = true;
  ExecutableStep copy;
  copy.kind = ExecutableStep::Kind::kCopy;
  copy.instruction = "copy.state";
  copy.buffers = {f32_slot2, f32_slot};
  ExecutableStep gemm;
  gemm.kind = ExecutableStep::Kind::kLibraryCall;
  gemm.instruction = "dot.1";
  gemm.library = "cublas.gemm";
  gemm.buffers = {f32_slot, f32_slot, f32_slot2};
  gemm.gemm.m = 3;
  gemm.gemm.n = 1;
  gemm.gemm.k = 1;
  gemm.gemm.lhs_type = gemm.gemm.rhs_type = gemm.gemm.out_type = F32;
  gemm.gemm.allow_tf32 = true;
  gemm.gemm.epilogue = "bias_relu";
  ExecutableStep cond;
  cond.kind = ExecutableStep::Kind::kConditional;
  cond.instruction = "conditional.1";
  cond.predicate_buffer = s32_slot;
  cond.branches = {{kernel}, {copy, gemm}};
  e.steps.push_back(cond);

  auto bytes = SerializeExecutable(e);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto back = DeserializeExecutable(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(DescribeExecutable(*back), DescribeExecutable(e));
  ASSERT_EQ(back->device_code.size(), 2u);
  EXPECT_EQ(back->device_code[1].code, e.device_code[1].code);
  const ExecutableStep& c = back->steps.back();
  ASSERT_EQ(c.branches.size(), 2u);
  EXPECT_EQ(c.branches[0][0].launch.grid[0], 132);
  EXPECT_EQ(c.branches[0][0].launch.shared_memory_bytes, 1024);
  EXPECT_TRUE(c.branches[0][0].launch.programmatic);
  EXPECT_EQ(c.branches[0][0].output_buffers, 1);
  // A copy carries none (and a kernel saved before the field: -1, every
  // buffer possibly written).
  EXPECT_EQ(c.branches[1][0].output_buffers, -1);
  EXPECT_EQ(c.branches[1][1].gemm.epilogue, "bias_relu");
  EXPECT_TRUE(c.branches[1][1].gemm.allow_tf32);
  const std::string description = DescribeExecutable(*back);
  EXPECT_NE(description.find("grid 132x1x1 block 256x1x1 shared 1024"),
            std::string::npos)
      << description;
  EXPECT_NE(description.find("library-call cublas.gemm dot.1"),
            std::string::npos)
      << description;
  // The CPU runtime refuses it.
  auto executor = CpuExecutor::Create(*back, NoKernels());
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.status().message().find("not cpu"),
            absl::string_view::npos);

  auto check = [](const Executable& bad, const std::string& message) {
    absl::Status status = ValidateExecutable(bad);
    ASSERT_FALSE(status.ok()) << message;
    EXPECT_NE(status.message().find(message), absl::string_view::npos)
        << status.message();
  };
  Executable bad = e;
  bad.steps.back().branches[1][0].buffers[1] = 999;
  check(bad, "branch 1 step 0 (copy.state) names slot 999");
  bad = e;
  bad.steps.back().predicate_buffer = f32_slot;
  check(bad, "reads its predicate from slot");
  bad = e;
  bad.steps.back().branches[0][0].output_buffers = 3;
  check(bad, "writes 3 of its 2 buffers");
  bad = e;
  bad.steps.back().branches[0][0].launch.block[0] = 2048;
  check(bad, "bad launch dimensions");
  bad = e;
  bad.steps.back().kind = ExecutableStep::Kind::kWhile;
  check(bad, "reads its predicate from slot");
  bad = e;
  bad.device_code[0].format = "elf";
  check(bad, "unknown format 'elf'");
  bad = e;
  bad.device_code.clear();
  EXPECT_FALSE(SerializeExecutable(bad).ok());
}

// A while's trip count survives a file (and its absence, -1); a count on
// any other step is refused.
TEST_F(ExecutableTest, TripCountsRoundTrip) {
  Executable e = executable_;
  // A pred[] slot for the loops' predicates, on the s32[] one's bytes.
  int64_t s32_slot = -1;
  for (size_t i = 0; i < e.buffers.size(); ++i) {
    const Shape& shape = e.buffers[i].shape;
    if (shape.element_type() == S32 && shape.ElementCount() == 1) s32_slot = i;
  }
  ASSERT_GE(s32_slot, 0);
  ExecutableBuffer predicate = e.buffers[s32_slot];
  predicate.shape = Shape::Array(PRED, {});
  predicate.size = 1;
  predicate.name = "predicate";
  e.buffers.push_back(predicate);
  ExecutableStep loop;
  loop.kind = ExecutableStep::Kind::kWhile;
  loop.instruction = "while.1";
  loop.predicate_buffer = static_cast<int64_t>(e.buffers.size()) - 1;
  loop.trip_count = 12;
  ExecutableStep copy;
  copy.kind = ExecutableStep::Kind::kCopy;
  copy.instruction = "copy.state";
  copy.buffers = {s32_slot, s32_slot};
  loop.body = {copy};
  e.steps.push_back(loop);
  loop.instruction = "while.2";
  loop.trip_count = -1;
  e.steps.push_back(loop);
  absl::StatusOr<std::string> bytes = SerializeExecutable(e);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<Executable> back = DeserializeExecutable(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  const size_t n = back->steps.size();
  EXPECT_EQ(back->steps[n - 2].trip_count, 12);
  EXPECT_EQ(back->steps[n - 1].trip_count, -1);
  const std::string description = DescribeExecutable(*back);
  EXPECT_NE(description.find("while while.1"), std::string::npos)
      << description;
  EXPECT_NE(description.find("trip count 12"), std::string::npos)
      << description;
  EXPECT_EQ(description.find("trip count -1"), std::string::npos)
      << description;

  Executable bad = e;
  bad.steps.back().kind = ExecutableStep::Kind::kCopy;
  bad.steps.back().body.clear();
  bad.steps.back().buffers = {s32_slot, s32_slot};
  bad.steps.back().predicate_buffer = -1;
  bad.steps.back().trip_count = 5;
  bytes = SerializeExecutable(bad);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  back = DeserializeExecutable(*bytes);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("has trip count 5 (only a while's"),
            absl::string_view::npos)
      << back.status();
}

// A collective step keeps its config through a file, and the validator
// checks it against the slots (hand-made executables: the compilers'
// collectives are run in backends' tests and on GPUs).
TEST_F(ExecutableTest, CollectiveStepsRoundTripAndAreChecked) {
  Executable e = executable_;
  e.platform = "cuda";
  e.target_triple = "nvptx64-nvidia-cuda";
  e.device_code.push_back({"ptx", "sm_90", ".version 8.0\n"});
  int64_t a = -1, b = -1;
  for (size_t i = 0; i < e.buffers.size(); ++i) {
    const Shape& shape = e.buffers[i].shape;
    if (shape.element_type() == F32 && shape.ElementCount() == 3) {
      (a < 0 ? a : b) = i;
    }
  }
  ASSERT_GE(b, 0);
  ExecutableStep step;
  step.kind = ExecutableStep::Kind::kCollective;
  step.instruction = "all-reduce.1";
  step.buffers = {a, b};
  CollectiveConfig& c = step.collective;
  c.op = CollectiveConfig::Op::kAllReduce;
  c.reduction = CollectiveReduction::kMax;
  c.replica_count = 2;
  c.num_partitions = 2;
  c.groups = {{0, 2}, {1, 3}};
  e.steps.push_back(step);
  ExecutableStep permute = step;
  permute.instruction = "collective-permute.1";
  permute.collective.op = CollectiveConfig::Op::kCollectivePermute;
  permute.collective.groups.clear();
  permute.collective.sources = {-1, 0, 1, 2};
  e.steps.push_back(permute);

  auto bytes = SerializeExecutable(e);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto back = DeserializeExecutable(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(DescribeExecutable(*back), DescribeExecutable(e));
  const CollectiveConfig& got = back->steps[back->steps.size() - 2].collective;
  EXPECT_EQ(got.reduction, CollectiveReduction::kMax);
  EXPECT_EQ(got.num_partitions, 2);
  EXPECT_EQ(got.groups, c.groups);
  EXPECT_EQ(back->steps.back().collective.sources, permute.collective.sources);
  const std::string description = DescribeExecutable(*back);
  EXPECT_NE(description.find("all-reduce max groups={{0,2},{1,3}}"),
            std::string::npos)
      << description;

  auto check = [](const Executable& bad, const std::string& message) {
    absl::Status status = ValidateExecutable(bad);
    ASSERT_FALSE(status.ok()) << message;
    EXPECT_NE(status.message().find(message), absl::string_view::npos)
        << status.message();
  };
  Executable bad = e;
  bad.steps[bad.steps.size() - 2].collective.groups = {{0, 2}, {1, 2}};
  check(bad, "groups must name every device once");
  bad = e;
  bad.steps[bad.steps.size() - 2].collective.groups = {{0, 1, 2}, {3}};
  check(bad, "groups must be of one size");
  bad = e;
  bad.steps.back().collective.sources = {0, 1};
  check(bad, "one source per device");
  bad = e;
  bad.steps[bad.steps.size() - 2].collective.op =
      CollectiveConfig::Op::kAllGather;
  check(bad, "do not fit a group of 2");
  bad = e;
  bad.steps[bad.steps.size() - 2].collective.op =
      CollectiveConfig::Op::kReplicaId;
  check(bad, "a device id writes one u32 slot");
}

TEST(ExecutableFileTest, MissingFile) {
  auto loaded = ReadExecutableFile("/nonexistent/m.hloexe");
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("/nonexistent/m.hloexe"),
            absl::string_view::npos);
}

}  // namespace
}  // namespace hloc

// Where CpuExecutor::Run puts results: leaves written in place by the
// kernels (the kernel's output pointer is the result's own storage and no
// byte is copied), and the leaves that cannot be (a parameter or constant
// returned as is, a value returned twice, a column-major output, an empty
// array), which are copied. Kernels here are hand-written C++ functions
// handed to the executor by name, so no code generation is involved.
#include "runtime/cpu_executor.h"

#include <atomic>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/evaluator/evaluator.h"
#include "hlo/text/parser.h"
#include "hlo/text/printer.h"
#include "runtime/buffer_assignment.h"
#include "runtime/executable.h"

namespace hloc {
namespace {

// f32[512,1024]: 2 MiB, a large block.
constexpr int64_t kRows = 512;
constexpr int64_t kCols = 1024;

std::atomic<void*> negate_output{nullptr};
std::atomic<void*> transpose_output{nullptr};

// negate of f32[kRows,kCols]: buffers = {x, out}.
void NegateKernel(void** buffers) {
  const float* x = static_cast<const float*>(buffers[0]);
  float* out = static_cast<float*>(buffers[1]);
  for (int64_t i = 0; i < kRows * kCols; ++i) out[i] = -x[i];
  negate_output.store(out);
}

// f32[4,3]{0,1} transpose(f32[3,4] x): the column-major result has x's
// row-major bytes. buffers = {x, out}.
void TransposeKernel(void** buffers) {
  std::memcpy(buffers[1], buffers[0], 12 * sizeof(float));
  transpose_output.store(buffers[1]);
}

// Steps in `order`; those named in `kernels` call that kernel, the others
// run in the evaluator.
Executable Plan(const HloModule& module,
                const std::map<std::string, std::string>& kernels) {
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
    step.instruction = instr->name();
    for (const HloInstruction* operand : instr->operands()) {
      const std::vector<int64_t>& l = assignment->LeafValues(operand);
      step.buffers.insert(step.buffers.end(), l.begin(), l.end());
    }
    const std::vector<int64_t>& l = assignment->LeafValues(instr);
    step.buffers.insert(step.buffers.end(), l.begin(), l.end());
    auto kernel = kernels.find(instr->name());
    if (kernel != kernels.end()) {
      step.kind = ExecutableStep::Kind::kKernel;
      step.kernel_name = kernel->second;
    } else {
      step.kind = ExecutableStep::Kind::kEvaluator;
      auto fallback = MakeFallbackModule(*instr);
      EXPECT_TRUE(fallback.ok()) << fallback.status();
      step.fallback_hlo = PrintModule(**fallback);
      step.fallback_reason = "test";
    }
    e.steps.push_back(std::move(step));
  }
  return e;
}

CpuExecutor::KernelResolver TestKernels() {
  return [](const std::string& symbol) -> absl::StatusOr<void*> {
    if (symbol == "negate") return reinterpret_cast<void*>(&NegateKernel);
    if (symbol == "transpose") {
      return reinterpret_cast<void*>(&TransposeKernel);
    }
    return absl::NotFoundError(symbol);
  };
}

struct Compiled {
  std::unique_ptr<HloModule> module;
  std::unique_ptr<CpuExecutor> executor;
};

Compiled Compile(const char* text,
                 const std::map<std::string, std::string>& kernels = {}) {
  Compiled c;
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return c;
  c.module = *std::move(module);
  auto executor = CpuExecutor::Create(Plan(*c.module, kernels), TestKernels());
  EXPECT_TRUE(executor.ok()) << executor.status();
  if (executor.ok()) c.executor = *std::move(executor);
  return c;
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
  // An empty literal has no storage (null data), and memcmp of null is
  // undefined even for 0 bytes (UBSan says so).
  if (a.size_bytes() == 0) return;
  EXPECT_EQ(0, std::memcmp(a.untyped_data(), b.untyped_data(), a.size_bytes()))
      << a.ValuesToString() << " vs " << b.ValuesToString();
}

Literal Iota(const Shape& shape, float scale) {
  Literal lit(shape);
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    lit.data<float>()[i] = scale * static_cast<float>(i % 1000) - 3.0f;
  }
  return lit;
}

constexpr char kNegate[] = R"(
HloModule negate
ENTRY main {
  x = f32[512,1024] parameter(0)
  ROOT n = f32[512,1024] negate(x)
}
)";

TEST(CpuExecutorTest, KernelsWriteTheResultInPlace) {
  Compiled c = Compile(kNegate, {{"n", "negate"}});
  ASSERT_NE(c.executor, nullptr);
  EXPECT_EQ(c.executor->result_in_place(), std::vector<bool>{true});
  // The output is not part of the run's block.
  EXPECT_LT(c.executor->run_bytes(), kRows * kCols * 4);
  std::vector<Literal> args;
  args.push_back(Iota(Shape::Array(F32, {kRows, kCols}), 0.5f));
  auto expected = EvaluateModule(*c.module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  for (int run = 0; run < 3; ++run) {
    negate_output.store(nullptr);
    auto result = c.executor->Run(args);
    ASSERT_TRUE(result.ok()) << result.status();
    // The bytes the kernel wrote are the result's own storage.
    EXPECT_EQ(negate_output.load(), result->untyped_data());
    ExpectSameLiteral(*result, *expected);
  }
  EXPECT_EQ(c.executor->result_bytes_copied(), 0);
}

TEST(CpuExecutorTest, ConcurrentRunsEachGetTheirOwnResult) {
  Compiled c = Compile(kNegate, {{"n", "negate"}});
  ASSERT_NE(c.executor, nullptr);
  constexpr int kThreads = 4;
  std::vector<std::vector<Literal>> args(kThreads);
  std::vector<Literal> expected;
  for (int t = 0; t < kThreads; ++t) {
    args[t].push_back(Iota(Shape::Array(F32, {kRows, kCols}), 0.25f * t));
    auto e = EvaluateModule(*c.module, args[t]);
    ASSERT_TRUE(e.ok()) << e.status();
    expected.push_back(*std::move(e));
  }
  std::vector<absl::StatusOr<Literal>> results(kThreads, Literal());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 3; ++r) results[t] = c.executor->Run(args[t]);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_TRUE(results[t].ok()) << results[t].status();
    ExpectSameLiteral(*results[t], expected[t]);
  }
  EXPECT_EQ(c.executor->result_bytes_copied(), 0);
}

TEST(CpuExecutorTest, ColumnMajorOutputsAreCopied) {
  Compiled c = Compile(R"(
HloModule transpose
ENTRY main {
  x = f32[3,4] parameter(0)
  ROOT t = f32[4,3]{0,1} transpose(x), dimensions={1,0}
}
)",
                       {{"t", "transpose"}});
  ASSERT_NE(c.executor, nullptr);
  EXPECT_EQ(c.executor->result_in_place(), std::vector<bool>{false});
  std::vector<Literal> args;
  args.push_back(Iota(Shape::Array(F32, {3, 4}), 1.0f));
  auto expected = EvaluateModule(*c.module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  auto result = c.executor->Run(args);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_NE(transpose_output.load(), result->untyped_data());
  ExpectSameLiteral(*result, *expected);
  EXPECT_EQ(c.executor->result_bytes_copied(), 12 * 4);
}

TEST(CpuExecutorTest, EvaluatorStepsWriteResultsInPlace) {
  Compiled c = Compile(R"(
HloModule exp
ENTRY main {
  x = f32[3,4] parameter(0)
  ROOT e = f32[3,4] exponential(x)
}
)");
  ASSERT_NE(c.executor, nullptr);
  EXPECT_EQ(c.executor->result_in_place(), std::vector<bool>{true});
  std::vector<Literal> args;
  args.push_back(Iota(Shape::Array(F32, {3, 4}), 0.125f));
  auto expected = EvaluateModule(*c.module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  auto result = c.executor->Run(args);
  ASSERT_TRUE(result.ok()) << result.status();
  ExpectSameLiteral(*result, *expected);
  EXPECT_EQ(c.executor->result_bytes_copied(), 0);
  EXPECT_EQ(c.executor->fallback_runs(), 1);
}

// Every kind of leaf in one tuple: in place (e, the kernel's n), and
// copied: a value returned twice (m), the parameter itself (y), a constant
// (k), a column-major output (t), an empty array (z).
TEST(CpuExecutorTest, TupleResultsMixInPlaceAndCopiedLeaves) {
  Compiled c = Compile(R"(
HloModule mixed
ENTRY main {
  x = f32[512,1024] parameter(0)
  y = f32[3,4] parameter(1)
  w = f32[0] parameter(2)
  n = f32[512,1024] negate(x)
  e = f32[3,4] exponential(y)
  m = f32[3,4] multiply(y, y)
  t = f32[4,3]{0,1} transpose(y), dimensions={1,0}
  k = s32[2] constant({7, -7})
  z = f32[0] negate(w)
  ROOT out = (f32[512,1024], f32[3,4], f32[3,4], f32[3,4], f32[3,4], s32[2],
              f32[4,3]{0,1}, f32[0]) tuple(n, e, m, m, y, k, t, z)
}
)",
                       {{"n", "negate"}});
  ASSERT_NE(c.executor, nullptr);
  EXPECT_EQ(c.executor->result_in_place(),
            (std::vector<bool>{true, true, false, false, false, false, false,
                               false}));
  std::vector<Literal> args;
  args.push_back(Iota(Shape::Array(F32, {kRows, kCols}), 0.5f));
  args.push_back(Iota(Shape::Array(F32, {3, 4}), 0.25f));
  args.push_back(Literal(Shape::Array(F32, {0})));
  auto expected = EvaluateModule(*c.module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  for (int run = 0; run < 2; ++run) {
    auto result = c.executor->Run(args);
    ASSERT_TRUE(result.ok()) << result.status();
    ExpectSameLiteral(*result, *expected);
    const std::vector<Literal>& leaves = result->tuple_elements();
    EXPECT_EQ(negate_output.load(), leaves[0].untyped_data());
    // The repeated value is two separate literals.
    EXPECT_NE(leaves[2].untyped_data(), leaves[3].untyped_data());
    // The parameter is copied, not aliased to the caller's literal.
    EXPECT_NE(leaves[4].untyped_data(), args[1].untyped_data());
  }
  // m twice, y, k and t: 5 small leaves per run.
  EXPECT_EQ(c.executor->result_bytes_copied(), 2 * (4 * 48 + 8));
}

TEST(CpuExecutorTest, AParameterReturnedAsIsIsCopied) {
  Compiled c = Compile(R"(
HloModule identity
ENTRY main {
  ROOT x = f32[512,1024] parameter(0)
}
)");
  ASSERT_NE(c.executor, nullptr);
  EXPECT_EQ(c.executor->result_in_place(), std::vector<bool>{false});
  std::vector<Literal> args;
  args.push_back(Iota(Shape::Array(F32, {kRows, kCols}), 0.5f));
  auto result = c.executor->Run(args);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_NE(result->untyped_data(), args[0].untyped_data());
  ExpectSameLiteral(*result, args[0]);
}

}  // namespace
}  // namespace hloc

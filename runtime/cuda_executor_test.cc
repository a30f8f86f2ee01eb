// The CUDA executor on hand-made executables (runtime/testing): kernels,
// copies, while loops, conditionals (pred and s32), constants, tuple
// results, dynamic shared memory above 48 KiB, evaluator steps, cuBLASLt
// gemms, CUDA graphs, loops and conditionals as conditional nodes, step
// timing and runs on the caller's device memory. Without a GPU the GPU
// tests skip and say so; the checks that need no GPU always run.
#include "runtime/cuda_executor.h"

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/cublas_gemm.h"
#include "runtime/cudnn_conv.h"
#include "runtime/cufft_fft.h"
#include "runtime/dense_buffer.h"
#include "runtime/graph_choice.h"
#include "runtime/testing/conv_reference.h"
#include "runtime/testing/cuda_test_executables.h"

namespace hloc {
namespace {

using testing::ConvExecutable;
using testing::ConvTestShape;
using testing::GemmExecutable;
using testing::IndexedConditionalExecutable;
using testing::kVectorSize;
using testing::WhileConditionalExecutable;
using testing::WhileConditionalExpected;

// Creates an executor, or skips the test (saying why) without a GPU.
#define CREATE_OR_SKIP(var, ...)                              \
  auto var = CudaExecutor::Create(__VA_ARGS__);               \
  if (!var.ok() && cuda::IsNoCudaDevice(var.status())) {      \
    std::printf("no CUDA device, skipping: %s\n",             \
                std::string(var.status().message()).c_str()); \
    GTEST_SKIP() << "no CUDA device";                         \
  }                                                           \
  ASSERT_TRUE(var.ok()) << var.status()

Literal Vector(float scale) {
  Literal x(Shape::Array(F32, {kVectorSize}));
  for (int64_t i = 0; i < kVectorSize; ++i) {
    x.data<float>()[i] = scale * static_cast<float>((i * 37) % 101 - 50);
  }
  return x;
}

// WhileConditionalExecutable's arguments: x and the flag.
std::vector<Literal> WhileArgs(const Literal& x, bool flag) {
  std::vector<Literal> args;
  args.push_back(x);
  args.push_back(Literal::CreateR0<bool>(PRED, flag));
  return args;
}

// `got` is `want` (f32 vectors of kVectorSize) to a relative 1e-6.
void ExpectVectorNear(const Literal& got, const Literal& want) {
  for (int64_t i = 0; i < kVectorSize; ++i) {
    const float w = want.data<float>()[i];
    ASSERT_NEAR(got.data<float>()[i], w, 1e-6f * std::abs(w))
        << "element " << i;
  }
}

Literal Random(const Shape& shape, uint32_t seed) {
  Literal literal(shape);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    literal.SetFromDouble(i, static_cast<double>(seed >> 8) / (1 << 24) - 0.5);
  }
  return literal;
}

TEST(CudaExecutorTest, HandWrittenPtxAssembles) {
  // ptxas checks the test kernels without a GPU, where the toolkit is.
  const char* home = std::getenv("CUDA_HOME");
  const std::filesystem::path ptxas =
      std::filesystem::path(home != nullptr ? home : "/usr/local/cuda") /
      "bin" / "ptxas";
  if (!std::filesystem::exists(ptxas)) {
    std::printf("no ptxas at %s, skipping\n", ptxas.c_str());
    GTEST_SKIP();
  }
  const std::string dir = ::testing::TempDir();
  const std::string ptx = dir + "/kernels.ptx";
  std::ofstream(ptx) << testing::TestPtx();
  const std::string command =
      ptxas.string() + " -arch=sm_90 " + ptx + " -o " + dir + "/kernels.cubin";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  // cuFFT's scaling kernels, the runtime's other hand-written PTX.
  const std::string scale = dir + "/scale.ptx";
  std::ofstream(scale) << cuda::ScalePtx();
  const std::string scale_command = ptxas.string() + " -arch=sm_90 " + scale +
                                    " -o " + dir + "/scale.cubin";
  EXPECT_EQ(std::system(scale_command.c_str()), 0) << scale_command;
  // The conditional nodes' set kernel.
  const std::string set = dir + "/set.ptx";
  std::ofstream(set) << cuda::SetConditionPtx();
  const std::string set_command =
      ptxas.string() + " -arch=sm_90 " + set + " -o " + dir + "/set.cubin";
  EXPECT_EQ(std::system(set_command.c_str()), 0) << set_command;
}

TEST(CudaExecutorTest, GemmStepsAreCheckedWithoutAGpu) {
  Executable e = GemmExecutable(F32, 1, 8, 4, 16, "bias_relu", false);
  ExecutableStep& step = e.steps[0];
  EXPECT_TRUE(cuda::CheckGemmStep(e, step, "step 0 (dot)").ok());
  auto expect_error = [&](const Executable& bad, const std::string& text) {
    absl::Status status = cuda::CheckGemmStep(bad, bad.steps[0], "step 0");
    ASSERT_FALSE(status.ok()) << text;
    EXPECT_NE(status.message().find(text), absl::string_view::npos)
        << status.message();
  };
  Executable bad = e;
  bad.steps[0].gemm.k = 17;
  expect_error(bad, "does not fit its slot");
  bad = e;
  bad.steps[0].gemm.epilogue = "swish";
  expect_error(bad, "unknown epilogue 'swish'");
  bad = e;
  bad.steps[0].gemm.epilogue = "relu";
  expect_error(bad, "takes 3 buffers");
  bad = e;
  bad.steps[0].gemm.lhs_type = bad.steps[0].gemm.rhs_type = S32;
  expect_error(bad, "unsupported gemm types");
  bad = e;
  bad.steps[0].gemm.out_type = F64;
  expect_error(bad, "unsupported gemm types");
  bad = e;
  bad.steps[0].gemm.lda = 2;
  expect_error(bad, "ld 2");
}

TEST(CudaExecutorTest, ConvStepsAreCheckedWithoutAGpu) {
  const Executable e = ConvExecutable(F32, ConvTestShape{});
  EXPECT_TRUE(cuda::CheckConvStep(e, e.steps[0], "step 0 (conv)").ok());
  auto expect_error = [&](const Executable& bad, const std::string& text) {
    absl::Status status = cuda::CheckConvStep(bad, bad.steps[0], "step 0");
    ASSERT_FALSE(status.ok()) << text;
    EXPECT_NE(status.message().find(text), absl::string_view::npos)
        << status.message();
  };
  Executable bad = e;
  bad.steps[0].conv.output_spatial[1] = 5;
  expect_error(bad, "gives 6 outputs, not 5");
  bad = e;
  bad.steps[0].conv.type = S32;
  expect_error(bad, "unsupported convolution type s32");
  bad = e;
  bad.steps[0].conv.padding = {1};
  expect_error(bad, "window lists");
  bad = e;
  bad.steps[0].conv.feature_group_count = 3;
  expect_error(bad, "bad convolution sizes");
  bad = e;
  bad.steps[0].conv.input_features = 8;
  expect_error(bad, "the input slot");
  bad = e;
  bad.steps[0].buffers.pop_back();
  expect_error(bad, "takes 3 buffers");
  // A filter gradient reads the output's gradient second and writes the
  // filter: the forward step's slots, marked backward, do not fit.
  ConvTestShape gradient;
  gradient.backward_filter = true;
  const Executable g = ConvExecutable(F32, gradient);
  EXPECT_TRUE(cuda::CheckConvStep(g, g.steps[0], "step 0 (conv)").ok());
  bad = e;
  bad.steps[0].conv.backward_filter = true;
  expect_error(bad, "the output gradient slot");
}

TEST(CudaExecutorTest, FftStepsAreCheckedWithoutAGpu) {
  const Executable e = testing::FftExecutable(
      FftType::kIrfft, Shape::Array(C64, {3, 9}), Shape::Array(F32, {3, 16}),
      {16});
  EXPECT_TRUE(cuda::CheckFftStep(e, e.steps[0], "step 0 (fft)").ok());
  auto expect_error = [&](const Executable& bad, const std::string& text) {
    absl::Status status = cuda::CheckFftStep(bad, bad.steps[0], "step 0");
    ASSERT_FALSE(status.ok()) << text;
    EXPECT_NE(status.message().find(text), absl::string_view::npos)
        << status.message();
  };
  Executable bad = e;
  bad.steps[0].library_config.fft_length = {15};
  expect_error(bad, "does not fit length 15");
  bad = e;
  bad.steps[0].library_config.fft_type = FftType::kRfft;
  expect_error(bad, "element types");
  bad = e;
  bad.steps[0].buffers.pop_back();
  expect_error(bad, "takes 2 buffers");
  bad = testing::FftExecutable(
      FftType::kFft, Shape::ArrayWithLayout(C64, {4, 8}, {0, 1}),
      Shape::Array(C64, {4, 8}), {8});
  expect_error(bad, "row-major");
}

// cuFFT's forward and inverse transforms against a direct DFT on the host:
// the inverse carries XLA's 1/N (the runtime's scaling kernel).
TEST(CudaExecutorTest, FftMatchesADirectDft) {
  constexpr int64_t kRows = 3, kLength = 12;
  const Shape shape = Shape::Array(C64, {kRows, kLength});
  Literal x(shape);
  auto* data = x.data<std::complex<float>>().data();
  for (int64_t i = 0; i < kRows * kLength; ++i) {
    data[i] = {static_cast<float>((i * 7) % 11) - 5.0f,
               static_cast<float>((i * 5) % 13) - 6.0f};
  }
  for (FftType type : {FftType::kFft, FftType::kIfft}) {
    SCOPED_TRACE(FftTypeString(type));
    CREATE_OR_SKIP(executor,
                   testing::FftExecutable(type, shape, shape, {kLength}));
    std::vector<Literal> args;
    args.push_back(x);
    auto result = (*executor)->Run(args);
    ASSERT_TRUE(result.ok()) << result.status();
    const double sign = type == FftType::kFft ? -1 : 1;
    const double scale = type == FftType::kFft ? 1 : 1.0 / kLength;
    for (int64_t r = 0; r < kRows; ++r) {
      for (int64_t k = 0; k < kLength; ++k) {
        std::complex<double> sum = 0;
        for (int64_t j = 0; j < kLength; ++j) {
          const double angle = sign * 2 * M_PI * static_cast<double>(j * k) /
                               static_cast<double>(kLength);
          sum += std::complex<double>(data[r * kLength + j]) *
                 std::complex<double>(std::cos(angle), std::sin(angle));
        }
        const std::complex<float> got =
            result->data<std::complex<float>>()[r * kLength + k];
        EXPECT_NEAR(got.real(), scale * sum.real(), 1e-4) << r << "," << k;
        EXPECT_NEAR(got.imag(), scale * sum.imag(), 1e-4) << r << "," << k;
      }
    }
  }
}

// A cuDNN convolution (or, with t.backward_filter, filter gradient)
// against direct loops on the host.
void CheckConv(PrimitiveType type, ConvTestShape t, double tolerance) {
  SCOPED_TRACE(absl::StrCat(
      PrimitiveTypeName(type), t.backward_filter ? " filter gradient " : " ",
      t.h, "x", t.w, " c=", t.c, " k=", t.k, " stride ", t.stride, " pad ",
      t.padding, " dilation ", t.dilation, " groups ", t.groups,
      t.channels_first ? " nchw" : " nhwc"));
  const Executable e = ConvExecutable(type, t);
  CREATE_OR_SKIP(executor, e);
  std::vector<Literal> args;
  for (size_t p = 0; p < e.parameter_shapes.size(); ++p) {
    args.push_back(Random(e.parameter_shapes[p], 29 + p));
  }
  auto result = (*executor)->Run(args);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_LE(testing::ConvReferenceError(t, args[0], args[1], *result),
            tolerance);
}

void CheckFilterGradient(PrimitiveType type, ConvTestShape t,
                         double tolerance) {
  t.backward_filter = true;
  CheckConv(type, t, tolerance);
}

TEST(CudaExecutorTest, CudnnFilterGradients) {
  CheckFilterGradient(F32, ConvTestShape{}, 1e-4);
  // (cuDNN 9 has no f64 backward-filter algorithm channels last; the
  // compiler keeps f64 filter gradients as direct kernels.)
  ConvTestShape strided;
  strided.stride = 2;
  strided.dilation = 2;
  strided.padding = 2;
  CheckFilterGradient(F32, strided, 1e-4);
  ConvTestShape depthwise;
  depthwise.c = depthwise.k = depthwise.groups = 8;
  CheckFilterGradient(F32, depthwise, 1e-4);
  ConvTestShape grouped;
  grouped.c = 8;
  grouped.k = 12;
  grouped.groups = 4;
  CheckFilterGradient(BF16, grouped, 0.1);
  // Channels first, the order the compiler gives f32 filter gradients of
  // grouped convolutions.
  depthwise.channels_first = true;
  CheckFilterGradient(F32, depthwise, 1e-4);
  grouped.channels_first = true;
  grouped.stride = 2;
  CheckFilterGradient(F32, grouped, 1e-4);
}

TEST(CudaExecutorTest, CudnnConvolutions) {
  CheckConv(F32, ConvTestShape{}, 1e-5);
  ConvTestShape strided;
  strided.stride = 2;
  strided.dilation = 2;
  strided.padding = 2;
  CheckConv(F64, strided, 1e-12);
  ConvTestShape grouped;
  grouped.c = 8;
  grouped.k = 12;
  grouped.groups = 4;
  CheckConv(F32, grouped, 1e-5);
  CheckConv(BF16, ConvTestShape{}, 0.05);
  CheckConv(F16, grouped, 1e-2);
  ConvTestShape depthwise_first;
  depthwise_first.c = depthwise_first.k = depthwise_first.groups = 8;
  depthwise_first.channels_first = true;
  CheckConv(F32, depthwise_first, 1e-5);
  grouped.channels_first = true;
  CheckConv(F32, grouped, 1e-5);
}

// The graph launches of a run of WhileConditionalExecutable: the whole run
// (copies, the loop and the conditional) as one graph with conditional
// nodes, else a graph of the loop body's 2 kernels per trip.
int64_t WhileConditionalGraphs(const CudaExecutor& executor) {
  return executor.uses_conditional_nodes() ? 1 : testing::kLoopTrips;
}

TEST(CudaExecutorTest, WhileLoopConditionalConstantsAndTuple) {
  CREATE_OR_SKIP(executor, WhileConditionalExecutable());
  std::printf("conditional nodes: %s\n",
              (*executor)->uses_conditional_nodes() ? "yes" : "no");
  std::printf("device %s (%s), code %s, %lld device bytes\n",
              (*executor)->device_info().name.c_str(),
              (*executor)->device_info().Arch().c_str(),
              (*executor)->loaded_code().c_str(),
              static_cast<long long>((*executor)->device_bytes()));
  const Literal x = Vector(0.25f);
  for (bool flag : {true, false, true}) {
    const std::vector<Literal> args = WhileArgs(x, flag);
    CudaRunStats stats;
    auto result = (*executor)->Run(args, {}, &stats);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(*result == WhileConditionalExpected(x, flag)) << flag;
    EXPECT_EQ(stats.graph_launches, WhileConditionalGraphs(**executor));
  }
  EXPECT_EQ((*executor)->fallback_runs(), 0);
}

// The loop and the conditional decided on the GPU (conditional nodes:
// cuda_conditional_nodes.h) or on the host give the same results, for
// trip counts from 0 (the loop's body never runs) up; deciding on the
// host reads every predicate back (trips + 1 for the loop, 1 for the
// conditional), on the GPU none.
TEST(CudaExecutorTest, ConditionalNodesDecideOnTheGpu) {
  CudaExecutorOptions host;
  host.conditional_nodes = false;
  for (int32_t trips : {0, 1, 3, 300}) {
    CREATE_OR_SKIP(device, WhileConditionalExecutable(trips));
    CREATE_OR_SKIP(on_host, WhileConditionalExecutable(trips), host);
    if (!(*device)->uses_conditional_nodes()) {
      std::printf("the driver has no conditional nodes, skipping\n");
      GTEST_SKIP();
    }
    EXPECT_FALSE((*on_host)->uses_conditional_nodes());
    const Literal x = Vector(0.75f);
    for (bool flag : {true, false, true}) {
      const std::vector<Literal> args = WhileArgs(x, flag);
      CudaRunStats stats;
      const int64_t before = (*device)->host_transfers();
      auto result = (*device)->Run(args, {}, &stats);
      ASSERT_TRUE(result.ok()) << result.status();
      const int64_t device_transfers = (*device)->host_transfers() - before;
      EXPECT_TRUE(*result == WhileConditionalExpected(x, flag, trips))
          << trips << " " << flag;
      EXPECT_EQ(stats.graph_launches, 1);
      const int64_t host_before = (*on_host)->host_transfers();
      auto expected = (*on_host)->Run(args);
      ASSERT_TRUE(expected.ok()) << expected.status();
      EXPECT_TRUE(*expected == *result) << trips << " " << flag;
      EXPECT_EQ((*on_host)->host_transfers() - host_before,
                device_transfers + trips + 2);
    }
  }
}

// A counted loop (trip_count set, as the compiler sets it for loops it
// proves) whose body is kernels and copies: 5 trips join the copies
// before them in one graph (graph_segments.h); 1000 trips (4000 nodes,
// past the bound) run as a graph of 512 iterations launched once and one
// of the remaining 488. The same results as the loop with its condition.
TEST(CudaExecutorTest, CountedLoopsRunAsGraphs) {
  for (const auto& [trips, graphs] : std::vector<std::pair<int32_t, int64_t>>{
           {testing::kLoopTrips, 1}, {1000, 2}}) {
    CREATE_OR_SKIP(executor, WhileConditionalExecutable(trips, true));
    const Literal x = Vector(0.25f);
    for (bool flag : {true, false}) {
      const std::vector<Literal> args = WhileArgs(x, flag);
      CudaRunStats stats;
      auto result = (*executor)->Run(args, {}, &stats);
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_TRUE(*result == WhileConditionalExpected(x, flag, trips))
          << trips << " " << flag;
      // The conditional after a loop too long to unroll is a graph of its
      // own where it is a conditional node.
      const bool alone =
          trips > testing::kLoopTrips && (*executor)->uses_conditional_nodes();
      EXPECT_EQ(stats.graph_launches, graphs + (alone ? 1 : 0)) << trips;
    }
    // Timed step by step, the same loop runs without graphs.
    const std::vector<Literal> args = WhileArgs(x, true);
    CudaRunOptions timed;
    timed.time_steps = true;
    CudaRunStats stats;
    auto result = (*executor)->Run(args, timed, &stats);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(*result == WhileConditionalExpected(x, true, trips));
    EXPECT_EQ(stats.graph_launches, 0);
  }
}

// RunOnDevice: x read where it lies on the device, flag copied from the
// host, every result leaf written where the caller says; the same values
// as Run, with graphs touching parameters or results issued step by step.
TEST(CudaExecutorTest, RunOnDeviceReadsAndWritesTheCallersMemory) {
  CREATE_OR_SKIP(executor, WhileConditionalExecutable());
  CudaExecutor& e = **executor;
  cuda::CudaDriver* d = *cuda::CudaDriver::Get();
  const Literal x = Vector(0.5f);
  const Executable& plan = e.executable();
  // One block: x, then each result leaf, 256 bytes apart at least.
  std::vector<int64_t> offsets = {0};
  int64_t bytes = (x.size_bytes() + 255) / 256 * 256;
  for (int64_t slot : plan.result_buffers) {
    offsets.push_back(bytes);
    bytes += (plan.buffers[slot].size + 255) / 256 * 256;
  }
  cuda::CUdeviceptr block = 0;
  ASSERT_TRUE(HLOC_CUDA_CALL(d, "test", cuMemAlloc, &block, bytes).ok());
  ASSERT_TRUE(HLOC_CUDA_CALL(d, "test", cuMemcpyHtoDAsync, block,
                             x.untyped_data(), x.size_bytes(), e.stream())
                  .ok());
  std::vector<cuda::CUdeviceptr> results;
  for (size_t l = 1; l < offsets.size(); ++l) {
    results.push_back(block + offsets[l]);
  }
  for (bool flag : {true, false}) {
    const Literal pred = Literal::CreateR0<bool>(PRED, flag);
    std::vector<CudaRunArgument> arguments(2);
    arguments[0].device = block;
    arguments[1].host = pred.untyped_data();
    ASSERT_TRUE(e.RunOnDevice(arguments, results).ok());
    EXPECT_EQ(e.last_parameter_addresses()[0], block);
    Literal result = Literal::CreateUninitialized(plan.result_shape);
    std::vector<Literal*> leaves = MutableLiteralLeaves(&result);
    for (size_t l = 0; l < leaves.size(); ++l) {
      ASSERT_TRUE(HLOC_CUDA_CALL(d, "test", cuMemcpyDtoHAsync,
                                 leaves[l]->untyped_data(), results[l],
                                 leaves[l]->size_bytes(), e.stream())
                      .ok());
    }
    ASSERT_TRUE(HLOC_CUDA_CALL(d, "test", cuStreamSynchronize, e.stream())
                    .ok());
    EXPECT_TRUE(result == WhileConditionalExpected(x, flag)) << flag;
  }
  // Misaligned and miscounted calls are refused before anything runs.
  std::vector<CudaRunArgument> arguments(2);
  arguments[0].device = block + 4;
  const Literal pred = Literal::CreateR0<bool>(PRED, true);
  arguments[1].host = pred.untyped_data();
  EXPECT_EQ(e.RunOnDevice(arguments, results).code(),
            absl::StatusCode::kInvalidArgument);
  arguments.pop_back();
  EXPECT_EQ(e.RunOnDevice(arguments, results).code(),
            absl::StatusCode::kInvalidArgument);
  d->cuMemFree(block);
}

TEST(CudaExecutorTest, WithoutGraphsAndTimed) {
  CudaExecutorOptions options;
  options.use_graphs = false;
  CREATE_OR_SKIP(executor, WhileConditionalExecutable(), options);
  const Literal x = Vector(-1.5f);
  const std::vector<Literal> args = WhileArgs(x, true);
  CudaRunOptions run_options;
  run_options.time_steps = true;
  CudaRunStats stats;
  auto result = (*executor)->Run(args, run_options, &stats);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(*result == WhileConditionalExpected(x, true));
  EXPECT_EQ(stats.graph_launches, 0);
  // lt runs once more than the body's kernels.
  int64_t lt_calls = 0, add_calls = 0;
  for (const CudaStepTime& t : stats.step_times) {
    if (t.what == "less_than_s32") lt_calls = t.count;
    if (t.what == "add_f32") add_calls = t.count;
    EXPECT_GE(t.milliseconds, 0);
  }
  EXPECT_EQ(lt_calls, testing::kLoopTrips + 1);
  EXPECT_EQ(add_calls, testing::kLoopTrips);
  std::printf("%s", FormatStepTimes(stats.step_times).c_str());
}

TEST(CudaExecutorTest, RunTimedAsAWholeKeepsGraphs) {
  CREATE_OR_SKIP(executor, WhileConditionalExecutable());
  const Literal x = Vector(-1.5f);
  const std::vector<Literal> args = WhileArgs(x, true);
  CudaRunOptions run_options;
  run_options.time_run = true;
  CudaRunStats stats;
  auto result = (*executor)->Run(args, run_options, &stats);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(*result == WhileConditionalExpected(x, true));
  EXPECT_EQ(stats.graph_launches, WhileConditionalGraphs(**executor));
  EXPECT_TRUE(stats.step_times.empty());
  EXPECT_GT(stats.run_milliseconds, 0);
}

// Two chains of kernels that meet: captured on several streams they are
// branches of one graph, ordered where they share memory (chain b reads
// t1, which chain a then overwrites: a write after a read on another
// stream); the results equal the one-chain graph's and the host's.
TEST(CudaExecutorTest, IndependentChainsRunAsBranches) {
  using testing::KernelStep;
  const Shape v = Shape::Array(F32, {kVectorSize});
  testing::ExecutableBuilder b("branches");
  const int64_t x = b.Parameter(v), y = b.Parameter(v);
  const int64_t t1 = b.Temporary(v), t2 = b.Temporary(v);
  const int64_t u1 = b.Temporary(v), u2 = b.Temporary(v);
  const int64_t u3 = b.Temporary(v), out = b.Output(v);
  const Executable e = b.Build({KernelStep("t1", "mul_f32", {x, x, t1}),
                                KernelStep("u1", "mul_f32", {y, y, u1}),
                                KernelStep("t2", "add_f32", {t1, x, t2}),
                                KernelStep("u2", "add_f32", {u1, t1, u2}),
                                KernelStep("t1.again", "mul_f32", {t2, t2, t1}),
                                KernelStep("u3", "mul_f32", {u2, u2, u3}),
                                KernelStep("out", "add_f32", {t1, u3, out})},
                               {out}, /*tuple=*/false);
  std::vector<Literal> args;
  args.push_back(Vector(0.25f));
  args.push_back(Vector(-0.5f));
  Literal expected(v);
  for (int64_t i = 0; i < kVectorSize; ++i) {
    const float xi = args[0].data<float>()[i], yi = args[1].data<float>()[i];
    const float t1i = xi * xi, u2i = yi * yi + t1i, t2i = t1i + xi;
    expected.data<float>()[i] = t2i * t2i + u2i * u2i;
  }
  // Past the timed runs (graph_choice.h): runs alternate between the
  // branched graph and the chain, then the faster runs.
  const int runs = 2 * GraphChoice::kTrials + 2;
  for (int streams : {1, 2, 4}) {
    for (bool timed : {true, false}) {
      CudaExecutorOptions options;
      options.graph_streams = streams;
      options.time_graph_branches = timed;
      CREATE_OR_SKIP(executor, e, options);
      for (int run = 0; run < runs; ++run) {
        SCOPED_TRACE(
            absl::StrCat(streams, " streams, timed ", timed, ", run ", run));
        CudaRunStats stats;
        auto result = (*executor)->Run(args, {}, &stats);
        ASSERT_TRUE(result.ok()) << result.status();
        EXPECT_EQ(stats.graph_launches, 1);
        ASSERT_NO_FATAL_FAILURE(ExpectVectorNear(*result, expected));
        const CudaExecutor::GraphChoices g = (*executor)->graph_choices();
        EXPECT_EQ(g.graphs, 1);
        EXPECT_EQ(g.branched, streams == 1 ? 0 : 1);
        if (streams == 1) {
          EXPECT_EQ(g.runs, "one chain");
        } else if (!timed) {
          EXPECT_EQ(g.runs, "branches");
        } else if (run < 2 * GraphChoice::kTrials - 1) {
          EXPECT_EQ(g.runs, "being timed");
        } else {
          EXPECT_TRUE(g.runs == "branches" || g.runs == "one chain") << g.runs;
          EXPECT_GT(g.best_branched_ms, 0);
          EXPECT_GT(g.best_chain_ms, 0);
        }
      }
    }
  }
}

// A graph that is one chain however it is captured leaves nothing to
// choose: after the first run, runs launch chains and none is timed.
TEST(CudaExecutorTest, AChainHasNoBranchesToTime) {
  using testing::KernelStep;
  const Shape v = Shape::Array(F32, {kVectorSize});
  testing::ExecutableBuilder b("chain");
  const int64_t x = b.Parameter(v), t1 = b.Temporary(v);
  const int64_t t2 = b.Temporary(v), out = b.Output(v);
  const Executable e = b.Build({KernelStep("t1", "mul_f32", {x, x, t1}),
                                KernelStep("t2", "add_f32", {t1, x, t2}),
                                KernelStep("out", "mul_f32", {t2, t2, out})},
                               {out}, /*tuple=*/false);
  CREATE_OR_SKIP(executor, e);
  EXPECT_EQ((*executor)->graph_choices().runs, "being timed");
  std::vector<Literal> args;
  args.push_back(Vector(0.25f));
  CudaRunStats stats;
  auto result = (*executor)->Run(args, {}, &stats);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(stats.graph_launches, 1);
  Literal expected(v);
  for (int64_t i = 0; i < kVectorSize; ++i) {
    const float xi = args[0].data<float>()[i];
    expected.data<float>()[i] = (xi * xi + xi) * (xi * xi + xi);
  }
  ASSERT_NO_FATAL_FAILURE(ExpectVectorNear(*result, expected));
  const CudaExecutor::GraphChoices g = (*executor)->graph_choices();
  EXPECT_EQ(g.graphs, 1);
  EXPECT_EQ(g.branched, 0);
  EXPECT_EQ(g.runs, "one chain");
  EXPECT_EQ(g.best_branched_ms, 0);
}

// Every branch a kernel or a copy: the conditional is a switch node, the
// index decided on the GPU, out of range (7, -1) the last branch.
TEST(CudaExecutorTest, IndexedConditionalAsASwitchNode) {
  CREATE_OR_SKIP(executor,
                 IndexedConditionalExecutable(/*evaluator_branch=*/false));
  const Literal x = Vector(0.5f), y = Vector(-0.125f);
  for (int32_t k : {0, 1, 2, 7, -1, 1}) {
    std::vector<Literal> args;
    args.push_back(x);
    args.push_back(y);
    args.push_back(Literal::CreateR0<int32_t>(S32, k));
    CudaRunStats stats;
    auto result = (*executor)->Run(args, {}, &stats);
    ASSERT_TRUE(result.ok()) << result.status();
    for (int64_t i = 0; i < kVectorSize; ++i) {
      const float a = x.data<float>()[i], b = y.data<float>()[i];
      const float expected = k == 0 ? a + b : k == 1 ? a * b : a;
      ASSERT_EQ(result->data<float>()[i], expected) << "k=" << k << " i=" << i;
    }
    EXPECT_EQ(stats.graph_launches,
              (*executor)->uses_conditional_nodes() ? 1 : 0);
  }
  EXPECT_EQ((*executor)->fallback_runs(), 0);
}

TEST(CudaExecutorTest, IndexedConditionalSharedMemoryAndEvaluator) {
  CREATE_OR_SKIP(executor, IndexedConditionalExecutable());
  const Literal x = Vector(0.5f), y = Vector(-0.125f);
  for (int32_t k : {0, 1, 2, 7, -1}) {
    std::vector<Literal> args;
    args.push_back(x);
    args.push_back(y);
    args.push_back(Literal::CreateR0<int32_t>(S32, k));
    auto result = (*executor)->Run(args);
    ASSERT_TRUE(result.ok()) << result.status();
    for (int64_t i = 0; i < kVectorSize; ++i) {
      const float a = x.data<float>()[i], b = y.data<float>()[i];
      // Out of range (7, -1) is the last branch.
      const float expected = k == 0 ? a + b : k == 1 ? a * b : -a;
      ASSERT_EQ(result->data<float>()[i], expected) << "k=" << k << " i=" << i;
    }
  }
  // Branch 2 (the evaluator) ran for k = 2, 7 and -1.
  EXPECT_EQ((*executor)->fallback_runs(), 3);
}

// The largest difference between `result` and GemmExecutable's product of
// `args` (lhs, rhs and the bias if `epilogue` has one), computed here in
// double.
double WorstGemmError(const std::vector<Literal>& args, const Literal& result,
                      int64_t batch, int64_t m, int64_t n, int64_t k,
                      const std::string& epilogue, bool transposed_lhs) {
  const bool bias = epilogue.find("bias") != std::string::npos;
  double worst = 0;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = bias ? args[2].GetAsDouble(j) : 0;
        for (int64_t l = 0; l < k; ++l) {
          const int64_t lhs_index =
              b * m * k + (transposed_lhs ? l * m + i : i * k + l);
          sum += args[0].GetAsDouble(lhs_index) *
                 args[1].GetAsDouble(b * k * n + l * n + j);
        }
        if (epilogue.find("relu") != std::string::npos)
          sum = std::max(sum, 0.0);
        const double got = result.GetAsDouble(b * m * n + i * n + j);
        worst = std::max(worst, std::abs(got - sum));
      }
    }
  }
  return worst;
}

void CheckGemm(PrimitiveType type, int64_t batch, int64_t m, int64_t n,
               int64_t k, const std::string& epilogue, bool transposed_lhs,
               double tolerance) {
  SCOPED_TRACE(absl::StrCat(PrimitiveTypeName(type), " batch ", batch, " ", m,
                            "x", n, "x", k, " '", epilogue, "'",
                            transposed_lhs ? " lhs^T" : ""));
  const Executable e =
      GemmExecutable(type, batch, m, n, k, epilogue, transposed_lhs);
  CREATE_OR_SKIP(executor, e);
  std::vector<Literal> args;
  for (size_t p = 0; p < e.parameter_shapes.size(); ++p) {
    args.push_back(Random(e.parameter_shapes[p], 17 + p));
  }
  auto result = (*executor)->Run(args);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_LE(
      WorstGemmError(args, *result, batch, m, n, k, epilogue, transposed_lhs),
      tolerance);
}

TEST(CudaExecutorTest, CublasGemms) {
  CheckGemm(F32, 1, 33, 17, 65, "bias_relu", false, 1e-4);
  CheckGemm(F32, 1, 64, 64, 64, "", true, 1e-4);
  CheckGemm(F64, 1, 31, 9, 40, "bias", false, 1e-12);
  CheckGemm(BF16, 3, 16, 24, 32, "", false, 0.1);
  CheckGemm(F16, 2, 8, 16, 8, "relu", false, 1e-2);
}

// Gemms are recorded into graphs (tuned when the executor is made): the
// same gemm twice is a stretch of two, one graph launch, and the result
// is the product (F64: exact enough to compare with the host's sums).
TEST(CudaExecutorTest, GemmsInAGraph) {
  Executable e = GemmExecutable(F64, 1, 24, 40, 16, "bias", false);
  ASSERT_EQ(e.steps.size(), 1u);
  e.steps.push_back(e.steps[0]);
  CREATE_OR_SKIP(executor, e);
  std::vector<Literal> args;
  for (size_t p = 0; p < e.parameter_shapes.size(); ++p) {
    args.push_back(Random(e.parameter_shapes[p], 5 + p));
  }
  for (int run = 0; run < 2; ++run) {
    CudaRunStats stats;
    auto result = (*executor)->Run(args, {}, &stats);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(stats.graph_launches, 1);
    EXPECT_LE(WorstGemmError(args, *result, 1, 24, 40, 16, "bias", false),
              1e-12)
        << "run " << run;
  }
}

TEST(CudaExecutorTest, DeviceCodeForAnotherArchIsRefused) {
  Executable e = IndexedConditionalExecutable();
  e.device_code = {{"cubin", "sm_10",
                    std::string("\x7f"
                                "ELF",
                                4)}};
  auto executor = CudaExecutor::Create(e);
  if (!executor.ok() && cuda::IsNoCudaDevice(executor.status())) {
    std::printf("no CUDA device, skipping\n");
    GTEST_SKIP();
  }
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.status().message().find("no device code this GPU can"),
            absl::string_view::npos)
      << executor.status();
}

TEST(CudaExecutorTest, BadPtxReportsTheJitLog) {
  Executable e = IndexedConditionalExecutable();
  e.device_code[0].code += "\nthis is not ptx;\n";
  auto executor = CudaExecutor::Create(e);
  if (!executor.ok() && cuda::IsNoCudaDevice(executor.status())) {
    std::printf("no CUDA device, skipping\n");
    GTEST_SKIP();
  }
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.status().message().find("cuModuleLoadDataEx failed"),
            absl::string_view::npos)
      << executor.status();
  EXPECT_NE(executor.status().message().find("the JIT says"),
            absl::string_view::npos)
      << executor.status();
}

TEST(CudaExecutorTest, CpuExecutablesAreRefused) {
  Executable e = IndexedConditionalExecutable();
  e.platform = "cpu";
  e.device_code.clear();
  e.steps.clear();
  auto executor = CudaExecutor::Create(e);
  ASSERT_FALSE(executor.ok());
  EXPECT_NE(executor.status().message().find("not cuda"),
            absl::string_view::npos)
      << executor.status();
}

}  // namespace
}  // namespace hloc

// Every candidate cuDNN offers a convolution -- the descriptor API's
// algorithms and the graph API's execution plans -- computes it: Autotune
// may keep any of them, so each is run here and checked against direct
// loops on the host. Also that the graph API is really used: where the
// library has it, the convolutions below get graph plans. Skips without a
// GPU or without cuDNN, and says so.
#include "runtime/cudnn_conv.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hlo/literal.h"
#include "runtime/cuda_device.h"
#include "runtime/cuda_driver.h"
#include "runtime/testing/conv_reference.h"
#include "runtime/testing/cuda_test_executables.h"

namespace hloc {
namespace cuda {
namespace {

Literal Random(const Shape& shape, uint32_t seed) {
  Literal literal(shape);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    literal.SetFromDouble(i, static_cast<double>(seed >> 8) / (1 << 24) - 0.5);
  }
  return literal;
}

struct Case {
  const char* name;
  PrimitiveType type;
  testing::ConvTestShape shape;
  double tolerance;
  // The graph API has engines for it (cuDNN 9 on sm_80 and later).
  bool expect_graph_plans;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  testing::ConvTestShape dense;
  cases.push_back({"f32 dense", F32, dense, 1e-4, true});
  testing::ConvTestShape depthwise;
  depthwise.c = depthwise.k = depthwise.groups = 8;
  depthwise.r = depthwise.s = 7;
  depthwise.padding = 3;
  depthwise.h = depthwise.w = 12;
  cases.push_back({"bf16 depthwise nhwc", BF16, depthwise, 0.15, true});
  testing::ConvTestShape depthwise_first = depthwise;
  depthwise_first.channels_first = true;
  cases.push_back({"f32 depthwise nchw", F32, depthwise_first, 1e-4, true});
  testing::ConvTestShape grouped;
  grouped.c = 8;
  grouped.k = 12;
  grouped.groups = 4;
  grouped.stride = 2;
  cases.push_back({"f16 grouped strided", F16, grouped, 0.02, true});
  testing::ConvTestShape gradient = depthwise;
  gradient.backward_filter = true;
  cases.push_back(
      {"bf16 depthwise filter gradient nhwc", BF16, gradient, 0.5, true});
  testing::ConvTestShape gradient_first = depthwise_first;
  gradient_first.backward_filter = true;
  cases.push_back(
      {"f32 depthwise filter gradient nchw", F32, gradient_first, 1e-3, true});
  // A dense convolution's filter gradient (groups = 1), which the cuda
  // pipeline has made a backward-filter call since session 43: bf16, and
  // f32 strided.
  testing::ConvTestShape dense_gradient;
  dense_gradient.backward_filter = true;
  dense_gradient.h = dense_gradient.w = 12;
  cases.push_back(
      {"bf16 dense filter gradient nhwc", BF16, dense_gradient, 0.5, true});
  testing::ConvTestShape strided_gradient = dense_gradient;
  strided_gradient.stride = 2;
  cases.push_back({"f32 strided dense filter gradient nhwc", F32,
                   strided_gradient, 1e-3, true});
  testing::ConvTestShape dilated;
  dilated.dilation = 2;
  dilated.padding = 2;
  cases.push_back({"f64 dilated", F64, dilated, 1e-12, false});
  return cases;
}

TEST(CudnnConvTest, EveryCandidateComputesTheConvolution) {
  absl::StatusOr<CudaDriver*> driver = CudaDriver::Get();
  if (!driver.ok()) {
    std::printf("no CUDA device, skipping: %s\n",
                std::string(driver.status().message()).c_str());
    GTEST_SKIP() << "no CUDA device";
  }
  absl::StatusOr<std::unique_ptr<CudaDevice>> device =
      CudaDevice::Open(*driver, 0);
  ASSERT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::unique_ptr<CudnnConv>> cudnn = CudnnConv::Create(*driver);
  if (!cudnn.ok() && absl::IsUnavailable(cudnn.status())) {
    std::printf("no cuDNN, skipping: %s\n",
                std::string(cudnn.status().message()).c_str());
    GTEST_SKIP() << "no cuDNN";
  }
  ASSERT_TRUE(cudnn.ok()) << cudnn.status();
  CudaDriver& d = **driver;
  CUstream stream = nullptr;
  ASSERT_EQ(d.cuStreamCreate(&stream, 0), CUDA_SUCCESS);

  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    const Executable e = testing::ConvExecutable(c.type, c.shape);
    absl::StatusOr<ConvPlanPtr> plan = (*cudnn)->Plan(e, e.steps[0], c.name);
    ASSERT_TRUE(plan.ok()) << plan.status();
    // The step's buffers: input, filter (or output gradient), result.
    std::vector<Literal> host;
    host.push_back(Random(e.parameter_shapes[0], 7));
    host.push_back(Random(e.parameter_shapes[1], 11));
    Literal result(e.result_shape);
    std::vector<CUdeviceptr> device_buffers;
    for (const Literal* l : {&host[0], &host[1], &result}) {
      CUdeviceptr p = 0;
      ASSERT_EQ(d.cuMemAlloc(&p, l->size_bytes()), CUDA_SUCCESS);
      device_buffers.push_back(p);
    }
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(d.cuMemcpyHtoDAsync(device_buffers[i], host[i].untyped_data(),
                                    host[i].size_bytes(), stream),
                CUDA_SUCCESS);
    }
    int graph_plans = 0;
    const size_t count = CudnnConv::CandidateCount(**plan);
    for (size_t i = 0; i < count; ++i) {
      const std::string what = CudnnConv::DescribeCandidate(**plan, i);
      graph_plans += CudnnConv::IsGraphCandidate(**plan, i);
      absl::Status status =
          (*cudnn)->RunCandidate(**plan, i, device_buffers[0],
                                 device_buffers[1], device_buffers[2], stream);
      // A candidate that cannot run here is one Autotune skips too.
      if (!status.ok()) {
        std::printf("%s: %s does not run: %s\n", c.name, what.c_str(),
                    std::string(status.message()).c_str());
        continue;
      }
      ASSERT_EQ(d.cuMemcpyDtoHAsync(result.untyped_data(), device_buffers[2],
                                    result.size_bytes(), stream),
                CUDA_SUCCESS);
      ASSERT_EQ(d.cuStreamSynchronize(stream), CUDA_SUCCESS);
      const double error =
          testing::ConvReferenceError(c.shape, host[0], host[1], result);
      EXPECT_LE(error, c.tolerance) << what;
      std::printf("%s: %s, largest error %.3g\n", c.name, what.c_str(), error);
    }
    std::printf("%s: %zu candidates, %d of them graph plans\n", c.name, count,
                graph_plans);
    if (c.expect_graph_plans) EXPECT_GT(graph_plans, 0);
    for (CUdeviceptr p : device_buffers) d.cuMemFree(p);
  }
}

}  // namespace
}  // namespace cuda
}  // namespace hloc

// The driver wrapper's error paths, which need no GPU: a missing library,
// the toolkit's stub library, error messages. On a machine with a GPU it
// also opens device 0.
#include "runtime/cuda_driver.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "runtime/cuda_device.h"

namespace hloc {
namespace cuda {
namespace {

bool Contains(const absl::Status& status, const std::string& text) {
  return status.message().find(text) != absl::string_view::npos;
}

TEST(CudaDriverTest, MissingLibraryIsNoDevice) {
  auto driver = CudaDriver::Open("libhloc-no-such-cuda.so.1");
  ASSERT_FALSE(driver.ok());
  EXPECT_TRUE(IsNoCudaDevice(driver.status())) << driver.status();
  EXPECT_TRUE(Contains(driver.status(), "no CUDA driver")) << driver.status();
  EXPECT_TRUE(Contains(driver.status(), "libhloc-no-such-cuda.so.1"));
}

// The CUDA toolkit's stub libcuda (what links on machines without a
// driver) loads, but cuInit says it is a stub.
TEST(CudaDriverTest, StubLibraryIsNoDevice) {
  const char* home = std::getenv("CUDA_HOME");
  const std::filesystem::path stub =
      std::filesystem::path(home != nullptr ? home : "/usr/local/cuda") /
      "lib64" / "stubs" / "libcuda.so";
  if (!std::filesystem::exists(stub)) {
    std::printf("no stub libcuda at %s, skipping\n", stub.c_str());
    GTEST_SKIP();
  }
  auto driver = CudaDriver::Open(stub.string());
  ASSERT_TRUE(driver.ok()) << driver.status();
  absl::Status status = (*driver)->Init();
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(IsNoCudaDevice(status)) << status;
  EXPECT_TRUE(Contains(status, "stub")) << status;
  // Errors name the function, the result and the context, even when the
  // stub cannot name the result.
  status = (*driver)->Check(1, "cuMemAlloc", "step 3 (fusion.1)");
  EXPECT_FALSE(IsNoCudaDevice(status));
  EXPECT_TRUE(Contains(status, "cuMemAlloc failed: ")) << status;
  EXPECT_TRUE(Contains(status, "in step 3 (fusion.1)")) << status;
  EXPECT_TRUE((*driver)->Check(CUDA_SUCCESS, "cuMemAlloc", "anything").ok());
}

TEST(CudaDriverTest, TheProcessDriver) {
  auto driver = CudaDriver::Get();
  if (!driver.ok()) {
    ASSERT_TRUE(IsNoCudaDevice(driver.status())) << driver.status();
    std::printf("no CUDA device, skipping: %s\n",
                std::string(driver.status().message()).c_str());
    GTEST_SKIP();
  }
  auto device = CudaDevice::Open(*driver, 0);
  ASSERT_TRUE(device.ok()) << device.status();
  const CudaDeviceInfo& info = (*device)->info();
  std::printf("device 0: %s, %s, %d SMs, %d bytes of opt-in shared memory\n",
              info.name.c_str(), info.Arch().c_str(), info.multiprocessors,
              info.max_shared_memory_per_block_optin);
  EXPECT_GE(info.compute_capability_major, 5);
  absl::Status status = (*driver)->Check(1, "cuMemAlloc", "step 3");
  EXPECT_TRUE(Contains(status, "CUDA_ERROR_INVALID_VALUE")) << status;
  EXPECT_FALSE(CudaDevice::Open(*driver, 1000).ok());
}

}  // namespace
}  // namespace cuda
}  // namespace hloc

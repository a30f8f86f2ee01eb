// The HIP runtime loads through dlopen or says clearly why not. Where no
// AMD GPU (or no HIP runtime) is present, which is every machine this
// project is built on, the device tests skip saying so; the error paths
// are checked everywhere.
#include "runtime/hip_driver.h"

#include <string>

#include "gtest/gtest.h"

namespace hloc {
namespace hip {
namespace {

TEST(HipDriverTest, MissingLibraryIsUnavailableAndSaysWhich) {
  absl::StatusOr<std::unique_ptr<HipDriver>> driver =
      HipDriver::Open("libhloc-no-such-hip-runtime.so");
  ASSERT_FALSE(driver.ok());
  EXPECT_TRUE(IsNoHipDevice(driver.status())) << driver.status();
  EXPECT_NE(driver.status().message().find("no HIP runtime: cannot load "
                                           "libhloc-no-such-hip-runtime.so"),
            std::string::npos)
      << driver.status();
}

TEST(HipDriverTest, LibraryWithoutHipIsUnavailableNamingTheFunctions) {
  // libc is loadable but exports no HIP function.
  absl::StatusOr<std::unique_ptr<HipDriver>> driver =
      HipDriver::Open("libc.so.6");
  ASSERT_FALSE(driver.ok());
  EXPECT_TRUE(IsNoHipDevice(driver.status())) << driver.status();
  EXPECT_NE(driver.status().message().find("lacks hipInit"), std::string::npos)
      << driver.status();
}

TEST(HipDriverTest, DefaultLibrariesTrySonames) {
  const std::string libraries = HipDriver::DefaultLibraries();
  ASSERT_FALSE(libraries.empty());
  if (std::getenv("HLOC_LIBAMDHIP64") == nullptr) {
    EXPECT_EQ(libraries.rfind("libamdhip64.so,", 0), 0u) << libraries;
  }
}

TEST(HipDriverTest, GetGivesADeviceOrSaysThereIsNone) {
  absl::StatusOr<HipDriver*> driver = HipDriver::Get();
  if (!driver.ok()) {
    EXPECT_TRUE(IsNoHipDevice(driver.status())) << driver.status();
    EXPECT_EQ(driver.status().message().rfind("no AMD GPU: ", 0), 0u)
        << driver.status();
    GTEST_SKIP() << "no AMD GPU here: " << driver.status().message();
  }
  int count = 0;
  ASSERT_TRUE(HLOC_HIP_CALL(*driver, "test", hipGetDeviceCount, &count).ok());
  EXPECT_GE(count, 1);
  // The same driver every time.
  EXPECT_EQ(*HipDriver::Get(), *driver);
}

}  // namespace
}  // namespace hip
}  // namespace hloc

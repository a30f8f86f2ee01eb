#include "backends/common/find_on_path.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace hloc {
namespace {

TEST(FindOnPathTest, FirstExecutableInPathOrder) {
  const char* saved = std::getenv("PATH");
  const std::string old_path = saved != nullptr ? saved : "";
  setenv("PATH", "/hloc-no-such-dir::/bin:/usr/bin", 1);
  EXPECT_EQ(FindOnPath("sh"), "/bin/sh");
  EXPECT_EQ(FindOnPath("hloc-no-such-program"), "");
  unsetenv("PATH");
  EXPECT_EQ(FindOnPath("sh"), "");
  setenv("PATH", old_path.c_str(), 1);
}

}  // namespace
}  // namespace hloc

#include "tools/checkout_files.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace hloc {

namespace fs = std::filesystem;

std::string FindCheckoutPath(const std::string& relative) {
  // The workspace name of WORKSPACE: the runfiles tree's top folder.
  constexpr char kWorkspace[] = "hloc";
  std::vector<fs::path> candidates;
  std::error_code ec;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    candidates.push_back(fs::path(srcdir) / workspace / relative);
  }
  if (const char* runfiles = std::getenv("RUNFILES_DIR")) {
    candidates.push_back(fs::path(runfiles) / kWorkspace / relative);
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(fs::path(exe.string() + ".runfiles") / kWorkspace /
                         relative);
  }
  for (fs::path dir = fs::current_path(ec); !dir.empty();
       dir = dir.parent_path()) {
    candidates.push_back(dir / relative);
    if (dir == dir.root_path()) break;
  }
  for (const fs::path& candidate : candidates) {
    if (fs::exists(candidate, ec)) return candidate.string();
  }
  return "";
}

}  // namespace hloc

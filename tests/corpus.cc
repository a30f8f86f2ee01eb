#include "tests/corpus.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace hloc {
namespace {

namespace fs = std::filesystem;

constexpr char kCorpusSubdir[] = "shared/corpus/jax";
// This library's runfiles data file, relative to the workspace root.
constexpr char kAnchor[] = "tests/corpus.h";

std::string SearchUpwards(fs::path start) {
  std::error_code ec;
  fs::path dir = fs::is_directory(start, ec) ? start : start.parent_path();
  while (!dir.empty()) {
    fs::path candidate = dir / kCorpusSubdir;
    if (fs::is_directory(candidate, ec)) {
      return fs::canonical(candidate, ec).string();
    }
    if (dir == dir.root_path()) break;
    dir = dir.parent_path();
  }
  return "";
}

std::string FindCorpusDir() {
  std::error_code ec;
  if (const char* env = std::getenv("HLOC_CORPUS_DIR")) {
    if (fs::is_directory(env, ec)) return fs::canonical(env, ec).string();
  }
  std::vector<fs::path> anchors;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    anchors.push_back(fs::path(srcdir) / workspace / kAnchor);
  }
  if (const char* runfiles = std::getenv("RUNFILES_DIR")) {
    anchors.push_back(fs::path(runfiles) / (workspace ? workspace : "hloc") /
                      kAnchor);
  }
  for (const fs::path& anchor : anchors) {
    // The runfiles entry is a symlink into the source checkout.
    fs::path real = fs::canonical(anchor, ec);
    if (ec) continue;
    std::string found = SearchUpwards(real);
    if (!found.empty()) return found;
  }
  return SearchUpwards(fs::current_path(ec));
}

}  // namespace

std::string CorpusDir() {
  static const std::string* dir = new std::string(FindCorpusDir());
  return *dir;
}

std::vector<std::string> CorpusCases() {
  std::vector<std::string> cases;
  const std::string dir = CorpusDir();
  if (dir.empty()) return cases;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec))
      cases.push_back(entry.path().filename().string());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

std::string CorpusFile(const std::string& case_name, const std::string& file) {
  return (fs::path(CorpusDir()) / case_name / file).string();
}

bool ReadFileToString(const std::string& path, std::string* contents) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  *contents = buffer.str();
  return static_cast<bool>(in) || in.eof();
}

}  // namespace hloc

#include "tools/graph/graphviz.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace hloc {
namespace {

namespace fs = std::filesystem;

bool IsExecutable(const std::string& path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0 &&
         fs::is_regular_file(path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

std::string FindGraphvizDot() {
  if (const char* env = std::getenv("HLOC_DOT"); env != nullptr) {
    return IsExecutable(env) ? env : "";
  }
  const char* path = std::getenv("PATH");
  for (absl::string_view dir :
       absl::StrSplit(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    if (dir.empty()) continue;
    std::string candidate = absl::StrCat(dir, "/dot");
    if (IsExecutable(candidate)) return candidate;
  }
  return "";
}

absl::StatusOr<std::string> RenderDotToSvg(const std::string& dot_text) {
  const std::string dot = FindGraphvizDot();
  if (dot.empty()) {
    return absl::UnavailableError(
        "Graphviz's dot is not on PATH (Debian: apt-get install graphviz; "
        "or set HLOC_DOT)");
  }
  std::error_code ec;
  std::string dir = (fs::temp_directory_path(ec) / "hlo-graph.XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) {
    return absl::InternalError("cannot create a temporary directory");
  }
  const std::string in = dir + "/graph.dot", out = dir + "/graph.svg",
                    err = dir + "/dot.err";
  {
    std::ofstream file(in, std::ios::binary);
    file << dot_text;
  }
  const std::string command =
      absl::StrCat(ShellQuote(dot), " -Tsvg -o ", ShellQuote(out), " ",
                   ShellQuote(in), " 2>", ShellQuote(err));
  const int status = std::system(command.c_str());
  std::string svg = ReadFile(out);
  const std::string message = ReadFile(err);
  fs::remove_all(dir, ec);
  if (status != 0 || svg.empty()) {
    return absl::InternalError(
        absl::StrCat("dot -Tsvg failed (status ", status, "): ", message));
  }
  const size_t start = svg.find("<svg");
  return start == std::string::npos ? svg : svg.substr(start);
}

}  // namespace hloc

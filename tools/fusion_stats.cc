// fusion-stats: how many kernels our pipeline leaves for each corpus case,
// next to XLA:GPU's count for the same case (see tools/fusion_stats_lib.h).
//
//   fusion-stats [CORPUS_DIR] [--platform=cuda] [--verbose]
//
// CORPUS_DIR defaults to $HLOC_CORPUS_DIR, else the first shared/corpus/jax
// found walking up from the working directory. Exit codes: 0 every case has
// ours <= XLA's, 1 some case has more, 2 bad input.
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "tools/flags.h"
#include "tools/fusion_stats_lib.h"

namespace hloc {
namespace {

std::string FindCorpus() {
  if (const char* env = std::getenv("HLOC_CORPUS_DIR")) return env;
  std::error_code ec;
  for (std::filesystem::path dir = std::filesystem::current_path(ec);
       !dir.empty(); dir = dir.parent_path()) {
    std::filesystem::path candidate = dir / "shared" / "corpus" / "jax";
    if (std::filesystem::is_directory(candidate, ec)) return candidate.string();
    if (dir == dir.parent_path()) break;
  }
  return "";
}

int Main(int argc, char** argv) {
  const std::vector<FlagSpec> specs = {
      {"platform", true, "pipeline to run: cpu, cuda (default) or rocm"},
      {"verbose", false, "list the kernels of both sides for every case"},
      {"help", false, "print this help"},
  };
  const std::string usage =
      "fusion-stats [CORPUS_DIR] [--platform=cuda] [--verbose]";
  absl::StatusOr<ParsedFlags> flags = ParseFlags(argc, argv, specs);
  if (!flags.ok()) {
    std::cerr << "fusion-stats: " << flags.status().message() << "\n";
    return 2;
  }
  if (flags->Has("help")) {
    std::cout << FlagHelp(usage, specs);
    return 0;
  }
  if (flags->positional.size() > 1) {
    std::cerr << "fusion-stats: expected at most one corpus directory\n";
    return 2;
  }
  const std::string corpus =
      flags->positional.empty() ? FindCorpus() : flags->positional[0];
  std::vector<std::string> cases = ListCases(corpus);
  if (cases.empty()) {
    std::cerr << "fusion-stats: no cases (module.hlo + xla_gpu_opt.hlo) in '"
              << corpus << "'\n";
    return 2;
  }
  std::vector<CaseKernelStats> stats;
  for (const std::string& dir : cases) {
    absl::StatusOr<CaseKernelStats> s =
        CompareCase(dir, flags->Get("platform", "cuda"));
    if (!s.ok()) {
      std::cerr << "fusion-stats: " << s.status().message() << "\n";
      return 2;
    }
    stats.push_back(std::move(*s));
  }
  std::cout << FormatStatsTable(stats, flags->Has("verbose"));
  for (const CaseKernelStats& s : stats) {
    if (!s.ok()) return 1;
  }
  return 0;
}

}  // namespace
}  // namespace hloc

int main(int argc, char** argv) { return hloc::Main(argc, argv); }

#include "tools/fusion_stats_lib.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "hlo/module.h"
#include "passes/fusion/kernel_count.h"
#include "passes/pipelines.h"
#include "tools/module_loader.h"

namespace hloc {

absl::StatusOr<CaseKernelStats> CompareCase(const std::string& case_dir,
                                            absl::string_view platform) {
  CaseKernelStats stats;
  stats.name = std::filesystem::path(case_dir).filename().string();
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      LoadModule(case_dir + "/module.hlo", "hlo");
  if (!module.ok()) return module.status();
  PipelineOptions options;
  options.verify = true;
  absl::StatusOr<HloPassPipeline> pipeline = MakePipeline(platform, options);
  if (!pipeline.ok()) return pipeline.status();
  absl::StatusOr<bool> ran = pipeline->Run(module->get());
  if (!ran.ok()) {
    return absl::Status(ran.status().code(),
                        absl::StrCat(stats.name, ": ", ran.status().message()));
  }
  KernelCount ours = CountKernels(**module);
  stats.ours = ours.total();
  stats.our_kernels = ours.kernels;

  absl::StatusOr<std::unique_ptr<HloModule>> xla =
      LoadModule(case_dir + "/xla_gpu_opt.hlo", "hlo");
  if (!xla.ok()) return xla.status();
  KernelCount theirs = CountKernels(**xla);
  stats.xla = theirs.total();
  stats.xla_kernels = theirs.kernels;
  return stats;
}

std::vector<std::string> ListCases(const std::string& corpus_dir) {
  std::vector<std::string> cases;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(corpus_dir, ec)) {
    if (!entry.is_directory()) continue;
    if (std::filesystem::exists(entry.path() / "module.hlo") &&
        std::filesystem::exists(entry.path() / "xla_gpu_opt.hlo")) {
      cases.push_back(entry.path().string());
    }
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

std::string FormatStatsTable(const std::vector<CaseKernelStats>& stats,
                             bool verbose) {
  std::string out =
      absl::StrFormat("%-18s %5s %5s  %s\n", "case", "ours", "XLA", "ok?");
  int64_t ours = 0;
  int64_t xla = 0;
  int64_t ok = 0;
  for (const CaseKernelStats& s : stats) {
    absl::StrAppend(&out, absl::StrFormat("%-18s %5d %5d  %s\n", s.name, s.ours,
                                          s.xla, s.ok() ? "ok" : "MORE"));
    if (verbose) {
      absl::StrAppend(&out, "    ours: ", absl::StrJoin(s.our_kernels, ", "),
                      "\n    XLA:  ", absl::StrJoin(s.xla_kernels, ", "), "\n");
    }
    ours += s.ours;
    xla += s.xla;
    ok += s.ok() ? 1 : 0;
  }
  absl::StrAppend(&out, absl::StrFormat("%-18s %5d %5d  %d/%d ok\n", "total",
                                        ours, xla, ok, stats.size()));
  return out;
}

}  // namespace hloc

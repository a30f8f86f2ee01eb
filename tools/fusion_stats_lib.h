// The kernel-count comparison behind `fusion-stats`: for each corpus case,
// the kernels our pipeline leaves versus the kernels in XLA:GPU's optimized
// HLO (xla_gpu_opt.hlo), both counted by CountKernels
// (passes/fusion/kernel_count.h). The goal is ours <= XLA's for every case.
#ifndef TOOLS_FUSION_STATS_LIB_H_
#define TOOLS_FUSION_STATS_LIB_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloc {

struct CaseKernelStats {
  std::string name;
  int64_t ours = 0;
  int64_t xla = 0;
  std::vector<std::string> our_kernels;
  std::vector<std::string> xla_kernels;
  bool ok() const { return ours <= xla; }
};

// Runs `platform`'s pipeline on case_dir/module.hlo and counts; counts
// case_dir/xla_gpu_opt.hlo as it is.
absl::StatusOr<CaseKernelStats> CompareCase(const std::string& case_dir,
                                            absl::string_view platform);

// The cases of a corpus directory (subdirectories holding both files),
// sorted.
std::vector<std::string> ListCases(const std::string& corpus_dir);

// A table, one row per case, and a total line:
//   case             ours  XLA  ok?
//   softmax             1    1  ok
//   ...
//   total              33   41  30/30 ok
// With `verbose`, each row is followed by both kernel lists.
std::string FormatStatsTable(const std::vector<CaseKernelStats>& stats,
                             bool verbose);

}  // namespace hloc

#endif  // TOOLS_FUSION_STATS_LIB_H_

#include "passes/fusion/report.h"

#include "absl/strings/str_cat.h"

namespace hloc {
namespace {
thread_local FusionReport* current_sink = nullptr;
}  // namespace

ScopedFusionReportSink::ScopedFusionReportSink(FusionReport* report)
    : previous_(current_sink) {
  current_sink = report;
}

ScopedFusionReportSink::~ScopedFusionReportSink() { current_sink = previous_; }

FusionReport* ResolveFusionReport(FusionReport* explicit_report) {
  return explicit_report != nullptr ? explicit_report : current_sink;
}

void FusionReport::Record(FusionDecisionRecord record) {
  std::string key = absl::StrCat(record.pass, "\n", record.computation, "\n",
                                 record.producer, "\n", record.consumer);
  auto it = index_.find(key);
  if (it != index_.end()) {
    records_[it->second] = std::move(record);
    return;
  }
  index_.emplace(std::move(key), records_.size());
  records_.push_back(std::move(record));
}

int64_t FusionReport::fused_count() const {
  int64_t n = 0;
  for (const FusionDecisionRecord& r : records_) n += r.fused ? 1 : 0;
  return n;
}

void FusionReport::Clear() {
  records_.clear();
  index_.clear();
}

std::string FormatFusionReport(const FusionReport& report) {
  std::string out;
  std::string group;
  for (const FusionDecisionRecord& r : report.records()) {
    std::string this_group =
        absl::StrCat(r.pass, ", computation ", r.computation);
    if (this_group != group) {
      absl::StrAppend(&out, this_group, ":\n");
      group = this_group;
    }
    absl::StrAppend(&out, "  ", r.fused ? "FUSED     " : "not fused ",
                    r.producer, " -> ", r.consumer);
    if (!r.result.empty()) absl::StrAppend(&out, " => ", r.result);
    absl::StrAppend(&out, "\n            ", r.rule);
    if (r.fused && r.bytes_saved != 0) {
      absl::StrAppend(&out, " [", r.bytes_saved < 0 ? "costs " : "saves ",
                      r.bytes_saved < 0 ? -r.bytes_saved : r.bytes_saved,
                      " bytes]");
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "summary: ", report.records().size(),
                  " pairs considered, ", report.fused_count(), " fused\n");
  return out;
}

}  // namespace hloc

// FusionReport: why every producer/consumer pair the fusion passes looked at
// did or did not fuse. XLA's users ask exactly this question ("why are these
// two ops separate kernels?"); here each pass appends one entry per pair it
// considered, carrying the rule that decided, and `hlo-opt --fusion-report`
// prints the list.
//
// A pair that is considered several times in one pass run (the consumer grew
// and its operands were re-examined) keeps one entry: the last decision.
#ifndef PASSES_FUSION_REPORT_H_
#define PASSES_FUSION_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace hloc {

struct FusionDecisionRecord {
  std::string pass;         // "instruction-fusion", "multi-output-fusion", ...
  std::string computation;  // The computation the pair lives in.
  std::string producer;     // Producer (or first sibling) as "name (opcode)".
  std::string consumer;     // Consumer (or second sibling) as "name (opcode)".
  bool fused = false;
  // The rule that decided: "fused: elementwise producer into loop consumer",
  // "not fused: producer exponential is expensive and has 2 consumers".
  std::string rule;
  // The fusion the pair became part of (empty when not fused).
  std::string result;
  // Memory traffic the fusion avoids, by the cost model's estimate
  // (negative when a copied producer reads more than it saves).
  int64_t bytes_saved = 0;
};

class FusionReport {
 public:
  // Records a decision; an earlier record of the same (pass, computation,
  // producer, consumer) is overwritten in place.
  void Record(FusionDecisionRecord record);

  const std::vector<FusionDecisionRecord>& records() const { return records_; }
  int64_t fused_count() const;
  void Clear();

 private:
  std::vector<FusionDecisionRecord> records_;
  absl::flat_hash_map<std::string, size_t> index_;
};

// While alive, fusion passes constructed without a report (as the pass
// registry makes them for `hlo-opt --passes=...`) record into `report`:
//
//   FusionReport report;
//   ScopedFusionReportSink sink(&report);
//   pipeline.Run(module);
//   std::cout << FormatFusionReport(report);
//
// Scopes nest; the sink is per thread.
class ScopedFusionReportSink {
 public:
  explicit ScopedFusionReportSink(FusionReport* report);
  ~ScopedFusionReportSink();
  ScopedFusionReportSink(const ScopedFusionReportSink&) = delete;
  ScopedFusionReportSink& operator=(const ScopedFusionReportSink&) = delete;

 private:
  FusionReport* previous_;
};

// `explicit_report` if non-null, else the innermost scoped sink, else null.
FusionReport* ResolveFusionReport(FusionReport* explicit_report);

// Human-readable listing, grouped by pass and computation:
//
//   instruction-fusion, computation main:
//     FUSED     exp.1 (exponential) -> div.7 (divide) => loop_fusion
//               fused: expensive elementwise (exponential) producer into
//               loop consumer (divide) [saves 8192 bytes]
//     not fused reduce.3 (reduce) -> sub.4 (subtract)
//               not fused: producer reduce is a reduction barrier
//   summary: 12 pairs considered, 9 fused
std::string FormatFusionReport(const FusionReport& report);

}  // namespace hloc

#endif  // PASSES_FUSION_REPORT_H_

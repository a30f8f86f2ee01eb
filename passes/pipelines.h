// The per-target HLO pipelines, one readable list each (see pipelines.cc):
// simplification to a fixed point, then fusion, then dead code elimination.
// `hlo-opt --platform=cuda --stage=hlo` runs MakePipeline("cuda", ...).
//
//   every target: host-callbacks (drop-host-callbacks with
//                 PipelineOptions::drop_debug_callbacks); schedule-remover;
//                 simplify; simplify-fp-conversions (unless
//                 PipelineOptions::allow_excess_precision is false);
//                 row-reduction-fusion; instruction-fusion (with dot
//                 epilogues); multi-output-fusion; dce
//
// Row-reduction fusion and dot epilogues are the two fusion shapes that
// need a whole row per thread block (or per CPU work item) or a GEMM tile
// (fusion_kinds.h: kRowReduction, kDotEpilogue); every backend emits both.
//
// Measured against XLA:GPU (tools/fusion_stats, kernels = fusions + unfused
// non-trivial ops): XLA makes softmax, layer norm and x/sum(x) one Triton
// kernel each, where classic reduction fusion needs two or three (a
// reduction's consumers wait for the whole result). Row-reduction fusion
// gets the same single kernel without Triton; dot epilogues match XLA's
// GEMM fusions that absorb a bias and activation; sibling multi-output
// fusion makes sin(x), cos(x) one kernel where XLA launches two. On the
// corpus the cuda pipeline leaves 34 kernels to XLA's 44, never more on
// any case.
#ifndef PASSES_PIPELINES_H_
#define PASSES_PIPELINES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "passes/fusion/cost_model.h"
#include "passes/fusion/report.h"
#include "passes/pipeline.h"

namespace hloc {

// "cpu", "cuda", "rocm".
std::vector<std::string> ListPlatforms();

// The fusion options of a platform; an error names the known platforms.
absl::StatusOr<FusionOptions> FusionOptionsForPlatform(
    absl::string_view platform);

// The whole HLO pipeline of `platform`. Fusion decisions go to `report`
// when given (else to a ScopedFusionReportSink, if one is active).
absl::StatusOr<HloPassPipeline> MakePipeline(absl::string_view platform,
                                             const PipelineOptions& options,
                                             FusionReport* report = nullptr);

}  // namespace hloc

#endif  // PASSES_PIPELINES_H_

#include "passes/pipelines.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/fusion/instruction_fusion.h"
#include "passes/fusion/multi_output_fusion.h"
#include "passes/fusion/row_reduction_fusion.h"
#include "passes/registry.h"

namespace hloc {
namespace {

// Target-independent cleanups, by their registry names; the fixed point
// runs them until none changes the module.
constexpr const char* kSimplificationPasses[] = {
    "algebraic-simplifier",
    "tuple-simplifier",
    "constant-folding",
    "cse",
    "dce",
};

absl::Status AddByName(HloPassPipeline* pipeline, absl::string_view name) {
  absl::StatusOr<std::unique_ptr<HloPass>> pass = CreatePass(name);
  if (!pass.ok()) return pass.status();
  pipeline->AddPass(std::move(*pass));
  return absl::OkStatus();
}

absl::Status AddSimplification(HloPassPipeline* pipeline) {
  if (absl::Status s = AddByName(pipeline, "call-inliner"); !s.ok()) return s;
  HloPassPipeline* fixed_point = pipeline->AddFixedPoint("simplify");
  for (const char* name : kSimplificationPasses) {
    if (absl::Status s = AddByName(fixed_point, name); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> ListPlatforms() { return {"cpu", "cuda", "rocm"}; }

absl::StatusOr<FusionOptions> FusionOptionsForPlatform(
    absl::string_view platform) {
  FusionOptions options;
  if (platform == "cuda" || platform == "rocm") return options;
  if (platform == "cpu") {
    options.row_reduction_fusion = false;
    options.dot_epilogue_fusion = false;
    return options;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown platform '", platform,
                   "' (known: ", absl::StrJoin(ListPlatforms(), ", "), ")"));
}

absl::StatusOr<HloPassPipeline> MakePipeline(absl::string_view platform,
                                             const PipelineOptions& options,
                                             FusionReport* report) {
  absl::StatusOr<FusionOptions> fusion = FusionOptionsForPlatform(platform);
  if (!fusion.ok()) return fusion.status();

  HloPassPipeline pipeline(absl::StrCat(platform, "-hlo"));
  pipeline.set_options(options);
  if (absl::Status s = AddSimplification(&pipeline); !s.ok()) return s;
  if (fusion->row_reduction_fusion) {
    pipeline.AddPass<RowReductionFusion>(*fusion, report);
  }
  pipeline.AddPass<InstructionFusion>(*fusion, report);
  pipeline.AddPass<MultiOutputFusion>(*fusion, report);
  if (absl::Status s = AddByName(&pipeline, "dce"); !s.ok()) return s;
  return pipeline;
}

}  // namespace hloc

// HloPassPipeline: a named, flat list of passes run in order, in the manner
// of Halide's lowering list. An entry may itself be a sub-pipeline that is
// run to a fixed point (until a whole iteration changes nothing, or an
// iteration cap is reached). Between passes the pipeline can run the
// verifier (tests and debug runs) and dump the module as text, numbered, so
// the IR after every step can be read in order:
//
//   DIR/0000.input.hlo, DIR/0001.algebraic-simplifier.hlo, DIR/0002.dce.hlo
//
// When the verifier rejects the module after a pass, that invalid module is
// dumped too (DIR/NNNN.<pass>.invalid.hlo), since it is what a bug report
// needs. Passes can be disabled by name (hlo-opt --disable-passes), so a
// user can work around a pass that breaks their module.
//
// A pipeline is itself an HloPass, so pipelines nest and can be registered
// under a name like any other pass.
#ifndef PASSES_PIPELINE_H_
#define PASSES_PIPELINE_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/module.h"
#include "passes/pass.h"

namespace hloc {

struct PipelineOptions {
  // Run the verifier after every pass; the first failure stops the pipeline
  // with an error naming the pass that broke the module.
  bool verify = false;
  // When non-empty, write the module after every pass (and the input first)
  // as DIR/NNNN.<pass-name>.hlo. The directory is created if missing.
  std::string dump_dir;
  // Dump after every pass run, or only after runs that changed the module.
  bool dump_unchanged = true;
  // Passes (or named sub-pipelines) skipped wherever they occur; every name
  // must occur in the pipeline (CheckDisabledPasses).
  std::set<std::string> disabled_passes;
  // Target pipelines (MakePipeline) may keep values more precise than their
  // HLO types, as XLA does by default (xla_allow_excess_precision): see
  // simplify_fp_conversions.h.
  bool allow_excess_precision = true;
  // Target pipelines (MakePipeline) drop JAX's Python host callbacks whose
  // results are unused (jax.debug.print and co.) with a notice on stderr,
  // instead of refusing the module (passes/host_callbacks.h).
  bool drop_debug_callbacks = false;
};

// Wall time spent in one pass (or other phase of a compile), for
// hlo-opt --time-passes.
struct PassTime {
  std::string name;
  int64_t runs = 0;
  double seconds = 0;
};

// A table of `rows` in the manner of LLVM's -time-passes, slowest first
// (ties by name), each with its share of `total_seconds`, then the total:
//   ===-----...
//                 hloc execution timing report
//   ===-----...
//     Total: 1.234 s
//      Wall (s)   Share   Runs  Name
//        0.8123   65.8%      1  instruction-fusion
std::string FormatPassTimes(std::vector<PassTime> rows, double total_seconds);

class HloPassPipeline : public HloPass {
 public:
  explicit HloPassPipeline(std::string name);
  HloPassPipeline(HloPassPipeline&&) = default;
  HloPassPipeline& operator=(HloPassPipeline&&) = default;

  absl::string_view name() const override { return name_; }

  // Appends a pass and returns it (still owned by the pipeline). A pass that
  // is itself an HloPassPipeline runs under this pipeline's options.
  HloPass* AddPass(std::unique_ptr<HloPass> pass);
  template <typename T, typename... Args>
  T* AddPass(Args&&... args) {
    auto pass = std::make_unique<T>(std::forward<Args>(args)...);
    T* raw = pass.get();
    AddPass(std::move(pass));
    return raw;
  }
  // Appends an empty sub-pipeline that runs its passes in order, again and
  // again, until one iteration changes nothing or `max_iterations` ran.
  // Fill it through the returned pointer.
  HloPassPipeline* AddFixedPoint(std::string name, int max_iterations = 25);

  // Options apply to this pipeline and every sub-pipeline in it.
  void set_options(PipelineOptions options) { options_ = std::move(options); }
  const PipelineOptions& options() const { return options_; }

  // Runs every entry in order; returns whether any pass changed the module.
  absl::StatusOr<bool> Run(HloModule* module) override;

  // The passes in order, fixed-point groups as "fixed-point(a,b,c)": the
  // syntax PipelineFromPassList accepts.
  std::string ToString() const;

  // Every name a pass or sub-pipeline of this pipeline has, at any depth
  // (this pipeline's own name excluded), sorted and without repeats.
  std::vector<std::string> PassNames() const;

  // An error naming each disabled pass that does not occur in the pipeline,
  // and the names that do; Run checks it first.
  absl::Status CheckDisabledPasses() const;

  // Statistics of every pass run so far, one line per counter, in the style
  // of LLVM's -stats:
  //   "       3 algebraic-simplifier - reshape-of-reshape"
  // Counters of a pass that ran several times (in a fixed point) are summed.
  // Each pass also reports "runs" and "changed" (how often it ran / changed
  // the module).
  std::string StatisticsReport() const;

  // Wall time of every pass run so far, at any depth, summed by name (a
  // pass in a fixed point, or added twice, is one row with all its runs),
  // in pipeline order; the verifier and dumps between passes are the row
  // "(verify and dump between passes)" when they took any time.
  std::vector<PassTime> PassTimes() const;

 private:
  struct Entry {
    std::unique_ptr<HloPass> pass;
    HloPassPipeline* sub_pipeline = nullptr;  // Set when `pass` is one.
    int64_t runs = 0;
    int64_t changed = 0;
    double seconds = 0;  // Wall time of the runs of a pass (not a pipeline).
  };
  // Shared by a pipeline and its sub-pipelines during one Run.
  struct RunState {
    const PipelineOptions* options;
    int64_t dump_counter = 0;
    // The top-level pipeline's between_passes_seconds_.
    double* between_passes_seconds = nullptr;
  };

  absl::StatusOr<bool> RunWithState(HloModule* module, RunState* state);
  absl::StatusOr<bool> RunOnce(HloModule* module, RunState* state);
  absl::Status AfterPass(const HloModule& module, absl::string_view pass_name,
                         bool changed, RunState* state);
  void AppendStatistics(std::string* out) const;
  void CollectPassNames(std::set<std::string>* names) const;
  void CollectPassTimes(std::vector<PassTime>* rows) const;

  std::string name_;
  std::vector<Entry> entries_;
  int max_iterations_ = 1;  // > 1 for a fixed-point sub-pipeline.
  PipelineOptions options_;
  // Verifier and dumps after passes, in Runs of this (top-level) pipeline.
  double between_passes_seconds_ = 0;
};

}  // namespace hloc

#endif  // PASSES_PIPELINE_H_

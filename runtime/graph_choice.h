// Whether runs launch their graphs as captured on several streams
// (graph_streams.h), whose independent chains of kernels are parallel
// branches, or as the one chain a single-stream capture records.
//
// Branches are not always faster. Measured on the H100 (RESULTS.md,
// sessions 34 and 35), they made 24 of 27 multi-kernel programs faster (up
// to 2.7x) and three slower (to 0.74x), and no property of the graphs
// visible offline (width, length, size) told them apart. Nor did timing
// each graph on its own (session 35): choosing per graph, by its launch on
// an idle GPU or by events around it in place, kept branches only where
// they measured faster, and runs were still as slow as with branches
// everywhere (linalg_solvers_batched 1.56 ms against 1.27 ms with chains).
// The cost lands outside the graphs, on the work around them (cuSOLVER
// calls, a loop's decisions on the host), so only whole runs measure it.
// The executor therefore times its first runs, alternately with graphs on
// their branches and as chains, as gemm autotuning times cuBLASLt's
// algorithms, and keeps the faster for every later run.
//
// A timed run is the device's time from the first step to the last (CUDA
// events), over the run's repeats. Runs of the same executable on other
// inputs may take other paths (a loop's trip count), which is noise the
// margin and best-of-three absorb, not a signal: a caller's runs are alike.
#ifndef RUNTIME_GRAPH_CHOICE_H_
#define RUNTIME_GRAPH_CHOICE_H_

namespace hloc {

class GraphChoice {
 public:
  enum class Variant { kBranched, kChain };

  // Timed runs per variant, alternating (branches first). The best of each
  // counts: a variant's first run captures and uploads its graphs, and the
  // host can be preempted during any one; three is enough for the best to
  // be a run that was neither.
  static constexpr int kTrials = 3;
  // Branches are kept only when their best run beats the chains' by this
  // fraction: within the noise of timing a run, chains are what has less
  // to go wrong (no contention between kernels, launches as programmatic
  // as the executable asked).
  static constexpr double kMargin = 0.02;

  // Decided without timing: no graph has branches, or the caller asked for
  // branches.
  void Fix(Variant variant);
  bool decided() const { return decided_; }
  // The decided variant (decided() only).
  Variant variant() const { return variant_; }

  // While undecided: the variant the next timed run launches.
  Variant NextTrial() const;
  // The time of that run; the last of 2 * kTrials decides.
  void Record(double milliseconds);
  // The best time of each variant, once decided by timing (else 0).
  double best_branched() const { return best_[0]; }
  double best_chain() const { return best_[1]; }

 private:
  bool decided_ = false;
  Variant variant_ = Variant::kChain;
  int recorded_ = 0;
  double best_[2] = {0, 0};
};

}  // namespace hloc

#endif  // RUNTIME_GRAPH_CHOICE_H_

// The interface every HLO pass implements, in the spirit of LLVM's passes:
// one pass per file, a name for the command line (`hlo-opt --passes=...`),
// and statistics counters a pipeline can print.
#ifndef PASSES_PASS_H_
#define PASSES_PASS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/module.h"
#include "hlo/opcode.h"

namespace hloc {

class HloPass {
 public:
  virtual ~HloPass() = default;
  // The name used by --passes and in dumps ("dce", "algebraic-simplifier").
  virtual absl::string_view name() const = 0;
  // Runs over the module; returns whether anything changed.
  virtual absl::StatusOr<bool> Run(HloModule* module) = 0;

  // Named counters ("instructions-removed" -> 3) the pass bumps while
  // running; the pipeline prints them with --stats.
  const std::map<std::string, int64_t>& statistics() const { return stats_; }

 protected:
  void Count(const std::string& counter, int64_t n = 1) { stats_[counter] += n; }

  // The loop of a pass that rewrites single instructions: calls `rewrite`
  // on every `opcode` instruction of the module's computations (fusion
  // bodies excepted), in post order, counts each rewrite under `counter`,
  // and re-sorts a computation that changed (a rewrite appends its new
  // instructions after their users). Returns whether anything changed.
  using InstructionRewrite =
      std::function<absl::StatusOr<bool>(HloComputation*, HloInstruction*)>;
  absl::StatusOr<bool> RewriteEach(HloModule* module, HloOpcode opcode,
                                   const std::string& counter,
                                   const InstructionRewrite& rewrite);
  // The same loop over the computations `computations` picks (fusion
  // bodies too, if it picks them) and in them the instructions
  // `instructions` picks, asked in post order as the walk reaches them
  // (after the rewrites of their operands).
  using ComputationSelect = std::function<bool(const HloComputation*)>;
  using InstructionSelect = std::function<bool(const HloInstruction*)>;
  absl::StatusOr<bool> RewriteEach(HloModule* module,
                                   const ComputationSelect& computations,
                                   const InstructionSelect& instructions,
                                   const std::string& counter,
                                   const InstructionRewrite& rewrite);

 private:
  std::map<std::string, int64_t> stats_;
};

}  // namespace hloc

#endif  // PASSES_PASS_H_

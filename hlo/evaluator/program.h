// Applying a computation of scalars (the to_apply of reduce, map, scatter,
// sort, reduce-window, select-and-scatter) to many independent argument
// tuples at once. The computation is compiled into a straight-line program
// over "lanes": every instruction becomes one call of its typed elementwise
// kernel (kernels.h) over all lanes, so the per-element cost is that of the
// kernels, not of interpreting HLO. Computations the program cannot express
// (anything but elementwise ops, constants, tuples and calls on scalars) fall
// back to evaluating the computation per lane.
#ifndef HLO_EVALUATOR_PROGRAM_H_
#define HLO_EVALUATOR_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/computation.h"
#include "hlo/evaluator/kernels.h"
#include "hlo/literal.h"

namespace hloc {
namespace eval {

class Evaluator;

// A compiled scalar computation.
struct ScalarProgram {
  struct Step {
    ElementwiseFn fn;
    int in[3];
    int num_in;
    int out;
    KernelAttrs attrs;
  };
  std::vector<PrimitiveType> slot_types;
  std::vector<int> param_slots;
  std::vector<std::pair<int, Literal>> constants;
  std::vector<Step> steps;
  std::vector<int> result_slots;

  // nullptr if `computation` is not a straight-line function of scalars.
  // With `root`, computes that instruction of the computation instead of
  // its root.
  static std::unique_ptr<ScalarProgram> Compile(
      const HloComputation& computation, const HloInstruction* root = nullptr);
};


// A scalar computation applied lane-wise.
class ScalarFn {
 public:
  ScalarFn(const HloComputation& computation, Evaluator* evaluator);
  // The function computing `root` (an instruction of `computation`) from the
  // computation's parameters; only usable if compiled().
  ScalarFn(const HloComputation& computation, const HloInstruction* root);

  int64_t num_params() const { return param_types_.size(); }
  int64_t num_results() const { return result_types_.size(); }
  PrimitiveType param_type(int64_t i) const { return param_types_[i]; }
  PrimitiveType result_type(int64_t i) const { return result_types_[i]; }
  bool compiled() const { return program_ != nullptr; }

  // args[i] points at n elements of parameter i, results[j] at room for n
  // elements of result leaf j (results may alias args).
  absl::Status Call(absl::Span<const void* const> args,
                    absl::Span<void* const> results, int64_t n);

 private:
  void EnsureCapacity(int64_t lanes);

  const HloComputation& computation_;
  Evaluator* evaluator_;
  std::vector<PrimitiveType> param_types_;
  std::vector<PrimitiveType> result_types_;
  std::unique_ptr<ScalarProgram> program_;
  int64_t capacity_ = 0;
  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<void*> ptrs_;
};

}  // namespace eval
}  // namespace hloc

#endif  // HLO_EVALUATOR_PROGRAM_H_

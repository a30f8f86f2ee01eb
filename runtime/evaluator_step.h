// An evaluator step (ExecutableStep::Kind::kEvaluator): the reference
// evaluator applied to the step's one-instruction module, reading its
// operands from, and writing its results to, the step's slots in host
// memory. The CPU executor runs it on its buffers directly; a GPU executor
// mirrors the step's slots on the host around it.
#ifndef RUNTIME_EVALUATOR_STEP_H_
#define RUNTIME_EVALUATOR_STEP_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/module.h"
#include "runtime/executable.h"

namespace hloc {

class EvaluatorStep {
 public:
  // Parses and verifies the step's module and checks it against the
  // step's slots: one leaf per slot (its parameters' leaves, then its
  // result's), of the slot's shape; results never written into a
  // parameter or a constant. `what` names the step in errors.
  static absl::StatusOr<std::unique_ptr<EvaluatorStep>> Create(
      const Executable& executable, const ExecutableStep& step,
      const std::string& what);

  // Evaluates the step; `address[slot]` is where each of the step's slots
  // lives in host memory (other entries are not read). A while loop of the
  // step stops with an error past `max_while_iterations` (0: no limit).
  absl::Status Run(const Executable& executable, const ExecutableStep& step,
                   const std::vector<uint8_t*>& address,
                   int64_t max_while_iterations = 0) const;

  // How many of the step's slots (the first ones) its operands fill; the
  // rest are its results.
  size_t num_operand_slots() const { return num_operand_slots_; }

  // The one-instruction module it evaluates.
  const HloModule& module() const { return *module_; }

 private:
  EvaluatorStep() = default;

  std::unique_ptr<HloModule> module_;
  size_t num_operand_slots_ = 0;
};

}  // namespace hloc

#endif  // RUNTIME_EVALUATOR_STEP_H_

// Constant folding ("constant-folding").
//
// Algorithm: walk each computation in post order; an instruction whose
// operands are all constants is evaluated with the reference evaluator (the
// same oracle every backend is checked against, so folding cannot change a
// result) and replaced by a constant holding the value. Folding in post
// order lets whole constant expressions collapse in one walk.
//
// Not folded:
//   - parameters, constants, and instructions with side effects;
//   - instructions without operands (iota, rng, partition-id ...) and
//     broadcasts that grow their operand: turning `broadcast(1.0)` or an
//     iota into a literal only makes the program bigger and slower;
//   - results or operands over `max_elements` elements (1M by default);
//   - tuples and tokens, while/conditional/call/custom-call/fusion, and
//     instructions with control dependencies;
//   - anything the evaluator rejects (unsupported types): left as is.
#ifndef PASSES_CONSTANT_FOLDING_H_
#define PASSES_CONSTANT_FOLDING_H_

#include <cstdint>

#include "passes/pass.h"

namespace hloc {

class ConstantFolding : public HloPass {
 public:
  explicit ConstantFolding(int64_t max_elements = int64_t{1} << 20)
      : max_elements_(max_elements) {}
  absl::string_view name() const override { return "constant-folding"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  int64_t max_elements_;
};

}  // namespace hloc

#endif  // PASSES_CONSTANT_FOLDING_H_

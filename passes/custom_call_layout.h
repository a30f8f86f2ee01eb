// Custom-call operands in the layouts the call asks for
// ("custom-call-layout", the cuda pipeline).
//
// A custom call may name the layout it reads each operand in
// (operand_layout_constraints): JAX's CUDA solver calls ask for
// column-major matrices, f32[3,4,4]{1,2,0}, while the value they factor is
// usually computed row-major. XLA's layout assignment inserts a copy where
// such a constraint is not met; this pass does the same, so the library
// step (backends/gpu/solver_lowering.h) reads its operand in place:
//
//   c = (...) custom-call(p), operand_layout_constraints={f32[4,4]{0,1}}
//                                       p: f32[4,4]{1,0}
// becomes
//   t = f32[4,4]{0,1} copy(p)
//   c = (...) custom-call(t), ...
//
// --stats counts the copies.
#ifndef PASSES_CUSTOM_CALL_LAYOUT_H_
#define PASSES_CUSTOM_CALL_LAYOUT_H_

#include "passes/pass.h"

namespace hloc {

class CustomCallLayout : public HloPass {
 public:
  absl::string_view name() const override { return "custom-call-layout"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_CUSTOM_CALL_LAYOUT_H_

// One layout for each value that crosses a control-flow boundary
// ("control-flow-layout", every pipeline).
//
// A while's operand, its body's and condition's parameters, its body's root
// and the while itself all hold the loop state in the same buffers, as a
// conditional's operands hold its branches' parameters and its branches'
// roots its result, and a get-tuple-element reads its tuple's element in
// place. Each of these shapes names its own layouts, and the verifier only
// asks that their dimensions match: JAX writes
//   t = f32[7,2,16]{2,0,1} transpose(s)          (a relabelled view of s)
//   w = (..., f32[7,2,16]{2,0,1}, ...) while(init), body=b
//   b's parameter: (..., f32[7,2,16]{2,1,0}, ...)
// for a vmap of a scan, and a backend that passes the buffer through reads
// it in the wrong layout: silently wrong results (every step of the loop
// read the wrong rows of its input). XLA's layout assignment makes them
// agree with copies; this pass does the same, taking the body's parameter
// as the loop state's layout, each branch's parameter as its operand's and
// the conditional's shape as its branches' results':
//   - a while's operand and its body's root are copied into the body
//     parameter's layouts, and its condition's parameter and the while's
//     own result are re-declared in them;
//   - a conditional's operands are copied into their branch parameters'
//     layouts and its branches' roots into its own;
//   - a get-tuple-element is re-declared in its element's layout.
// A re-declared value's users read it in its new layout, as every op reads
// its operands in whatever layout they name, except those that pass the
// buffer on (tuple, control flow, bitcast, custom call, a root): they get
// a copy in the layout they were written for.
// Only leaves whose layouts differ are copied (tuple-layout's
// RelayoutValue); --stats counts them.
#ifndef PASSES_CONTROL_FLOW_LAYOUT_H_
#define PASSES_CONTROL_FLOW_LAYOUT_H_

#include "passes/pass.h"

namespace hloc {

class ControlFlowLayout : public HloPass {
 public:
  absl::string_view name() const override { return "control-flow-layout"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_CONTROL_FLOW_LAYOUT_H_

// while, conditional and call on the CPU, as kernels of their own: the
// control flow is compiled, not interpreted. A called computation becomes a
// sequence of calls of its instructions' kernels (emitted into the same
// module by the ordinary kernel emitter, recursively: a while in a body is
// one more such kernel), on buffers the control-flow kernel owns:
//
//   - parameters are the leaves the kernel is given (the loop state, a
//     branch's operand); constants are module constants; tuple,
//     get-tuple-element, bitcast, opt-barrier and add-dependency name their
//     operand's leaves; every other value gets a slot in a scratch arena
//     allocated once per kernel call and shared by the computations of one
//     op (at most one of them is live at a time). The slots are the
//     computation's buffer plan (runtime/buffer_assignment.h): values whose
//     lives do not overlap share bytes, and a dynamic-update-slice (or a
//     fusion rooted at one) whose operand dies there writes into it and
//     stores only its update (EmitInPlaceUpdateKernel).
//   - while: the operand is copied to the output, which is the loop state
//     (unless the caller's plan put the state where the operand was made);
//     each iteration runs the condition, reads its pred, runs the body and
//     copies the body's result leaves back into the state (through the
//     arena where a result leaf is another state leaf, so swaps work). The
//     body's plan writes a new state leaf straight into its state leaf where
//     nothing reads the old one afterwards (loop_state_in_place, in the
//     body order LoopBodyOrder gives): a scan's dynamic-update-slice of the
//     array it stacks into then stores one row an iteration and nothing is
//     copied back, where it used to rewrite and copy the whole array (a
//     5000-step scan stacking f32[256] rows: 5.0 s, now 3.3 ms).
//   - conditional: the branch index (s32, out of range -> last branch; or
//     pred, true -> branch 0) selects one branch in a switch; its result
//     leaves are copied to the output. call: the callee's result likewise.
//
// This keeps the executable a flat list of kernel steps (a saved executable
// needs no nested step sequences and the runtime nothing new). If any
// instruction of a called computation cannot be compiled, the op is
// Unimplemented as a whole, and the caller runs it in the evaluator.
#ifndef BACKENDS_CPU_CONTROL_FLOW_EMITTER_H_
#define BACKENDS_CPU_CONTROL_FLOW_EMITTER_H_

#include <string>

#include "absl/status/status.h"
#include "backends/cpu/kernel_util.h"
#include "hlo/instruction.h"

namespace hloc {

bool IsControlFlow(const HloInstruction& hlo);

absl::Status EmitControlFlowKernel(const HloInstruction& hlo,
                                   const std::string& symbol,
                                   const OpEmitterContext& ctx);

}  // namespace hloc

#endif  // BACKENDS_CPU_CONTROL_FLOW_EMITTER_H_

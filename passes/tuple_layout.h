// Tuple elements in the tuple's own layouts ("tuple-layout", every
// pipeline).
//
// A tuple's shape names a layout for each element, and the verifier only
// asks that it match the operand's dimensions: `ROOT t = (s32[4,1]) tuple(p)`
// verifies with p in layout {0,1}. But a tuple holds its operands' buffers,
// not copies of them (runtime/buffer_assignment.h), so every runtime would
// read the element in the operand's layout where the tuple's shape promises
// another, and the executable builder refuses such a result. XLA's layout
// assignment inserts a copy where a layout constraint is not met; this
// pass does the same for tuples:
//
//   t = (s32[4,1]{1,0}) tuple(p)      p: s32[4,1]{0,1}
// becomes
//   c = s32[4,1]{1,0} copy(p)
//   t = (s32[4,1]{1,0}) tuple(c)
//
// A tuple-shaped element whose leaves differ is rebuilt leaf by leaf
// (get-tuple-element, copy, tuple). --stats counts the copies.
#ifndef PASSES_TUPLE_LAYOUT_H_
#define PASSES_TUPLE_LAYOUT_H_

#include "passes/pass.h"

namespace hloc {

// `value` with the layouts of `target` (same dimensions and types): itself
// where they already agree, else copies of the leaves that differ (a
// tuple rebuilt from get-tuple-elements). Adds to *copies.
HloInstruction* RelayoutValue(HloComputation* computation,
                              HloInstruction* value, const Shape& target,
                              int64_t* copies);

class TupleLayout : public HloPass {
 public:
  absl::string_view name() const override { return "tuple-layout"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace hloc

#endif  // PASSES_TUPLE_LAYOUT_H_

// Replacing an instruction by a computation written as HLO text: the way
// the expander passes (cholesky, triangular-solve) spell out their
// algorithms, readable as the HLO they become.
#ifndef PASSES_HLO_TEMPLATE_H_
#define PASSES_HLO_TEMPLATE_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/instruction.h"

namespace hloc {

// Parses `module_text`, whose entry computation takes `instr`'s operands as
// its parameters (same shapes) and returns `instr`'s shape; copies its
// computations into `instr`'s module, replaces `instr` with the entry's
// body (inlined; the loops and other computations it calls stay as called
// computations) and returns the instruction now producing the value.
// InvalidArgument naming `instr` if the text does not parse or does not
// fit (a bug of the pass that wrote it).
absl::StatusOr<HloInstruction*> ReplaceWithTemplate(
    HloInstruction* instr, absl::string_view module_text);

}  // namespace hloc

#endif  // PASSES_HLO_TEMPLATE_H_

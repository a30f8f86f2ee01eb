// Replacing an instruction by a computation written as HLO text: the way
// the expander passes (cholesky, triangular-solve, ragged-dot, tridiagonal
// solves) spell out their algorithms, readable as the HLO they become.
#ifndef PASSES_HLO_TEMPLATE_H_
#define PASSES_HLO_TEMPLATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/instruction.h"

namespace hloc {

// "f32[4,5]": an array shape's text in the default layout.
std::string ShapeText(PrimitiveType type, const std::vector<int64_t>& dims);

// The literal of a constant(...) of `type` holding `value`: "1", "(1, 0)"
// for a complex type, "true" for pred.
std::string ConstantText(PrimitiveType type, int value);

// A template computation's instructions, one line each, for passes that
// generate them in a loop.
class TemplateBody {
 public:
  // Appends `name = shape rest` and returns `name`.
  std::string Add(const std::string& name, const std::string& shape,
                  const std::string& rest);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

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

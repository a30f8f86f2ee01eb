// Text spellings shared by the HLO text parser and printer that have no home
// in hlo/attributes.h because the IR stores them as plain integers.
#ifndef HLO_TEXT_NAMES_H_
#define HLO_TEXT_NAMES_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace hloc {

// xla.PrecisionConfig.Algorithm as XLA prints it: the enum name without its
// "ALG_" prefix, lower-cased ("dot_bf16_bf16_f32"). "unset" for 0.
absl::string_view DotAlgorithmName(int algorithm);
std::optional<int> ParseDotAlgorithmName(absl::string_view name);

// xla.TriangularSolveOptions.Transpose: NO_TRANSPOSE (1), TRANSPOSE (2),
// ADJOINT (3).
absl::string_view TransposeName(int transpose);
std::optional<int> ParseTransposeName(absl::string_view name);

}  // namespace hloc

#endif  // HLO_TEXT_NAMES_H_

// Recognising MLIR text (StableHLO or MHLO) given where HLO text is
// expected. JAX's `jax.jit(f).lower(x).as_text()` returns StableHLO by
// default (`module @jit_f ... { func.func public @main(...) {
// stablehlo.add ...`), and users hand it to hlo-opt and hlo-run; the
// parser's own error (an unexpected '@' after `module`) does not say what
// is wrong or what to give instead.
#ifndef HLO_TEXT_MLIR_HINT_H_
#define HLO_TEXT_MLIR_HINT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace hloc {

// Whether `text` looks like MLIR: it starts (after blank lines and `//`
// comments) with `module`, `func.func` or a `#loc` alias, or it has
// `func.func` or `stablehlo.`/`mhlo.` operations anywhere.
bool LooksLikeMlirText(absl::string_view text);

// What to do instead: the HLO dialect from JAX, or the serialized proto.
std::string MlirTextHint();

}  // namespace hloc

#endif  // HLO_TEXT_MLIR_HINT_H_

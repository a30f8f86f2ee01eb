#include "hlo/text/mlir_hint.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace hloc {

bool LooksLikeMlirText(absl::string_view text) {
  absl::string_view rest = text;
  while (true) {
    rest = absl::StripLeadingAsciiWhitespace(rest);
    if (!absl::StartsWith(rest, "//")) break;
    const size_t end = rest.find('\n');
    rest = end == absl::string_view::npos ? absl::string_view()
                                          : rest.substr(end + 1);
  }
  // `module` alone is not HLO's `HloModule`; the character after it tells
  // a keyword from a longer name.
  if (absl::StartsWith(rest, "module") &&
      (rest.size() == 6 || rest[6] == ' ' || rest[6] == '@' || rest[6] == '{' ||
       rest[6] == '\n' || rest[6] == '\t')) {
    return true;
  }
  return absl::StartsWith(rest, "#loc") ||
         absl::StrContains(text, "func.func") ||
         absl::StrContains(text, "stablehlo.") ||
         absl::StrContains(text, "mhlo.");
}

std::string MlirTextHint() {
  return absl::StrCat(
      "this is MLIR text (StableHLO, as JAX's lowered.as_text() gives by "
      "default), not HLO text. Give HLO instead: in JAX, "
      "jax.jit(f).lower(...).as_text(dialect=\"hlo\") (save it as .hlo), "
      "or the serialized HloModuleProto, "
      "lowered.compiler_ir(\"hlo\").as_serialized_hlo_module_proto() "
      "(save it as .pb)");
}

}  // namespace hloc

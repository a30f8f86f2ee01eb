// Runs Graphviz's `dot` (Debian's graphviz package; scripts/setup.sh installs
// it) to lay out a graph as SVG. The layout is done when the page is written,
// so the HTML page needs no layout code and no network to open.
#ifndef TOOLS_GRAPH_GRAPHVIZ_H_
#define TOOLS_GRAPH_GRAPHVIZ_H_

#include <string>

#include "absl/status/statusor.h"

namespace hloc {

// The `dot` to run: $HLOC_DOT if set, else `dot` on PATH. Empty if neither
// is an executable file.
std::string FindGraphvizDot();

// `dot -Tsvg` of `dot_text`: the <svg> element (the XML prolog stripped).
// Unavailable when no `dot` is found; Internal with dot's message if it
// fails.
absl::StatusOr<std::string> RenderDotToSvg(const std::string& dot_text);

}  // namespace hloc

#endif  // TOOLS_GRAPH_GRAPHVIZ_H_

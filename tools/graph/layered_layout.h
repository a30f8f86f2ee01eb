// The fallback when Graphviz's dot is missing: a simple layered layout of a
// FusionGraph as SVG, so that `hlo-opt --emit=html` still writes a usable
// page. Each top-level cluster (a fusion, a loop body) is one box listing its
// instructions, with its nested clusters as boxes inside; boxes and the
// remaining nodes are placed in layers by longest path from the inputs, and
// edges between boxes are drawn as curves with their shape and bytes. Coarser
// than dot's layout, but with the same structure for the page's script:
// <g class="cluster|node|edge" id=...> with a <title> of hover text.
#ifndef TOOLS_GRAPH_LAYERED_LAYOUT_H_
#define TOOLS_GRAPH_LAYERED_LAYOUT_H_

#include <string>

#include "tools/graph/fusion_graph.h"

namespace hloc {

std::string LayeredLayoutSvg(const FusionGraph& graph,
                             const std::string& id_prefix,
                             const std::string& title);

}  // namespace hloc

#endif  // TOOLS_GRAPH_LAYERED_LAYOUT_H_

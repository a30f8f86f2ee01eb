// Writes a FusionGraph as Graphviz dot text: fusions and bodies as nested
// `subgraph cluster_*`, kernels numbered in their labels, edges labelled
// with shape and bytes, and the fusion report's rule as the edge tooltip
// (green when the rule fused the pair, red and dashed when it did not), which
// `dot -Tsvg` keeps as hover text.
#ifndef TOOLS_GRAPH_DOT_WRITER_H_
#define TOOLS_GRAPH_DOT_WRITER_H_

#include <string>

#include "tools/graph/fusion_graph.h"

namespace hloc {

struct DotOptions {
  // Prefixed to every node, edge and cluster id, so that two graphs' SVGs
  // can share one HTML page.
  std::string id_prefix;
  // The graph's heading (default: the module's name).
  std::string title;
};

std::string WriteDot(const FusionGraph& graph, const DotOptions& options = {});

// `text` as a dot double-quoted string, quotes included; "\n" in `text`
// becomes a centred line break.
std::string DotQuote(const std::string& text);

}  // namespace hloc

#endif  // TOOLS_GRAPH_DOT_WRITER_H_

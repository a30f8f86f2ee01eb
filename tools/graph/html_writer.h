// Writes one self-contained HTML page of one or more FusionGraphs (side by
// side: the module before and after fusion), each already laid out as SVG
// (graphviz.h, or layered_layout.h where Graphviz is missing). The page
// loads nothing: the SVG, its style and a small script are inline. Hovering
// a node, edge or cluster shows its text (shape, bytes, the fusion rule) in
// the page's info line and highlights a node's edges; clicking a panel
// switches it between fitting the window and its natural size. A panel whose
// graph was folded may carry the unfolded drawing too, behind an "expand"
// button (or #expand in the page's address, for every panel).
//
// For tests and scripts, the script records on <body> what it saw:
// data-rendered="yes" once it ran, data-clusters (clusters shown, all
// panels), data-expected-clusters and data-expected-clusters-expanded (what
// the writer drew, folded and expanded) and data-script-errors (uncaught
// errors, when any).
#ifndef TOOLS_GRAPH_HTML_WRITER_H_
#define TOOLS_GRAPH_HTML_WRITER_H_

#include <string>
#include <vector>

#include "tools/graph/fusion_graph.h"

namespace hloc {

struct HtmlPanel {
  std::string heading;  // "before fusion", "after --platform=cuda"
  const FusionGraph* graph = nullptr;
  std::string svg;        // The laid-out graph; its ids carry id_prefix.
  std::string id_prefix;  // The prefix the SVG's ids were written with.
  // Where `graph` is folded: the same module unfolded, or null.
  const FusionGraph* expanded = nullptr;
  std::string expanded_svg;
  std::string expanded_prefix;
};

struct HtmlOptions {
  std::string title;
  std::string layout_note;  // How the SVG was laid out (which engine).
};

std::string WriteHtml(const std::vector<HtmlPanel>& panels,
                      const HtmlOptions& options);

// `text` with &, <, >, " escaped.
std::string HtmlEscape(const std::string& text);

}  // namespace hloc

#endif  // TOOLS_GRAPH_HTML_WRITER_H_

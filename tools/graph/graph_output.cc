#include "tools/graph/graph_output.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/graph/dot_writer.h"
#include "tools/graph/graphviz.h"
#include "tools/graph/html_writer.h"
#include "tools/graph/layered_layout.h"

namespace hloc {
namespace {

// A folded page also carries the unfolded drawing up to this many nodes;
// beyond it Graphviz takes too long and the page grows too large, and
// `--graph-max-nodes=0` is the way.
constexpr int64_t kMaxExpandedNodes = 1500;

}  // namespace

absl::StatusOr<std::string> WriteModuleGraph(const GraphRequest& request) {
  const FusionGraph after =
      BuildFusionGraph(*request.module, request.report, request.graph);
  if (request.format == "dot") {
    return WriteDot(after, {"", absl::StrCat(request.module->name(), " (",
                                             request.heading, ")")});
  }
  if (request.format != "html") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown graph format '", request.format, "'"));
  }
  struct Drawn {
    const HloModule* module;
    std::string heading;
    FusionGraph graph;
    // Unfolded, for the page's expand button (absent when too large).
    std::optional<FusionGraph> expanded;
  };
  std::vector<Drawn> drawn;
  if (request.before != nullptr) {
    drawn.push_back(
        {request.before, request.before_heading,
         BuildFusionGraph(*request.before, request.report, request.graph),
         std::nullopt});
  }
  drawn.push_back({request.module, request.heading, after, std::nullopt});
  for (Drawn& d : drawn) {
    if (d.graph.folded > 0 &&
        d.graph.unfolded_node_count <= kMaxExpandedNodes) {
      d.expanded = BuildFusionGraph(*d.module, request.report, {0});
    }
  }
  // Graphviz lays the graph out as XLA users know it; without it the page
  // still works, with hloc's coarser layered layout.
  const bool graphviz = !FindGraphvizDot().empty();
  auto lay_out =
      [graphviz](const FusionGraph& graph, const std::string& prefix,
                 const std::string& heading) -> absl::StatusOr<std::string> {
    if (!graphviz) return LayeredLayoutSvg(graph, prefix, heading);
    return RenderDotToSvg(WriteDot(graph, {prefix, heading}));
  };
  std::vector<HtmlPanel> panels;
  for (size_t i = 0; i < drawn.size(); ++i) {
    HtmlPanel panel;
    panel.graph = &drawn[i].graph;
    panel.heading = drawn[i].heading;
    panel.id_prefix = absl::StrCat("p", i, "_");
    absl::StatusOr<std::string> svg =
        lay_out(*panel.graph, panel.id_prefix, panel.heading);
    if (!svg.ok()) return svg.status();
    panel.svg = std::move(*svg);
    if (drawn[i].expanded) {
      panel.expanded = &*drawn[i].expanded;
      panel.expanded_prefix = absl::StrCat("p", i, "x_");
      svg = lay_out(*panel.expanded, panel.expanded_prefix, panel.heading);
      if (!svg.ok()) return svg.status();
      panel.expanded_svg = std::move(*svg);
    }
    panels.push_back(std::move(panel));
  }
  HtmlOptions options;
  options.title = absl::StrCat("hloc: ", request.module->name());
  options.layout_note =
      graphviz ? "Laid out by Graphviz dot when the page was written"
               : "Graphviz's dot was not found, so laid out by hloc's "
                 "simple layered layout (each fusion a box listing its "
                 "instructions; install graphviz for the full drawing)";
  return WriteHtml(panels, options);
}

}  // namespace hloc

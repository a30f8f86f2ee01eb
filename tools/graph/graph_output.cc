#include "tools/graph/graph_output.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/graph/dot_writer.h"
#include "tools/graph/graphviz.h"
#include "tools/graph/html_writer.h"
#include "tools/graph/layered_layout.h"

namespace hloc {

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
  FusionGraph before;
  std::vector<std::pair<const FusionGraph*, std::string>> graphs;
  if (request.before != nullptr) {
    before = BuildFusionGraph(*request.before, request.report, request.graph);
    graphs.emplace_back(&before, request.before_heading);
  }
  graphs.emplace_back(&after, request.heading);
  // Graphviz lays the graph out as XLA users know it; without it the page
  // still works, with hloc's coarser layered layout.
  const bool graphviz = !FindGraphvizDot().empty();
  std::vector<HtmlPanel> panels;
  for (size_t i = 0; i < graphs.size(); ++i) {
    HtmlPanel panel;
    panel.graph = graphs[i].first;
    panel.heading = graphs[i].second;
    panel.id_prefix = absl::StrCat("p", i, "_");
    if (graphviz) {
      absl::StatusOr<std::string> svg = RenderDotToSvg(
          WriteDot(*panel.graph, {panel.id_prefix, panel.heading}));
      if (!svg.ok()) return svg.status();
      panel.svg = std::move(*svg);
    } else {
      panel.svg =
          LayeredLayoutSvg(*panel.graph, panel.id_prefix, panel.heading);
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

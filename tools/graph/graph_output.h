// What `hlo-opt --emit=dot|html` prints: the module's FusionGraph as dot
// text, or as an HTML page laid out by Graphviz (layered_layout.h where dot
// is missing), optionally beside the module as it was before the pipeline
// (--graph-compare).
#ifndef TOOLS_GRAPH_GRAPH_OUTPUT_H_
#define TOOLS_GRAPH_GRAPH_OUTPUT_H_

#include <string>

#include "absl/status/statusor.h"
#include "hlo/module.h"
#include "passes/fusion/report.h"
#include "tools/graph/fusion_graph.h"

namespace hloc {

struct GraphRequest {
  std::string format;  // "dot" or "html".
  const HloModule* module = nullptr;
  std::string heading;  // What `module` is: "after --platform=cuda".
  // html only: drawn in a panel on the left when set.
  const HloModule* before = nullptr;
  std::string before_heading;
  // Rules for edges (both panels: the report names instructions as they
  // were when fusion looked at them). May be null.
  const FusionReport* report = nullptr;
  FusionGraphOptions graph;
};

absl::StatusOr<std::string> WriteModuleGraph(const GraphRequest& request);

}  // namespace hloc

#endif  // TOOLS_GRAPH_GRAPH_OUTPUT_H_

// FusionGraph: what `hlo-opt --emit=dot|html` draws, built from a module and
// the fusion report, independent of how it is written out (dot_writer.h,
// html_writer.h).
//
// The entry computation is drawn instruction by instruction. Each fusion is a
// cluster holding its fused instructions (its parameters become the edges
// from the fusion's operands); while, conditional and call bodies are
// clusters beside the instruction that runs them; reducers and other
// to_apply computations are not drawn, only named in their user's label,
// since a two-parameter add is noise next to the kernels.
//
// Kernels are numbered in launch order: the order CountKernels
// (passes/fusion/kernel_count.h) lists them, the post-order of the entry and
// the bodies it runs, which is the order the executables run their thunks.
//
// Edges carry the producer's shape and bytes; an edge whose producer/consumer
// pair the fusion report covers carries the rule that decided it. Report
// names are the names at decision time; fused copies get suffixes (row_max
// becomes row_max.1.4), so a name also matches a node whose name extends it
// by ".N" parts, the shortest such within the fusion the pair became. A
// decision with no matching edge (a constant fused into a fusion that then
// absorbed it) is kept on the consumer's node or cluster.
//
// Large modules: above `max_nodes` nodes, computations are folded into one
// summary node each, control-flow bodies first, then fusions, largest first,
// until the graph fits; if the entry computation alone is still too large,
// its instructions past the limit (in launch order) are folded into one
// summary node too, naming the kernels it holds.
#ifndef TOOLS_GRAPH_FUSION_GRAPH_H_
#define TOOLS_GRAPH_FUSION_GRAPH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/module.h"
#include "passes/fusion/report.h"

namespace hloc {

enum class GraphNodeKind {
  kInstruction,  // An unfused instruction of a drawn computation.
  kParameter,
  kConstant,
  kFused,   // An instruction inside a fusion cluster.
  kFolded,  // A summary node standing for a folded computation.
};

struct GraphNode {
  std::string id;  // "n12": unique in the graph, valid in dot and HTML.
  GraphNodeKind kind = GraphNodeKind::kInstruction;
  std::string name;     // The instruction's name (or the folded one's).
  std::string label;    // One or two lines; "\n" separates them.
  std::string tooltip;  // Shape, rule(s) not drawn on an edge, ...
  int64_t kernel = 0;   // Launch number, 1-based; 0: not a kernel.
  std::string cluster;  // Id of the innermost cluster holding it, or "".
};

enum class GraphClusterKind { kFusion, kBody };

struct GraphCluster {
  std::string id;  // "cluster_3": dot draws a subgraph as a box only when
                   // its name starts with "cluster".
  GraphClusterKind kind = GraphClusterKind::kFusion;
  std::string label;
  std::string tooltip;
  int64_t kernel = 0;  // A fusion's launch number.
  std::string parent;  // Enclosing cluster id, or "".
};

struct GraphEdge {
  std::string id;        // "e7"
  std::string from, to;  // Node ids.
  std::string label;     // "f32[4,8] 128 B"
  // The fusion report's rule for this producer/consumer pair ("" if none).
  std::string rule;
  bool fused = false;    // What the rule decided.
  bool control = false;  // Loop state into a body, not a data value.
};

struct FusionGraph {
  std::string title;  // The module's name.
  std::vector<GraphCluster> clusters;
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;
  int64_t kernels = 0;
  // Summary nodes made to keep under the limit (computations, and the
  // entry's tail), and the nodes there would be without folding.
  int64_t folded = 0;
  int64_t unfolded_node_count = 0;
  // Report records attached to an edge, and those kept on a node instead.
  int64_t rules_on_edges = 0;
  int64_t rules_on_nodes = 0;
};

struct FusionGraphOptions {
  int64_t max_nodes = 200;  // 0: no limit.
};

// `report` may be null (no rules drawn).
FusionGraph BuildFusionGraph(const HloModule& module,
                             const FusionReport* report,
                             const FusionGraphOptions& options = {});

// "128 B", "4.0 KiB", "16.0 MiB".
std::string FormatBytes(int64_t bytes);

}  // namespace hloc

#endif  // TOOLS_GRAPH_FUSION_GRAPH_H_

#include "tools/graph/dot_writer.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace hloc {
namespace {

// Our cluster ids are "cluster_N"; dot needs the "cluster" prefix first.
std::string ClusterName(const std::string& id, const std::string& prefix) {
  return absl::StrCat("cluster_", prefix, id.substr(8));
}

const char* NodeStyle(GraphNodeKind kind, bool kernel) {
  switch (kind) {
    case GraphNodeKind::kParameter:
      return "shape=ellipse, style=filled, fillcolor=\"#e3f2fd\"";
    case GraphNodeKind::kConstant:
      return "shape=box, style=\"rounded,filled\", fillcolor=\"#eeeeee\", "
             "fontcolor=\"#555555\"";
    case GraphNodeKind::kFolded:
      return "shape=box3d, style=filled, fillcolor=\"#e0e0e0\"";
    case GraphNodeKind::kFused:
      return "shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\"";
    case GraphNodeKind::kInstruction:
      break;
  }
  return kernel ? "shape=box, style=\"rounded,filled\", fillcolor=\"#fff59d\""
                : "shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\"";
}

class DotWriter {
 public:
  DotWriter(const FusionGraph& graph, const DotOptions& options)
      : graph_(graph), prefix_(options.id_prefix) {
    title_ = options.title.empty() ? graph.title : options.title;
  }

  std::string Write() {
    absl::StrAppend(&out_, "digraph ", DotQuote(title_), " {\n");
    std::string heading =
        absl::StrCat(title_, "\n", graph_.kernels,
                     graph_.kernels == 1 ? " kernel" : " kernels",
                     ", numbered #1.. in launch order");
    if (graph_.folded > 0) {
      absl::StrAppend(&heading, "\n", graph_.folded,
                      " summary nodes stand for folded parts (",
                      graph_.unfolded_node_count,
                      " nodes unfolded; --graph-max-nodes=0 draws all)");
    }
    absl::StrAppend(&out_, "  graph [id=", DotQuote(prefix_ + "graph"),
                    ", label=", DotQuote(heading),
                    ", labelloc=t, fontname=\"Helvetica\", fontsize=14, "
                    "rankdir=TB, nodesep=0.3, ranksep=0.4];\n"
                    "  node [fontname=\"Helvetica\", fontsize=10];\n"
                    "  edge [fontname=\"Helvetica\", fontsize=8, "
                    "color=\"#607d8b\", fontcolor=\"#455a64\"];\n");
    WriteClusterContents("", "  ");
    for (const GraphEdge& e : graph_.edges) WriteEdge(e);
    absl::StrAppend(&out_, "}\n");
    return std::move(out_);
  }

 private:
  void WriteClusterContents(const std::string& parent,
                            const std::string& indent) {
    for (const GraphCluster& c : graph_.clusters) {
      if (c.parent != parent) continue;
      const bool fusion = c.kind == GraphClusterKind::kFusion;
      absl::StrAppend(
          &out_, indent, "subgraph ", DotQuote(ClusterName(c.id, prefix_)),
          " {\n", indent, "  id=", DotQuote(prefix_ + c.id),
          "; label=", DotQuote(c.label),
          "; tooltip=", DotQuote(c.tooltip.empty() ? c.label : c.tooltip),
          "; fontsize=11; style=\"rounded,filled", fusion ? "" : ",dashed",
          "\"; fillcolor=", fusion ? "\"#ffe0b2\"" : "\"#f5f5f5\"",
          "; color=", fusion ? "\"#ef6c00\"" : "\"#9e9e9e\"", ";\n");
      WriteClusterContents(c.id, indent + "  ");
      absl::StrAppend(&out_, indent, "}\n");
    }
    for (const GraphNode& n : graph_.nodes) {
      if (n.cluster != parent) continue;
      absl::StrAppend(
          &out_, indent, DotQuote(prefix_ + n.id),
          " [id=", DotQuote(prefix_ + n.id), ", label=", DotQuote(n.label),
          ", tooltip=", DotQuote(n.tooltip.empty() ? n.name : n.tooltip), ", ",
          NodeStyle(n.kind, n.kernel > 0), "];\n");
    }
  }

  void WriteEdge(const GraphEdge& e) {
    std::string style;
    if (e.control) {
      style = ", style=dotted, color=\"#9e9e9e\"";
    } else if (!e.rule.empty()) {
      style = e.fused ? ", color=\"#2e7d32\", penwidth=1.5"
                      : ", color=\"#c62828\", style=dashed, penwidth=1.5";
    }
    const std::string& tip = e.rule.empty() ? e.label : e.rule;
    absl::StrAppend(&out_, "  ", DotQuote(prefix_ + e.from), " -> ",
                    DotQuote(prefix_ + e.to), " [id=", DotQuote(prefix_ + e.id),
                    ", label=", DotQuote(e.label), ", tooltip=", DotQuote(tip),
                    ", labeltooltip=", DotQuote(tip), style, "];\n");
  }

  const FusionGraph& graph_;
  std::string prefix_;
  std::string title_;
  std::string out_;
};

}  // namespace

std::string DotQuote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

std::string WriteDot(const FusionGraph& graph, const DotOptions& options) {
  return DotWriter(graph, options).Write();
}

}  // namespace hloc

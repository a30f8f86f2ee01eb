#include "tools/graph/layered_layout.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "tools/graph/html_writer.h"

namespace hloc {
namespace {

constexpr int kNodeW = 190, kNodeH = 34, kLineH = 15, kGapX = 40, kGapY = 50,
              kIndent = 10, kMargin = 20;

std::string FirstLine(const std::string& label) {
  return std::string(label.substr(0, label.find('\n')));
}

class LayeredLayout {
 public:
  LayeredLayout(const FusionGraph& g, const std::string& prefix)
      : g_(g), prefix_(prefix) {}

  std::string Svg(const std::string& title) {
    // Items: top-level nodes and top-level clusters.
    for (const GraphCluster& c : g_.clusters) {
      cluster_index_[c.id] = &c;
      if (c.parent.empty()) AddItem(c.id, true);
    }
    for (const GraphNode& n : g_.nodes) {
      if (n.cluster.empty()) AddItem(n.id, false);
    }
    for (const GraphNode& n : g_.nodes) item_of_node_[n.id] = ItemOf(n);
    // Longest-path layers (edges follow def-before-use order; the cap on
    // rounds guards against a cycle through a box).
    std::vector<int> layer(items_.size(), 0);
    for (size_t round = 0; round <= items_.size(); ++round) {
      bool changed = false;
      for (const GraphEdge& e : g_.edges) {
        const int from = item_of_node_[e.from], to = item_of_node_[e.to];
        if (from != to && layer[to] < layer[from] + 1) {
          layer[to] = layer[from] + 1;
          changed = true;
        }
      }
      if (!changed) break;
    }
    const int layers =
        items_.empty() ? 0 : *std::max_element(layer.begin(), layer.end()) + 1;
    std::vector<std::vector<int>> by_layer(layers);
    for (size_t i = 0; i < items_.size(); ++i) by_layer[layer[i]].push_back(i);
    int y = kMargin + 30, width = 0;
    for (const std::vector<int>& row : by_layer) {
      int x = kMargin, tallest = 0;
      for (int i : row) {
        items_[i].x = x;
        items_[i].y = y;
        x += items_[i].w + kGapX;
        tallest = std::max(tallest, items_[i].h);
      }
      width = std::max(width, x);
      y += tallest + kGapY;
    }
    std::string body;
    for (const GraphEdge& e : g_.edges) DrawEdge(e, &body);
    for (const Item& item : items_) {
      if (item.cluster) {
        int line_y = item.y;
        DrawCluster(*cluster_index_.at(item.id), item.x, &line_y, item.w,
                    &body);
      } else {
        DrawNode(*node_index_.at(item.id), item.x, item.y, &body);
      }
    }
    const int height = y + kMargin;
    width = std::max(width + kMargin, 400);
    return absl::StrCat(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", width,
        "\" height=\"", height, "\" viewBox=\"0 0 ", width, " ", height,
        "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"10\">\n"
        "<g id=\"",
        prefix_, "graph\" class=\"graph\"><text x=\"", kMargin, "\" y=\"",
        kMargin + 6, "\" font-size=\"13\">", HtmlEscape(title), "</text>\n",
        body, "</g></svg>\n");
  }

 private:
  struct Item {
    std::string id;
    bool cluster = false;
    int x = 0, y = 0, w = kNodeW, h = kNodeH;
  };

  // Lines a cluster box takes: its label, its nodes, nested boxes.
  int ClusterLines(const std::string& id) const {
    int lines = 1;
    for (const GraphNode& n : g_.nodes) lines += n.cluster == id ? 1 : 0;
    for (const GraphCluster& c : g_.clusters) {
      if (c.parent == id) lines += ClusterLines(c.id) + 1;
    }
    return lines;
  }
  int ClusterDepth(const std::string& id) const {
    int depth = 0;
    for (const GraphCluster& c : g_.clusters) {
      if (c.parent == id) depth = std::max(depth, ClusterDepth(c.id) + 1);
    }
    return depth;
  }

  void AddItem(const std::string& id, bool cluster) {
    Item item;
    item.id = id;
    item.cluster = cluster;
    if (cluster) {
      item.w = kNodeW + 2 * kIndent * (ClusterDepth(id) + 1);
      item.h = ClusterLines(id) * kLineH + 10;
    }
    item_index_[id] = items_.size();
    items_.push_back(item);
  }

  int ItemOf(const GraphNode& n) {
    node_index_[n.id] = &n;
    std::string c = n.cluster;
    if (c.empty()) return item_index_.at(n.id);
    while (!cluster_index_.at(c)->parent.empty()) {
      c = cluster_index_.at(c)->parent;
    }
    return item_index_.at(c);
  }

  void DrawNode(const GraphNode& n, int x, int y, std::string* out) {
    std::vector<std::string> lines = absl::StrSplit(n.label, '\n');
    const char* fill = n.kind == GraphNodeKind::kParameter ? "#e3f2fd"
                       : n.kind == GraphNodeKind::kFolded  ? "#e0e0e0"
                       : n.kernel > 0                      ? "#fff59d"
                                                           : "#ffffff";
    absl::StrAppend(out, "<g id=\"", prefix_, n.id, "\" class=\"node\"><title>",
                    HtmlEscape(n.tooltip.empty() ? n.name : n.tooltip),
                    "</title><rect x=\"", x, "\" y=\"", y, "\" width=\"",
                    kNodeW, "\" height=\"", kNodeH, "\" rx=\"6\" fill=\"", fill,
                    "\" stroke=\"#333\"/>");
    for (size_t i = 0; i < lines.size() && i < 2; ++i) {
      absl::StrAppend(out, "<text x=\"", x + kNodeW / 2, "\" y=\"",
                      y + 14 + 12 * i, "\" text-anchor=\"middle\">",
                      HtmlEscape(lines[i]), "</text>");
    }
    absl::StrAppend(out, "</g>\n");
  }

  // Draws cluster `c` from *y down, advancing *y past it.
  void DrawCluster(const GraphCluster& c, int x, int* y, int w,
                   std::string* out) {
    const bool fusion = c.kind == GraphClusterKind::kFusion;
    const int h = ClusterLines(c.id) * kLineH + 10;
    absl::StrAppend(out, "<g id=\"", prefix_, c.id,
                    "\" class=\"cluster\"><title>",
                    HtmlEscape(c.tooltip.empty() ? c.label : c.tooltip),
                    "</title><rect x=\"", x, "\" y=\"", *y, "\" width=\"", w,
                    "\" height=\"", h, "\" rx=\"6\" fill=\"",
                    fusion ? "#ffe0b2" : "#f5f5f5", "\" stroke=\"",
                    fusion ? "#ef6c00" : "#9e9e9e", "\"",
                    fusion ? "" : " stroke-dasharray=\"4 3\"", "/><text x=\"",
                    x + 6, "\" y=\"", *y + 13, "\" font-weight=\"bold\">",
                    HtmlEscape(c.label), "</text>\n");
    *y += kLineH + 4;
    for (const GraphNode& n : g_.nodes) {
      if (n.cluster != c.id) continue;
      absl::StrAppend(
          out, "<g id=\"", prefix_, n.id, "\" class=\"node\"><title>",
          HtmlEscape(n.tooltip.empty() ? n.name : n.tooltip),
          "</title><text x=\"", x + kIndent, "\" y=\"", *y + 10, "\">",
          HtmlEscape(absl::StrReplaceAll(n.label, {{"\n", ": "}})),
          "</text></g>\n");
      *y += kLineH;
    }
    for (const GraphCluster& inner : g_.clusters) {
      if (inner.parent != c.id) continue;
      *y += 4;
      DrawCluster(inner, x + kIndent, y, w - 2 * kIndent, out);
    }
    absl::StrAppend(out, "</g>\n");
    *y += 6;
  }

  void DrawEdge(const GraphEdge& e, std::string* out) {
    const int from = item_of_node_[e.from], to = item_of_node_[e.to];
    if (from == to) return;  // Inside one box: its listing shows it.
    const Item& a = items_[from];
    const Item& b = items_[to];
    const int x1 = a.x + a.w / 2, y1 = a.y + a.h, x2 = b.x + b.w / 2, y2 = b.y;
    const char* color = e.control        ? "#9e9e9e"
                        : e.rule.empty() ? "#607d8b"
                        : e.fused        ? "#2e7d32"
                                         : "#c62828";
    absl::StrAppend(out, "<g id=\"", prefix_, e.id, "\" class=\"edge\"><title>",
                    HtmlEscape(e.rule.empty() ? e.label : e.rule),
                    "</title><path d=\"M", x1, " ", y1, " C", x1, " ", y1 + 30,
                    " ", x2, " ", y2 - 30, " ", x2, " ", y2,
                    "\" fill=\"none\" stroke=\"", color, "\"",
                    e.control ? " stroke-dasharray=\"2 3\"" : "",
                    "/><text x=\"", (x1 + x2) / 2 + 4, "\" y=\"", (y1 + y2) / 2,
                    "\" font-size=\"8\" fill=\"#455a64\">", HtmlEscape(e.label),
                    "</text></g>\n");
  }

  const FusionGraph& g_;
  std::string prefix_;
  std::vector<Item> items_;
  absl::flat_hash_map<std::string, size_t> item_index_;
  absl::flat_hash_map<std::string, const GraphCluster*> cluster_index_;
  absl::flat_hash_map<std::string, const GraphNode*> node_index_;
  absl::flat_hash_map<std::string, int> item_of_node_;
};

}  // namespace

std::string LayeredLayoutSvg(const FusionGraph& graph,
                             const std::string& id_prefix,
                             const std::string& title) {
  return LayeredLayout(graph, id_prefix).Svg(title);
}

}  // namespace hloc

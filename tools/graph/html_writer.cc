#include "tools/graph/html_writer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace hloc {
namespace {

constexpr char kStyle[] = R"(
body { font: 13px Helvetica, Arial, sans-serif; margin: 0; }
header { padding: 8px 12px; border-bottom: 1px solid #ccc; }
header h1 { font-size: 16px; margin: 0 0 4px 0; }
#info { position: sticky; top: 0; background: #fffde7; padding: 6px 12px;
  border-bottom: 1px solid #e0e0e0; white-space: pre-wrap; min-height: 1.2em;
  font-family: monospace; z-index: 1; }
.panels { display: flex; gap: 8px; padding: 8px; align-items: flex-start; }
.panel { flex: 1 1 0; min-width: 0; border: 1px solid #ddd; }
.panel h2 { font-size: 14px; margin: 0; padding: 6px 8px; background: #f5f5f5; }
.graph { overflow: auto; cursor: zoom-in; }
.graph.fit svg { max-width: 100%; height: auto; }
.graph:not(.fit) { cursor: zoom-out; }
.hidden { display: none; }
button.expand { margin: 6px 8px 0 8px; }
.kernels { margin: 0; padding: 6px 8px 8px 24px; font-family: monospace; }
g.edge.hl path { stroke: #1565c0; stroke-width: 3px; }
g.node:hover polygon, g.node:hover ellipse, g.node:hover path { stroke-width: 2px; }
)";

// Plain ES5, no libraries: hover text and highlighting, the zoom toggle,
// and the attributes tests read.
constexpr char kScript[] = R"(
(function () {
  var body = document.body, errors = 0;
  window.addEventListener('error', function () {
    errors += 1;
    body.setAttribute('data-script-errors', String(errors));
  });
  var XLINK = 'http://www.w3.org/1999/xlink';
  var info = document.getElementById('info');
  var data = JSON.parse(document.getElementById('graph-data').textContent);
  var touching = {};
  data.edges.forEach(function (e) {
    (touching[e[1]] = touching[e[1]] || []).push(e[0]);
    (touching[e[2]] = touching[e[2]] || []).push(e[0]);
  });
  function hoverText(g) {
    var a = g.querySelector('a');
    var t = a && (a.getAttributeNS(XLINK, 'title') || a.getAttribute('title'));
    if (!t) { var title = g.querySelector('title'); t = title ? title.textContent : ''; }
    return t;
  }
  function mark(g, on) {
    (touching[g.id] || []).forEach(function (id) {
      var e = document.getElementById(id);
      if (e) { e.classList.toggle('hl', on); }
    });
  }
  var items = document.querySelectorAll('svg g.node, svg g.edge, svg g.cluster');
  Array.prototype.forEach.call(items, function (g) {
    g.addEventListener('mouseenter', function () {
      info.textContent = hoverText(g);
      mark(g, true);
    });
    g.addEventListener('mouseleave', function () { mark(g, false); });
  });
  Array.prototype.forEach.call(document.querySelectorAll('.graph'), function (d) {
    d.addEventListener('click', function () { d.classList.toggle('fit'); });
  });
  function countShown() {
    body.setAttribute('data-clusters', String(document.querySelectorAll(
        'div.graph:not(.hidden) svg g.cluster').length));
  }
  function expand(button, on) {
    var section = button.parentNode;
    Array.prototype.forEach.call(section.querySelectorAll('.graph'), function (d) {
      d.classList.toggle('hidden', (d.getAttribute('data-view') === 'all') !== on);
    });
    button.textContent = on ? button.getAttribute('data-fold')
                            : button.getAttribute('data-expand');
    button.setAttribute('aria-pressed', on ? 'true' : 'false');
    countShown();
  }
  var all = location.hash === '#expand';
  Array.prototype.forEach.call(document.querySelectorAll('button.expand'), function (b) {
    b.addEventListener('click', function () {
      expand(b, b.getAttribute('aria-pressed') !== 'true');
    });
    if (all) { expand(b, true); }
  });
  countShown();
  body.setAttribute('data-rendered', 'yes');
})();
)";

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '<':
        out += "\\u003c";
        break;  // No "</script>" inside the data.
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// The kernels in launch order, fusions with their cluster label.
std::vector<std::pair<int64_t, std::string>> Kernels(const FusionGraph& g) {
  std::vector<std::pair<int64_t, std::string>> kernels;
  for (const GraphCluster& c : g.clusters) {
    if (c.kernel > 0) kernels.emplace_back(c.kernel, c.label);
  }
  for (const GraphNode& n : g.nodes) {
    if (n.kernel > 0) {
      kernels.emplace_back(n.kernel,
                           absl::StrReplaceAll(n.label, {{"\n", " "}}));
    }
  }
  std::sort(kernels.begin(), kernels.end());
  return kernels;
}

}  // namespace

std::string HtmlEscape(const std::string& text) {
  return absl::StrReplaceAll(
      text, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

std::string WriteHtml(const std::vector<HtmlPanel>& panels,
                      const HtmlOptions& options) {
  size_t clusters = 0, expanded_clusters = 0;
  std::string edges;
  auto add_edges = [&edges](const FusionGraph& g, const std::string& prefix) {
    for (const GraphEdge& e : g.edges) {
      absl::StrAppend(&edges, edges.empty() ? "" : ",\n", "[",
                      JsonString(prefix + e.id), ",",
                      JsonString(prefix + e.from), ",",
                      JsonString(prefix + e.to), "]");
    }
  };
  for (const HtmlPanel& p : panels) {
    clusters += p.graph->clusters.size();
    add_edges(*p.graph, p.id_prefix);
    expanded_clusters += (p.expanded ? p.expanded : p.graph)->clusters.size();
    if (p.expanded != nullptr) add_edges(*p.expanded, p.expanded_prefix);
  }
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>",
      HtmlEscape(options.title), "</title>\n<style>", kStyle,
      "</style>\n</head>\n<body data-expected-clusters=\"", clusters,
      "\" data-expected-clusters-expanded=\"", expanded_clusters,
      "\">\n<header><h1>", HtmlEscape(options.title), "</h1>\n<div>",
      HtmlEscape(options.layout_note),
      ". Kernels are numbered #1.. in launch order; fusions are orange "
      "boxes; green/red edges carry the fusion report's rule (fused / not "
      "fused). Hover for details; click a graph to zoom.</div></header>\n"
      "<div id=\"info\">hover a node, edge or cluster</div>\n"
      "<div class=\"panels\">\n");
  for (const HtmlPanel& p : panels) {
    absl::StrAppend(&out, "<section class=\"panel\"><h2>",
                    HtmlEscape(p.heading), " &mdash; ", p.graph->kernels,
                    " kernels, ", p.graph->clusters.size(), " clusters",
                    p.graph->folded > 0
                        ? absl::StrCat(", ", p.graph->folded,
                                       " summary nodes of folded parts")
                        : "",
                    "</h2>\n");
    if (p.expanded != nullptr) {
      const std::string expand =
          absl::StrCat("expand: draw all ", p.expanded->nodes.size(), " nodes");
      absl::StrAppend(&out,
                      "<button class=\"expand\" aria-pressed=\"false\" "
                      "data-expand=\"",
                      expand, "\" data-fold=\"fold again\">", expand,
                      "</button>\n");
    }
    absl::StrAppend(&out, "<div class=\"graph fit\" data-view=\"folded\">\n",
                    p.svg, "\n</div>\n");
    if (p.expanded != nullptr) {
      absl::StrAppend(&out,
                      "<div class=\"graph fit hidden\" data-view=\"all\">\n",
                      p.expanded_svg, "\n</div>\n");
    }
    absl::StrAppend(&out, "<ul class=\"kernels\">\n");
    // Every kernel, also those inside folded parts.
    for (const auto& [number, label] :
         Kernels(p.expanded ? *p.expanded : *p.graph)) {
      absl::StrAppend(&out, "<li>", HtmlEscape(label), "</li>\n");
    }
    absl::StrAppend(&out, "</ul></section>\n");
  }
  absl::StrAppend(&out,
                  "</div>\n<script type=\"application/json\" "
                  "id=\"graph-data\">{\"edges\":[\n",
                  edges, "]}</script>\n<script>", kScript,
                  "</script>\n</body>\n</html>\n");
  return out;
}

}  // namespace hloc

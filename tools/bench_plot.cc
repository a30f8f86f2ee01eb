#include "tools/bench_plot.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace hloc {
namespace {

constexpr int kWidth = 900, kLabelW = 230, kBarW = 520, kBarH = 14, kBarGap = 3,
              kGroupGap = 14;

std::string Escape(const std::string& s) {
  return absl::StrReplaceAll(
      s, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

// The same contender has the same color in every chart (bar_svg.py's).
std::string SeriesColor(const std::string& name, size_t index) {
  static const std::pair<const char*, const char*> kKnown[] = {
      {"hloc Run", "#64b5f6"}, {"hloc", "#1565c0"},  {"copy", "#9e9e9e"},
      {"XLA", "#ef6c00"},      {"torch", "#2e7d32"}, {"cuBLAS", "#6a1b9a"},
      {"OpenBLAS", "#6a1b9a"}};
  static const char* kPalette[] = {"#c62828", "#00838f", "#795548", "#ad1457"};
  for (const auto& [prefix, color] : kKnown) {
    if (absl::StartsWith(name, prefix)) return color;
  }
  return kPalette[index % 4];
}

std::string Format(double v) {
  if (v >= 100) return absl::StrFormat("%.0f", v);
  if (v >= 10) return absl::StrFormat("%.1f", v);
  return absl::StrFormat("%.3g", v);
}

}  // namespace

std::string WriteBarChartSvg(const BarChart& chart) {
  std::vector<std::string> series;
  double top = 0;
  for (const PlotGroup& g : chart.groups) {
    for (const auto& [s, v] : g.bars) {
      if (std::find(series.begin(), series.end(), s) == series.end()) {
        series.push_back(s);
      }
      if (v) top = std::max(top, *v);
    }
  }
  std::string body;
  int y = 64, x = 10;
  for (size_t i = 0; i < series.size(); ++i) {
    absl::StrAppend(&body, "<rect x=\"", x, "\" y=\"", y - 10,
                    "\" width=\"10\" height=\"10\" fill=\"",
                    SeriesColor(series[i], i), "\"/><text x=\"", x + 14,
                    "\" y=\"", y, "\">", Escape(series[i]), "</text>\n");
    x += 24 + 7 * static_cast<int>(series[i].size());
  }
  y += 16;
  for (const PlotGroup& g : chart.groups) {
    double scale = top;
    if (!chart.shared_scale) {
      scale = 0;
      for (const auto& bar : g.bars) {
        if (bar.second) scale = std::max(scale, *bar.second);
      }
    }
    absl::StrAppend(&body, "<text class=\"group\" x=\"10\" y=\"", y + kBarH - 3,
                    "\" font-weight=\"bold\">", Escape(g.name), "</text>\n");
    for (const auto& [s, v] : g.bars) {
      const size_t index =
          std::find(series.begin(), series.end(), s) - series.begin();
      absl::StrAppend(&body, "<text x=\"", kLabelW - 6, "\" y=\"",
                      y + kBarH - 3, "\" text-anchor=\"end\" fill=\"#555\">",
                      Escape(s), "</text>\n");
      if (!v || *v <= 0 || scale <= 0) {
        absl::StrAppend(&body, "<text class=\"na\" x=\"", kLabelW + 4,
                        "\" y=\"", y + kBarH - 3,
                        "\" fill=\"#999\">n/a</text>\n");
      } else {
        const double w = std::max(1.0, kBarW * *v / scale);
        const std::string text = absl::StrCat(Format(*v), " ", g.unit);
        absl::StrAppend(
            &body, "<rect class=\"bar\" data-group=\"", Escape(g.name),
            "\" data-series=\"", Escape(s), "\" data-value=\"",
            absl::StrFormat("%g", *v), "\" x=\"", kLabelW, "\" y=\"", y,
            "\" width=\"", absl::StrFormat("%.1f", w), "\" height=\"", kBarH,
            "\" fill=\"", SeriesColor(s, index), "\"><title>", Escape(g.name),
            ", ", Escape(s), ": ", Escape(text), "</title></rect>\n",
            "<text x=\"", absl::StrFormat("%.1f", kLabelW + w + 4), "\" y=\"",
            y + kBarH - 3, "\">", Escape(text), "</text>\n");
      }
      y += kBarH + kBarGap;
    }
    y += kGroupGap;
  }
  if (!chart.note.empty()) {
    absl::StrAppend(&body, "<text x=\"10\" y=\"", y + 4, "\" fill=\"#555\">",
                    Escape(chart.note), "</text>\n");
    y += 16;
  }
  const int height = y + 10;
  return absl::StrCat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", kWidth,
      "\" height=\"", height, "\" viewBox=\"0 0 ", kWidth, " ", height,
      "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n",
      "<rect width=\"", kWidth, "\" height=\"", height,
      "\" fill=\"#ffffff\"/>\n<text x=\"10\" y=\"22\" font-size=\"15\" "
      "font-weight=\"bold\">",
      Escape(chart.title), "</text>\n<text x=\"10\" y=\"40\" fill=\"#444\">",
      Escape(chart.subtitle), "</text>\n", body, "</svg>\n");
}

}  // namespace hloc

// The chart writer: one bar per measured value with its data-* attributes,
// bars scaled on one axis or per group, "n/a" for a missing value, text
// escaped, and the same color for the same contender.
#include "tools/bench_plot.h"

#include <regex>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hloc {
namespace {

struct Bar {
  std::string group, series, fill;
  double width;
};

std::vector<Bar> Bars(const std::string& svg) {
  static const std::regex kBar(
      "<rect class=\"bar\" data-group=\"([^\"]*)\" data-series=\"([^\"]*)\" "
      "data-value=\"[^\"]*\" x=\"[0-9]+\" y=\"[0-9]+\" width=\"([0-9.]+)\" "
      "height=\"[0-9]+\" fill=\"([^\"]*)\">");
  std::vector<Bar> bars;
  for (std::sregex_iterator it(svg.begin(), svg.end(), kBar), end; it != end;
       ++it) {
    bars.push_back({(*it)[1], (*it)[2], (*it)[4], std::stod((*it)[3])});
  }
  return bars;
}

BarChart TwoCases() {
  BarChart chart;
  chart.title = "t";
  chart.subtitle = "2026-11-25, a <CPU>";
  chart.groups = {
      {"chain5 & co",
       "GB/s",
       {{"copy bound", 80.0}, {"hloc kernels", 40.0}, {"XLA:CPU", {}}}},
      {"dot", "GFLOP/s", {{"hloc kernels", 20.0}, {"OpenBLAS sgemm", 10.0}}}};
  return chart;
}

TEST(BenchPlotTest, OneBarPerMeasuredValue) {
  const std::string svg = WriteBarChartSvg(TwoCases());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  std::vector<Bar> bars = Bars(svg);
  ASSERT_EQ(bars.size(), 4u) << svg;
  EXPECT_EQ(bars[0].group, "chain5 &amp; co");
  EXPECT_EQ(bars[0].series, "copy bound");
  EXPECT_EQ(bars[1].series, "hloc kernels");
  EXPECT_EQ(bars[2].group, "dot");
  EXPECT_EQ(bars[3].series, "OpenBLAS sgemm");
  // One axis: 80 is the full 520 pixels, 40 half, 10 an eighth.
  EXPECT_DOUBLE_EQ(bars[0].width, 520);
  EXPECT_DOUBLE_EQ(bars[1].width, 260);
  EXPECT_DOUBLE_EQ(bars[3].width, 65);
  EXPECT_NE(svg.find(">n/a</text>"), std::string::npos);
  EXPECT_NE(svg.find("a &lt;CPU&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<CPU>"), std::string::npos);
  // hloc is the same blue in every chart (tools/gpu_bench/bar_svg.py).
  EXPECT_EQ(bars[1].fill, "#1565c0");
  EXPECT_EQ(bars[2].fill, "#1565c0");
  EXPECT_NE(bars[0].fill, bars[1].fill);
}

TEST(BenchPlotTest, PerGroupScale) {
  BarChart chart = TwoCases();
  chart.shared_scale = false;
  std::vector<Bar> bars = Bars(WriteBarChartSvg(chart));
  ASSERT_EQ(bars.size(), 4u);
  EXPECT_DOUBLE_EQ(bars[0].width, 520);  // 80 of 80
  EXPECT_DOUBLE_EQ(bars[2].width, 520);  // 20 of 20
  EXPECT_DOUBLE_EQ(bars[3].width, 260);  // 10 of 20
}

}  // namespace
}  // namespace hloc

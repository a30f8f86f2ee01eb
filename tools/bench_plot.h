// A small SVG bar-chart writer for hlo-bench's tables (`hlo-bench
// --plot=FILE.svg`): per case, one horizontal bar per contender (hloc, the
// copy bound, XLA:CPU, OpenBLAS), the value written at the bar's end and
// "n/a" where one was not measured. The layout, colors and the bars'
// data-* attributes are those of tools/gpu_bench/bar_svg.py, which draws
// the GPU tables on a machine with Python only; hlo-bench is C++ and writes
// its own rather than needing Python for a chart.
#ifndef TOOLS_BENCH_PLOT_H_
#define TOOLS_BENCH_PLOT_H_

#include <optional>
#include <string>
#include <vector>

namespace hloc {

struct PlotGroup {
  std::string name;  // The case: "chain5 4096x4096".
  std::string unit;  // "GB/s", "GFLOP/s".
  // (series, value); nullopt: not measured.
  std::vector<std::pair<std::string, std::optional<double>>> bars;
};

struct BarChart {
  std::string title;
  std::string subtitle;  // Date and machine.
  std::string note;      // A line under the bars.
  // One axis for every group (same unit everywhere), else each group is
  // scaled to its own longest bar.
  bool shared_scale = true;
  std::vector<PlotGroup> groups;
};

std::string WriteBarChartSvg(const BarChart& chart);

}  // namespace hloc

#endif  // TOOLS_BENCH_PLOT_H_

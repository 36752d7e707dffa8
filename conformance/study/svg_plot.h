// A small SVG plotter for the studies: line and grouped-bar panels with
// axes, ticks, axis labels, titles and legends, laid out on a grid in one
// SVG document. Written directly (no plotting library); deterministic
// output for the same data.
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace mxc::study {

struct LineSeries {
  LineSeries(std::string l, std::vector<double> xs = {},
             std::vector<double> ys = {}, bool dash = false)
      : label(std::move(l)), x(std::move(xs)), y(std::move(ys)), dashed(dash) {}
  std::string label;
  std::vector<double> x, y;
  bool dashed = false;
  int color = -1;  // palette index; -1: the series' position
};

struct BarSeries {
  std::string label;
  std::vector<double> values;  // one per category
};

struct Panel {
  std::string title, xlabel, ylabel;
  bool log_x = false, log_y = false;
  // Line panel: series over numeric x.
  std::vector<LineSeries> lines;
  // Bar panel (used when categories is non-empty): one group of bars per
  // category, one bar per series in each group.
  std::vector<std::string> categories;
  std::vector<BarSeries> bars;
  // Optional fixed axis ranges (NaN = automatic).
  double x_min = std::numeric_limits<double>::quiet_NaN();
  double x_max = std::numeric_limits<double>::quiet_NaN();
  double y_min = std::numeric_limits<double>::quiet_NaN();
  double y_max = std::numeric_limits<double>::quiet_NaN();
  // Optional explicit x ticks (value, label) for line panels.
  std::vector<std::pair<double, std::string>> x_ticks;
};

struct Figure {
  std::string title;
  std::vector<Panel> panels;
  int columns = 2;
  int panel_width = 560;
  int panel_height = 400;
};

inline Panel make_panel(std::string title, std::string xlabel,
                        std::string ylabel) {
  Panel p;
  p.title = std::move(title);
  p.xlabel = std::move(xlabel);
  p.ylabel = std::move(ylabel);
  return p;
}

// The SVG document (UTF-8 text). Non-positive values on a log axis are
// skipped; NaN values are skipped everywhere.
std::string render_svg(const Figure& fig);

}  // namespace mxc::study

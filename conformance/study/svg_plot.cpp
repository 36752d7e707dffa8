#include "conformance/study/svg_plot.h"
#include "conformance/xml_escape.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

namespace mxc::study {
namespace {

// Okabe-Ito colour-blind-safe palette (yellow left out: unreadable on white).
constexpr std::string_view kColors[] = {"#0072B2", "#D55E00", "#009E73",
                                        "#CC79A7", "#E69F00", "#56B4E9",
                                        "#000000", "#999999"};
std::string_view color(size_t i) { return kColors[i % std::size(kColors)]; }

std::string esc(std::string_view s) { return xml_escape(s); }

bool usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0); }

// A linear or log10 axis mapping data values to pixels.
struct Axis {
  bool log = false;
  double lo = 0, hi = 1;     // data range (log: the values, not exponents)
  double p0 = 0, p1 = 1;     // pixel positions of lo and hi
  double t(double v) const {
    const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
    const double u = log ? std::log10(v) : v;
    return p0 + (u - a) / (b - a) * (p1 - p0);
  }
};

std::string tick_label(double v, bool log) {
  if (v == 0) return "0";
  if (log) {
    const int e = static_cast<int>(std::lround(std::log10(v)));
    if (std::fabs(std::log10(v) - e) < 1e-9 && (e < -2 || e > 4))
      return fmt::format("1e{}", e);
  }
  return fmt::format("{:.6g}", v);
}

// "Nice" range and ticks for a linear axis.
std::vector<double> linear_ticks(double& lo, double& hi) {
  if (!(hi > lo)) {
    const double d = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= d;
    hi += d;
  }
  const double raw = (hi - lo) / 6;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * mag;
    if (raw <= step) break;
  }
  lo = std::floor(lo / step + 1e-9) * step;
  hi = std::ceil(hi / step - 1e-9) * step;
  std::vector<double> t;
  for (double v = lo; v <= hi + step * 1e-6; v += step)
    t.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return t;
}

std::vector<double> log_ticks(double& lo, double& hi) {
  int a = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int b = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (b <= a) b = a + 1;
  lo = std::pow(10.0, a);
  hi = std::pow(10.0, b);
  const int step = (b - a) > 8 ? 2 : 1;
  std::vector<double> t;
  for (int e = a; e <= b; e += step) t.push_back(std::pow(10.0, e));
  return t;
}

struct Ranges {
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
};

void render_panel(std::string& o, const Panel& p, double ox, double oy,
                  double w, double h) {
  const bool bars = !p.categories.empty();
  // Legend entries and their layout (rows under the x label).
  std::vector<std::string> labels;
  if (bars) {
    for (const auto& s : p.bars) labels.push_back(s.label);
  } else {
    for (const auto& s : p.lines) labels.push_back(s.label);
  }
  const double char_w = 6.4, left = 78, right = 22, top = 46;
  std::vector<std::pair<double, int>> pos;  // x offset, row
  double lx = 0;
  int row = 0;
  for (const auto& l : labels) {
    const double ew = 30 + char_w * static_cast<double>(l.size()) + 18;
    if (lx > 0 && lx + ew > w - left - right) {
      lx = 0;
      ++row;
    }
    pos.emplace_back(lx, row);
    lx += ew;
  }
  const double legend_h = labels.empty() ? 0 : 18.0 * (row + 1) + 6;
  const double bottom = 58 + legend_h + (bars ? 12 : 0);
  const double px0 = ox + left, px1 = ox + w - right;
  const double py0 = oy + h - bottom, py1 = oy + top;  // y grows downwards

  // Data ranges.
  Ranges r;
  if (bars) {
    for (const auto& s : p.bars)
      for (double v : s.values)
        if (usable(v, p.log_y)) {
          r.ylo = std::min(r.ylo, v);
          r.yhi = std::max(r.yhi, v);
        }
    if (!p.log_y) {
      r.ylo = std::min(r.ylo, 0.0);
      r.yhi = std::max(r.yhi, 0.0);
    }
  } else {
    for (const auto& s : p.lines)
      for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
        if (usable(s.x[i], p.log_x) && usable(s.y[i], p.log_y)) {
          r.xlo = std::min(r.xlo, s.x[i]);
          r.xhi = std::max(r.xhi, s.x[i]);
          r.ylo = std::min(r.ylo, s.y[i]);
          r.yhi = std::max(r.yhi, s.y[i]);
        }
  }
  if (!std::isfinite(r.ylo)) {
    r.ylo = p.log_y ? 1 : 0;
    r.yhi = p.log_y ? 10 : 1;
  }
  if (!std::isfinite(r.xlo)) {
    r.xlo = p.log_x ? 1 : 0;
    r.xhi = p.log_x ? 10 : 1;
  }
  if (!std::isnan(p.y_min)) r.ylo = p.y_min;
  if (!std::isnan(p.y_max)) r.yhi = p.y_max;
  if (!std::isnan(p.x_min)) r.xlo = p.x_min;
  if (!std::isnan(p.x_max)) r.xhi = p.x_max;
  if (!p.log_y && std::isnan(p.y_max) && r.yhi > r.ylo)
    r.yhi += 0.04 * (r.yhi - r.ylo);  // headroom above the tallest value
  std::vector<double> yt = p.log_y ? log_ticks(r.ylo, r.yhi)
                                   : linear_ticks(r.ylo, r.yhi);
  Axis ya{p.log_y, r.ylo, r.yhi, py0, py1};
  Axis xa;
  std::vector<std::pair<double, std::string>> xt;
  if (!bars) {
    if (p.x_ticks.empty()) {
      std::vector<double> v = p.log_x ? log_ticks(r.xlo, r.xhi)
                                      : linear_ticks(r.xlo, r.xhi);
      for (double t : v) xt.emplace_back(t, tick_label(t, p.log_x));
    } else {
      xt = p.x_ticks;
      if (p.log_x) {
        // Pad half a step (in log space) either side of the explicit ticks.
        r.xlo /= 1.25;
        r.xhi *= 1.25;
      } else {
        const double d = (r.xhi - r.xlo) * 0.03;
        r.xlo -= d;
        r.xhi += d;
      }
    }
    xa = Axis{p.log_x, r.xlo, r.xhi, px0, px1};
  }

  // Frame, grid and ticks.
  o += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
      "fill=\"#ffffff\" stroke=\"none\"/>\n",
      px0, py1, px1 - px0, py0 - py1);
  for (double t : yt) {
    const double y = ya.t(t);
    o += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#dddddd\" stroke-width=\"1\"/>\n",
        px0, y, px1, y);
    o += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#333333\"/>\n",
        px0 - 5, y, px0, y);
    o += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" "
        "font-size=\"11\">{}</text>\n",
        px0 - 8, y + 4, esc(tick_label(t, p.log_y)));
  }
  for (const auto& [t, label] : xt) {
    if (t < std::min(xa.lo, xa.hi) || t > std::max(xa.lo, xa.hi)) continue;
    const double x = xa.t(t);
    o += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#eeeeee\" stroke-width=\"1\"/>\n",
        x, py0, x, py1);
    o += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#333333\"/>\n",
        x, py0, x, py0 + 5);
    o += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
        "font-size=\"11\">{}</text>\n",
        x, py0 + 18, esc(label));
  }

  // Data.
  if (bars) {
    const size_t nc = p.categories.size(), ns = std::max<size_t>(1, p.bars.size());
    const double slot = (px1 - px0) / static_cast<double>(nc);
    const double bw = slot * 0.8 / static_cast<double>(ns);
    const double base = p.log_y ? py0 : ya.t(std::clamp(0.0, r.ylo, r.yhi));
    for (size_t c = 0; c < nc; ++c) {
      const double gx = px0 + slot * static_cast<double>(c) + slot * 0.1;
      for (size_t s = 0; s < p.bars.size(); ++s) {
        if (c >= p.bars[s].values.size()) continue;
        const double v = p.bars[s].values[c];
        if (!usable(v, p.log_y)) continue;
        const double y = ya.t(std::clamp(v, r.ylo, r.yhi));
        o += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
            "height=\"{:.1f}\" fill=\"{}\"><title>{}: {:.6g}</title></rect>\n",
            gx + bw * static_cast<double>(s), std::min(y, base),
            std::max(bw - 1, 1.0), std::max(std::fabs(base - y), 0.5),
            color(s), esc(p.bars[s].label), v);
      }
      // Category label, split at the first space when long.
      const std::string& cat = p.categories[c];
      const double cx = px0 + slot * (static_cast<double>(c) + 0.5);
      const size_t sp = cat.find(' ');
      if (static_cast<double>(cat.size()) * char_w > slot && sp != std::string::npos) {
        o += fmt::format(
            "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
            "font-size=\"11\">{}</text>\n"
            "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
            "font-size=\"11\">{}</text>\n",
            cx, py0 + 16, esc(cat.substr(0, sp)), cx, py0 + 29,
            esc(cat.substr(sp + 1)));
      } else {
        o += fmt::format(
            "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
            "font-size=\"11\">{}</text>\n",
            cx, py0 + 16, esc(cat));
      }
    }
  } else {
    o += fmt::format(
        "<clipPath id=\"c{:.0f}_{:.0f}\"><rect x=\"{:.1f}\" y=\"{:.1f}\" "
        "width=\"{:.1f}\" height=\"{:.1f}\"/></clipPath>\n",
        ox, oy, px0 - 4, py1 - 4, px1 - px0 + 8, py0 - py1 + 8);
    o += fmt::format("<g clip-path=\"url(#c{:.0f}_{:.0f})\">\n", ox, oy);
    for (size_t s = 0; s < p.lines.size(); ++s) {
      const LineSeries& ls = p.lines[s];
      const size_t ci = ls.color >= 0 ? static_cast<size_t>(ls.color) : s;
      std::string pts;
      std::string marks;
      for (size_t i = 0; i < ls.x.size() && i < ls.y.size(); ++i) {
        if (!usable(ls.x[i], p.log_x) || !usable(ls.y[i], p.log_y)) continue;
        const double x = xa.t(ls.x[i]), y = ya.t(ls.y[i]);
        pts += fmt::format("{:.1f},{:.1f} ", x, y);
        if (ls.x.size() <= 40)
          marks += fmt::format(
              "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.8\" fill=\"{}\"/>\n",
              x, y, color(ci));
      }
      o += fmt::format(
          "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" "
          "stroke-width=\"2\"{}/>\n",
          pts, color(ci), ls.dashed ? " stroke-dasharray=\"6,4\"" : "");
      o += marks;
    }
    o += "</g>\n";
  }

  // Axes lines, labels, title.
  o += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
      "fill=\"none\" stroke=\"#333333\"/>\n",
      px0, py1, px1 - px0, py0 - py1);
  o += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
      "font-size=\"14\" font-weight=\"bold\">{}</text>\n",
      (px0 + px1) / 2, oy + 26, esc(p.title));
  o += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
      "font-size=\"12\">{}</text>\n",
      (px0 + px1) / 2, py0 + (bars ? 48 : 38), esc(p.xlabel));
  const double ylx = ox + 18, yly = (py0 + py1) / 2;
  o += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" "
      "font-size=\"12\" transform=\"rotate(-90 {:.1f} {:.1f})\">{}</text>\n",
      ylx, yly, ylx, yly, esc(p.ylabel));

  // Legend.
  const double ly0 = py0 + (bars ? 62 : 52);
  for (size_t i = 0; i < labels.size(); ++i) {
    const double x = px0 + pos[i].first, y = ly0 + 18.0 * pos[i].second;
    const bool dashed = !bars && p.lines[i].dashed;
    const size_t ci = !bars && p.lines[i].color >= 0
                          ? static_cast<size_t>(p.lines[i].color)
                          : i;
    if (bars) {
      o += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"22\" height=\"10\" "
          "fill=\"{}\"/>\n",
          x, y - 9, color(ci));
    } else {
      o += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
          "stroke=\"{}\" stroke-width=\"2.5\"{}/>\n",
          x, y - 4, x + 22, y - 4, color(ci),
          dashed ? " stroke-dasharray=\"6,4\"" : "");
    }
    o += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\">{}</text>\n",
        x + 28, y, esc(labels[i]));
  }
}

}  // namespace

std::string render_svg(const Figure& fig) {
  const int cols = std::max(1, std::min<int>(fig.columns,
                                             static_cast<int>(fig.panels.size())));
  const int rows = (static_cast<int>(fig.panels.size()) + cols - 1) / cols;
  const double title_h = fig.title.empty() ? 0 : 36;
  const double W = static_cast<double>(cols * fig.panel_width);
  const double H = title_h + rows * fig.panel_height;
  std::string o = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" "
      "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#fafafa\"/>\n",
      W, H, W, H);
  if (!fig.title.empty())
    o += fmt::format(
        "<text x=\"{:.1f}\" y=\"24\" text-anchor=\"middle\" font-size=\"17\" "
        "font-weight=\"bold\">{}</text>\n",
        W / 2, esc(fig.title));
  for (size_t i = 0; i < fig.panels.size(); ++i) {
    const int c = static_cast<int>(i) % cols, r = static_cast<int>(i) / cols;
    render_panel(o, fig.panels[i], c * fig.panel_width,
                 title_h + r * fig.panel_height, fig.panel_width,
                 fig.panel_height);
  }
  o += "</svg>\n";
  return o;
}

}  // namespace mxc::study

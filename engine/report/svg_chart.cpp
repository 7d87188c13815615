#include "report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rs::report {

namespace {

constexpr int kWidth = 760;
constexpr const char* kFont = "font-family=\"DejaVu Sans, Arial, sans-serif\"";
// Colours told apart by most readers, also in grey print.
const char* const kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

const char* colour(size_t i) {
  return kColours[i % (sizeof kColours / sizeof kColours[0])];
}

std::string f1(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Tick labels: 0, 250, 1.5k, 2M ... short enough for the axis.
std::string tick_label(double v) {
  char buf[32];
  const double a = std::fabs(v);
  if (a >= 1e9)
    std::snprintf(buf, sizeof buf, "%gG", v / 1e9);
  else if (a >= 1e6)
    std::snprintf(buf, sizeof buf, "%gM", v / 1e6);
  else if (a >= 1e4)
    std::snprintf(buf, sizeof buf, "%gk", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%g", std::round(v * 1000) / 1000);
  return buf;
}

// A bar's own figure: 3 or 4 significant digits ("603.3", "9206", "11.9k").
std::string value_label(double v) {
  char buf[32];
  if (v >= 1e9)
    std::snprintf(buf, sizeof buf, "%.3gG", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.3gM", v / 1e6);
  else if (v >= 1e4)
    std::snprintf(buf, sizeof buf, "%.3gk", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// A label cut to `max` characters (with an ellipsis) so it fits its slot.
std::string fit(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = max - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return s.substr(0, cut) + "\u2026";
}

std::string text(double x, double y, const std::string& s, const char* anchor = "start", int size = 12,
                 const std::string& extra = "") {
  return "<text x=\"" + f1(x) + "\" y=\"" + f1(y) + "\" " + kFont + " font-size=\"" + std::to_string(size) +
         "\" text-anchor=\"" + anchor + "\"" +
         (extra.find(" fill=") == std::string::npos ? " fill=\"#222\"" : "") + extra + ">" + xml_escape(s) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const char* stroke, const std::string& extra = "") {
  return "<line x1=\"" + f1(x1) + "\" y1=\"" + f1(y1) + "\" x2=\"" + f1(x2) + "\" y2=\"" + f1(y2) +
         "\" stroke=\"" + stroke + "\"" + extra + "/>\n";
}

std::string rect(double x, double y, double w, double h, const char* fill) {
  return "<rect x=\"" + f1(x) + "\" y=\"" + f1(y) + "\" width=\"" + f1(std::max(w, 0.0)) + "\" height=\"" +
         f1(std::max(h, 0.0)) + "\" fill=\"" + fill + "\"/>\n";
}

std::string open_svg(int w, int h, const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + std::to_string(w) + "\" height=\"" +
         std::to_string(h) + "\" viewBox=\"0 0 " + std::to_string(w) + " " + std::to_string(h) +
         "\">\n<title>" + xml_escape(title) + "</title>\n" + rect(0, 0, w, h, "#ffffff") +
         text(w / 2.0, 20, title, "middle", 14, " font-weight=\"bold\"");
}

// Legend entries in rows under the title; returns the y below them.
double legend(std::string& out, const std::vector<std::string>& names, double y) {
  double x = 70;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string label = fit(names[i], 40);
    const double w = 22 + 7.0 * double(label.size());
    if (x + w > kWidth - 10 && x > 70) x = 70, y += 18;
    out += rect(x, y - 10, 12, 12, colour(i));
    out += text(x + 16, y, label, "start", 11);
    x += w + 14;
  }
  return y + 14;
}

// The y axis from 0 to `top` over [y0 (bottom), y1 (top)] at x: grid lines,
// ticks and the label turned along the axis.
void y_axis(std::string& out, double x, double x_end, double y0, double y1, double top, double step,
            const std::string& label) {
  for (double v = 0; v <= top * 1.0000001; v += step) {
    const double y = y0 - (y0 - y1) * v / top;
    out += line(x, y, x_end, y, "#e4e4e4");
    out += text(x - 6, y + 4, tick_label(v), "end", 11);
  }
  out += line(x, y0, x, y1, "#444");
  out += line(x, y0, x_end, y0, "#444");
  const double mid = (y0 + y1) / 2;
  out += text(16, mid, label, "middle", 12, " transform=\"rotate(-90 16 " + f1(mid) + ")\"");
}

double axis_top(double max, double step) {
  return std::max(step, std::ceil(max / step - 1e-9) * step);
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  return out;
}

double nice_step(double max, int ticks) {
  if (!(max > 0) || !std::isfinite(max)) return 1;
  const double raw = max / std::max(ticks, 1);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * p;
}

namespace {

// Many categories: one row per category, bars along x, so that every
// category's label stays readable.
Chart horizontal_bar_chart(const std::string& title, const std::string& x_label,
                           const std::vector<std::string>& categories, const std::vector<BarSeries>& series) {
  std::vector<std::string> names;
  for (auto& s : series) names.push_back(s.name);
  std::string body;
  const double top_y = legend(body, names, 44) + 8;
  const double left = 270, right = kWidth - 50, bar = 9;
  const double row_h = bar * double(std::max<size_t>(series.size(), 1)) + 8;
  double max = 0;
  for (auto& s : series)
    for (double v : s.values) max = std::max(max, std::isfinite(v) ? v : 0);
  const double step = nice_step(max, 5), top = axis_top(max, step);
  const double bottom = top_y + row_h * double(categories.size());
  for (double v = 0; v <= top * 1.0000001; v += step) {
    const double x = left + (right - left) * v / top;
    body += line(x, top_y, x, bottom, "#e4e4e4");
    body += text(x, bottom + 14, tick_label(v), "middle", 11);
  }
  for (size_t c = 0; c < categories.size(); ++c) {
    const double y0 = top_y + row_h * double(c) + 4;
    body += text(left - 6, y0 + row_h / 2, fit(categories[c], 42), "end", 10);
    for (size_t s = 0; s < series.size(); ++s) {
      const double v = c < series[s].values.size() && std::isfinite(series[s].values[c]) ? series[s].values[c] : 0;
      const double w = (right - left) * v / top;
      body += rect(left, y0 + bar * double(s), w, bar - 1, colour(s));
      body += text(left + w + 3, y0 + bar * double(s) + bar - 2, value_label(v), "start", 8);
    }
  }
  body += line(left, top_y, left, bottom, "#444");
  body += line(left, bottom, right, bottom, "#444");
  body += text((left + right) / 2, bottom + 32, x_label, "middle", 12);
  const int height = int(bottom + 44);
  return {open_svg(kWidth, height, title) + body + "</svg>\n", kWidth, height};
}

}  // namespace

Chart bar_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                const std::vector<std::string>& categories, const std::vector<BarSeries>& series) {
  if (categories.size() > 8) return horizontal_bar_chart(title, y_label, categories, series);
  std::vector<std::string> names;
  for (auto& s : series) names.push_back(s.name);
  std::string body;
  const double plot_top = legend(body, names, 44) + 8;
  const double plot_h = 220, left = 70, right = kWidth - 20;
  const double bottom = plot_top + plot_h;
  double max = 0;
  for (auto& s : series)
    for (double v : s.values) max = std::max(max, std::isfinite(v) ? v : 0);
  const double step = nice_step(max, 5), top = axis_top(max, step);
  y_axis(body, left, right, bottom, plot_top, top, step, y_label);
  const size_t nc = std::max<size_t>(categories.size(), 1), ns = std::max<size_t>(series.size(), 1);
  const double slot = (right - left) / double(nc);
  const double bar = std::min(60.0, slot * 0.8 / double(ns));
  const size_t label_chars = size_t(std::max(6.0, slot / 6.5));
  for (size_t c = 0; c < categories.size(); ++c) {
    const double x0 = left + slot * double(c) + (slot - bar * double(ns)) / 2;
    for (size_t s = 0; s < series.size(); ++s) {
      const double v = c < series[s].values.size() && std::isfinite(series[s].values[c]) ? series[s].values[c] : 0;
      const double h = plot_h * v / top;
      body += rect(x0 + bar * double(s), bottom - h, bar - 2, h, colour(s));
      if (bar >= 26) body += text(x0 + bar * (double(s) + 0.5) - 1, bottom - h - 3, value_label(v), "middle", 9);
    }
    body += text(left + slot * (double(c) + 0.5), bottom + 16, fit(categories[c], label_chars), "middle", 11);
  }
  body += text((left + right) / 2, bottom + 38, x_label, "middle", 12);
  const int height = int(bottom + 50);
  return {open_svg(kWidth, height, title) + body + "</svg>\n", kWidth, height};
}

Chart share_chart(const std::string& title, const std::vector<ShareRow>& rows) {
  std::vector<std::string> names;
  for (auto& r : rows)
    for (auto& [name, v] : r.parts)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  std::string body;
  double y = legend(body, names, 44) + 10;
  const double left = 250, right = kWidth - 20, bar_h = 20;
  for (auto& r : rows) {
    body += text(left - 8, y + 14, fit(r.label, 38), "end", 11);
    double x = left;
    for (auto& [name, share] : r.parts) {
      const size_t i = size_t(std::find(names.begin(), names.end(), name) - names.begin());
      const double w = (right - left) * std::clamp(share, 0.0, 1.0);
      body += rect(x, y, w, bar_h, colour(i));
      if (w >= 34) body += text(x + w / 2, y + 14, fmt_share(share), "middle", 10, " fill=\"#fff\"");
      x += w;
    }
    y += bar_h + 8;
  }
  // The axis: 0 .. 100 % of the member reads.
  for (int p = 0; p <= 100; p += 25) {
    const double x = left + (right - left) * p / 100.0;
    body += line(x, y - 4, x, y + 2, "#444");
    body += text(x, y + 15, std::to_string(p) + "%", "middle", 10);
  }
  body += line(left, y - 4, right, y - 4, "#444");
  body += text((left + right) / 2, y + 32, "share of the member reads", "middle", 12);
  const int height = int(y + 44);
  return {open_svg(kWidth, height, title) + body + "</svg>\n", kWidth, height};
}

Chart line_chart(const std::string& title, const std::string& y_label, const std::vector<double>& t,
                 const std::vector<SeriesLine>& lines, const std::vector<Mark>& marks) {
  std::vector<std::string> names;
  for (auto& l : lines) names.push_back(l.name);
  std::string body;
  const double plot_top = legend(body, names, 44) + 22;  // room for mark labels above the plot
  const double plot_h = 200, left = 70, right = kWidth - 20;
  const double bottom = plot_top + plot_h;
  double ymax = 0, tmax = 0;
  for (auto& l : lines)
    for (double v : l.y) ymax = std::max(ymax, std::isfinite(v) ? v : 0);
  for (double x : t) tmax = std::max(tmax, x);
  for (auto& m : marks) tmax = std::max(tmax, m.t);
  const double ystep = nice_step(ymax, 5), ytop = axis_top(ymax, ystep);
  const double tstep = nice_step(tmax, 8), ttop = axis_top(tmax, tstep);
  y_axis(body, left, right, bottom, plot_top, ytop, ystep, y_label);
  auto X = [&](double s) { return left + (right - left) * s / ttop; };
  auto Y = [&](double v) { return bottom - plot_h * std::clamp(std::isfinite(v) ? v : 0, 0.0, ytop) / ytop; };
  for (double s = 0; s <= ttop * 1.0000001; s += tstep) {
    body += line(X(s), bottom, X(s), bottom + 4, "#444");
    body += text(X(s), bottom + 16, tick_label(s), "middle", 11);
  }
  body += text((left + right) / 2, bottom + 36, "time since the start (s)", "middle", 12);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string pts;
    for (size_t k = 0; k < t.size() && k < lines[i].y.size(); ++k) pts += f1(X(t[k])) + "," + f1(Y(lines[i].y[k])) + " ";
    body += "<polyline fill=\"none\" stroke=\"" + std::string(colour(i)) + "\" stroke-width=\"1.6\" points=\"" + pts +
            "\"/>\n";
  }
  // Event marks: a dashed line and its label above the plot, alternating
  // two rows so that neighbours do not overprint.
  for (size_t i = 0; i < marks.size(); ++i) {
    const double x = X(marks[i].t);
    body += line(x, plot_top - 4, x, bottom, "#555", " stroke-dasharray=\"4,3\"");
    const char* anchor = x > right - 120 ? "end" : "start";
    body += text(x + (anchor[0] == 'e' ? -3 : 3), plot_top - 6 - (i % 2) * 11, fit(marks[i].label, 36), anchor, 10);
  }
  const int height = int(bottom + 48);
  return {open_svg(kWidth, height, title) + body + "</svg>\n", kWidth, height};
}

}  // namespace rs::report
